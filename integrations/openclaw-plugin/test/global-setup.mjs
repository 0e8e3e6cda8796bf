// Builds one real Alaya store for every test file: the offline demo memory (`alaya demo`: sessions distilled
// without a model call) plus the fixture memex vault, and stops its server and removes it at the end.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ALAYA, REPO_DIR, alaya, run } from "./helpers.mjs";

let home;

export async function globalSetup() {
  home = path.join(mkdtempSync(path.join(os.tmpdir(), "alaya-plugin-test-")), "store");
  const built = await run(ALAYA, ["demo", "--demo-home", home, "--no-tui", "--json"], { timeoutMs: 180_000 });
  if (built.code !== 0) throw new Error(`alaya demo failed (${built.code}): ${built.stdout}${built.stderr}`);
  await alaya(home, "import-memex", path.join(REPO_DIR, "tests", "fixtures", "memex_vault"));
  process.env.ALAYA_PLUGIN_TEST_HOME = home;
}

export async function globalTeardown() {
  if (!home) return;
  await run(ALAYA, ["--home", home, "server", "stop"], { timeoutMs: 60_000 });
  rmSync(path.dirname(home), { recursive: true, force: true });
}
