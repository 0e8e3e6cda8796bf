// Per-agent isolation (`isolation: "agent"`) on a store of its own: each agent's memory_search, alaya_recall and
// auto-recall see its own sessions and the shared ones (here: the `team` project, by the store's share rules).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { ALAYA, details, registerPlugin, run } from "./helpers.mjs";

const home = path.join(mkdtempSync(path.join(os.tmpdir(), "alaya-isolation-")), "store");
const WORD = "kestrel";
const RUNS = [  // session id, agent, channel
  ["iso-alpha", "alpha", "cli"],
  ["iso-beta", "beta", "cli"],
  ["iso-team", "beta", "team"],
];

before(async () => {
  assert.equal((await run(ALAYA, ["--home", home, "init"], { timeoutMs: 120_000 })).code, 0);
  const configFile = path.join(home, "config.json");
  const config = JSON.parse(readFileSync(configFile, "utf8"));
  writeFileSync(configFile, JSON.stringify({ ...config, share: { include: ["project=team"], exclude: [] } }));
  const { host } = await registerPlugin({ home, alayaPath: ALAYA });
  for (const [sessionId, agentId, channel] of RUNS) {
    host.hooks.get("agent_end")({ success: true, messages: [
      { role: "user", content: `Why does the ${WORD} deploy of ${sessionId} hang at the migration step?` },
      { role: "assistant", content: `The ${WORD} migration of ${sessionId} waits for a table lock held by the cron job.` },
    ] }, { sessionId, agentId, channel });
  }
  await host.hooks.get("gateway_stop")();
  assert.ok(!host.logs.some(([level]) => level === "warn"), JSON.stringify(host.logs));
});

after(async () => {
  await run(ALAYA, ["--home", home, "server", "stop"], { timeoutMs: 60_000 });
  rmSync(path.dirname(home), { recursive: true, force: true });
});

const sessionsOf = (results) => new Set(results.map((hit) => hit.path.replace("alaya://session/", "")));

test("memory_search and alaya_recall of an isolated agent see its own sessions and the shared ones", async () => {
  const { host } = await registerPlugin({ home, alayaPath: ALAYA, isolation: "agent" });
  for (const [agentId, visible] of [["alpha", ["iso-alpha", "iso-team"]], ["beta", ["iso-beta", "iso-team"]]]) {
    const tools = host.toolsFor({ agentId });
    const found = details(await tools.get("memory_search").execute("c1", { query: `${WORD} migration`, corpus: "sessions" }));
    assert.deepEqual([...sessionsOf(found.results)].sort(), visible);
    const recalled = details(await tools.get("alaya_recall").execute("c2", { text: `${WORD} migration` }));
    assert.deepEqual([...new Set(recalled.nodes.map((node) => node.session_id))].sort(), visible);
    assert.deepEqual(recalled.query.scope, [`agent=${agentId}`, "shared"]);
    const narrowed = details(await tools.get("alaya_recall").execute("c3", { text: `${WORD} migration`, scope: ["shared"] }));
    assert.deepEqual([...new Set(narrowed.nodes.map((node) => node.session_id))], ["iso-team"]);
  }
  await assert.rejects(host.toolsFor({ agentId: "alpha" }).get("alaya_recall").execute("c4", { text: WORD, scope: ["agent=beta"] }),
    (error) => error.code === "scope_isolated" && /agent=alpha and shared/.test(error.message));
  const open = await registerPlugin({ home, alayaPath: ALAYA });
  const everything = details(await open.host.toolsFor({ agentId: "alpha" }).get("memory_search").execute("c5",
    { query: `${WORD} migration`, corpus: "sessions" }));
  assert.deepEqual([...sessionsOf(everything.results)].sort(), ["iso-alpha", "iso-beta", "iso-team"]);
});

test("the auto-recall block of an isolated agent holds none of another agent's private sessions", async () => {
  const { host } = await registerPlugin({ home, alayaPath: ALAYA, isolation: "agent", autoRecall: true, autoRecallTokens: 2000 });
  const block = (await host.hooks.get("before_prompt_build")({ prompt: "", currentUserMessage: `${WORD} migration hangs`,
    messages: [] }, { agentId: "alpha" })).prependContext;
  assert.match(block, /alaya:\/\/session\/iso-alpha/);
  assert.match(block, /alaya:\/\/session\/iso-team/);
  assert.doesNotMatch(block, /iso-beta/);
});
