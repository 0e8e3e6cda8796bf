// The packed plugin installed by the real `openclaw` CLI into a throw-away state dir, then loaded by it:
// `openclaw memory search` answers from the Alaya store.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { ALAYA, PLUGIN_DIR, run, storeHome } from "./helpers.mjs";

const OPENCLAW = path.join(PLUGIN_DIR, "node_modules", "openclaw", "openclaw.mjs");
const work = mkdtempSync(path.join(os.tmpdir(), "alaya-openclaw-"));
const env = { ...process.env, OPENCLAW_STATE_DIR: path.join(work, "state") };

function openclaw(...args) {
  return run(process.execPath, [OPENCLAW, ...args], { env, cwd: work, timeoutMs: 90_000 });
}

before(async () => {
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
  const packed = await run(npm[0], [...npm[1], "pack", "--pack-destination", work], { cwd: PLUGIN_DIR, timeoutMs: 90_000 });
  assert.equal(packed.code, 0, packed.stderr);
});

after(() => rmSync(work, { recursive: true, force: true }));

test("openclaw plugins install takes the packed plugin and gives it the memory slot", async () => {
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
  const installed = await openclaw("plugins", "install", path.join(work, tarball), "--force", "--accept-capabilities");
  assert.equal(installed.code, 0, installed.stdout + installed.stderr);
  assert.match(installed.stdout, /Installed plugin: alaya-memory/);
  const configFile = path.join(env.OPENCLAW_STATE_DIR, "openclaw.json");
  const config = JSON.parse(readFileSync(configFile, "utf8"));
  assert.equal(config.plugins.slots.memory, "alaya-memory");
  assert.equal(config.plugins.entries["alaya-memory"].enabled, true);

  // Point it at the test store; memory-core off, so that `openclaw memory` is this plugin's.
  config.plugins.entries["alaya-memory"].config = { home: storeHome(), alayaPath: ALAYA };
  config.plugins.entries["memory-core"] = { enabled: false };
  writeFileSync(configFile, JSON.stringify(config, null, 2));

  // This loads the plugin's runtime and runs its CLI (`plugins inspect --runtime` would add 10 s; the tools it
  // registers are checked in plugin.test.mjs).
  const searched = await openclaw("memory", "search", "gateway restart telegram", "--max-results", "5");
  assert.equal(searched.code, 0, searched.stdout + searched.stderr);
  const lines = searched.stdout.trim().split("\n");
  assert.match(lines[0], /^1\. 0\.\d{3} {2}.+ {2}\[\w+, (card|session|memex)\]$/);
  assert.match(lines[1], /^ {3}alaya:\/\/(card|session)\/\S+#L\d+/);
  assert.equal(lines.filter((line) => /^\d+\. /.test(line)).length, 5);
  assert.match(lines.at(-1), /^verdict: /);
});
