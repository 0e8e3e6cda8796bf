// Shared by the tests: the Alaya store the global setup built, the `alaya` command, running processes with a
// time limit, and the plugin registered the way OpenClaw registers it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PLUGIN_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO_DIR = path.resolve(PLUGIN_DIR, "../..");

/** The `alaya` executable: $ALAYA_BIN, else `alaya` on PATH (CI runs these tests in the venv pytest used). */
export const ALAYA = process.env.ALAYA_BIN || "alaya";

/** The store the global setup built (the offline demo store plus the fixture memex vault), shared by every test. */
export function storeHome() {
  const home = process.env.ALAYA_PLUGIN_TEST_HOME;
  if (!home) throw new Error("ALAYA_PLUGIN_TEST_HOME is not set: run the tests with npm test (it runs test/global-setup.mjs)");
  return home;
}

/** Run a command; resolves {code, stdout, stderr}, rejects only when it cannot start or runs past `timeoutMs`. */
export function run(command, args, { timeoutMs = 60_000, env = process.env, cwd } = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, env, cwd, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error && (error.killed || typeof error.code !== "number")) {
        reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stderr}`));
        return;
      }
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

/** Run `alaya --home HOME ARGS --json`, expecting success; returns its document. */
export async function alaya(home, ...args) {
  const result = await run(ALAYA, ["--home", home, ...args, "--json"], { timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`alaya ${args.join(" ")} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Register the built plugin (dist/, what OpenClaw loads) against a host that records what it registers, typed as
 * the SDK's OpenClawPluginApi: its tools, CLI registrars and hooks, and what it logs. Tools registered as factories
 * are made as OpenClaw makes them for an agent run: `host.toolsFor({ agentId })`; `host.tools` are the tools of a
 * run that names no agent. */
export async function registerPlugin(pluginConfig) {
  const { default: entry } = await import(path.join(PLUGIN_DIR, "dist", "index.js"));
  const factories = new Map();
  const toolsFor = (context) => new Map([...factories].map(([name, make]) => [name, [make(context)].flat()
    .find((tool) => tool?.name === name)]));
  const host = { tools: new Map(), toolsFor, cli: [], hooks: new Map(), logs: [] };
  /** @type {import("openclaw/plugin-sdk/plugin-entry").OpenClawPluginApi} */
  const api = /** @type {any} */ ({
    id: entry.id,
    pluginConfig,
    logger: {
      debug: (message) => host.logs.push(["debug", message]),
      info: (message) => host.logs.push(["info", message]),
      warn: (message) => host.logs.push(["warn", message]),
      error: (message) => host.logs.push(["error", message]),
    },
    registerTool: (tool, options) => {
      for (const name of options?.names ?? [options?.name ?? tool.name]) {
        factories.set(name, typeof tool === "function" ? tool : () => tool);
      }
    },
    registerCli: (registrar, options) => host.cli.push({ registrar, options }),
    on: (name, handler) => host.hooks.set(name, handler),
  });
  entry.register(api);
  host.tools = toolsFor({});
  return { entry, host };
}

/** A tool's JSON result: its text must be the JSON of its details, as OpenClaw's own tools answer. */
export function details(result) {
  assert.deepEqual(JSON.parse(result.content[0].text), result.details);
  return result.details;
}
