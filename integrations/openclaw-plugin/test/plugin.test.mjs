// The plugin as OpenClaw registers it, its tools and hooks driven against a real Alaya store and server.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { Command } from "commander";
import { ALAYA, REPO_DIR, alaya, details, registerPlugin, storeHome } from "./helpers.mjs";
import { estimateTokens } from "../dist/results.js";

const QUESTION = "gateway restart telegram";
const config = () => ({ home: storeHome(), alayaPath: ALAYA });

describe("registration", () => {
  test("registers the memory tools, Alaya's tools, the memory CLI and the capture hooks", async () => {
    const { entry, host } = await registerPlugin(config());
    assert.equal(entry.id, "alaya-memory");
    assert.deepEqual([...host.tools.keys()], ["memory_search", "memory_get", "alaya_recall", "alaya_trace", "alaya_link"]);
    for (const tool of host.tools.values()) {
      assert.equal(tool.parameters.type, "object");
      assert.ok(tool.description.length > 80, tool.name);
    }
    assert.deepEqual(host.cli.map(({ options }) => options.descriptors.map((item) => item.name)), [["memory"]]);
    assert.deepEqual([...host.hooks.keys()].sort(), ["agent_end", "gateway_stop"]);
  });

  test("auto-recall is opt-in and auto-capture can be turned off", async () => {
    const { host } = await registerPlugin({ ...config(), autoRecall: true, autoCapture: false });
    assert.deepEqual([...host.hooks.keys()], ["before_prompt_build"]);
  });
});

describe("memory_search", async () => {
  const { host } = await registerPlugin(config());
  const search = (params) => host.tools.get("memory_search").execute("call-1", params).then(details);

  test("answers with Alaya's recall, in OpenClaw's result shape", async () => {
    const found = await search({ query: QUESTION, maxResults: 8 });
    const recall = await alaya(storeHome(), "recall", QUESTION, "--max-results", "8");
    assert.deepEqual(found.results.map((hit) => hit.id), recall.nodes.map((node) => node.card_id));
    assert.equal(found.provider, "alaya");
    assert.equal(found.verdict, recall.verdict);
    const sources = new Set(found.results.map((hit) => hit.source));
    assert.ok(sources.has("card") && sources.has("session"), [...sources].join());
    for (const hit of found.results) {
      assert.match(hit.path, /^alaya:\/\/(card|session)\//);
      assert.ok(hit.startLine >= 1 && hit.endLine >= hit.startLine);
      assert.ok(hit.snippet.length > 0 && hit.title.length > 0 && hit.score > 0);
      assert.equal(hit.citation.split("#")[0], hit.path);
    }
  });

  test("corpus=memory leaves session turns out, corpus=sessions keeps only them", async () => {
    const cards = await search({ query: QUESTION, corpus: "memory" });
    assert.ok(cards.results.length && cards.results.every((hit) => hit.source !== "session"));
    const sessions = await search({ query: QUESTION, corpus: "sessions" });
    assert.ok(sessions.results.length && sessions.results.every((hit) => hit.source === "session"));
  });

  test("memex notes come back as source memex unless includeMemex is false", async () => {
    const query = "docker memory limit gateway restart";
    const all = await search({ query, maxResults: 20 });
    assert.ok(all.results.some((hit) => hit.source === "memex"));
    const without = await search({ query, maxResults: 20, includeMemex: false });
    assert.ok(without.results.length && !without.results.some((hit) => hit.source === "memex"));
  });

  test("an Alaya error is a tool error naming its code", async () => {
    await assert.rejects(host.tools.get("alaya_recall").execute("call-2", { text: QUESTION, depth: 9 }),
      (error) => error.code === "bad_query" && /Alaya bad_query: 'depth' is 9/.test(error.message));
  });
});

describe("memory_get", async () => {
  const { host } = await registerPlugin(config());
  const get = (params) => host.tools.get("memory_get").execute("call-1", params).then(details);
  const search = (params) => host.tools.get("memory_search").execute("call-1", params).then(details);

  test("reads a card in full, with its relations", async () => {
    const hit = (await search({ query: QUESTION, corpus: "memory" })).results[0];
    const card = await get({ path: hit.path });
    const trace = await alaya(storeHome(), "trace", hit.id);
    assert.equal(card.status, "ok");
    assert.equal(card.text, trace.card.content);
    assert.equal(card.title, trace.card.title);
    assert.ok(card.related.length > 0 && card.related.every((line) => /alaya:\/\/card\/card-/.test(line)));
    const second = await get({ path: hit.id, from: 2, lines: 1 });
    assert.equal(second.text, trace.card.content.split("\n")[1] ?? "");
  });

  test("reads a session hit's turns, and pages on through the session", async () => {
    const hit = (await search({ query: QUESTION, corpus: "sessions" })).results[0];
    const window = await get({ path: hit.path, from: hit.startLine, lines: hit.endLine - hit.startLine + 1 });
    assert.equal(window.from, hit.startLine);
    assert.equal(window.lines, hit.endLine - hit.startLine + 1);
    const firstLine = window.text.split("\n")[0];
    assert.ok(firstLine.startsWith(`[${hit.startLine}] `), firstLine);
    const sessionId = hit.path.slice("alaya://session/".length);
    const start = await get({ path: hit.path, lines: 2 });
    assert.equal(start.from, 1);
    assert.equal(start.lines, 2);
    assert.equal(start.nextFrom, 3);
    assert.ok(start.turnCount > 2 && start.more);
    const byWindowId = await get({ path: `${sessionId}:turns:0-1` });
    assert.equal(byWindowId.text, start.text);
    const byAnchor = await get({ path: `${hit.path}#L1-L2` });
    assert.equal(byAnchor.text, start.text);
  });

  test("refuses what is not there, saying so", async () => {
    await assert.rejects(get({ path: "alaya://card/card-0000000000000000" }), /Alaya unknown_card: no card/);
    await assert.rejects(get({ path: "alaya://session/no-such-session" }), /Alaya unknown_session: no session 'no-such-session'/);
    await assert.rejects(get({ path: "MEMORY.md#notes" }), /Alaya bad_path/);
  });
});

describe("Alaya's own tools", async () => {
  const { host } = await registerPlugin(config());
  const call = (name, params) => host.tools.get(name).execute("call-1", params).then(details);

  test("alaya_recall's next_request reads further down with the same goal", async () => {
    const far = "how long do backups stay";
    const first = await call("alaya_recall", { text: far, include_sessions: false });
    assert.ok(first.nodes.length && first.next_request, first.verdict);
    assert.equal(first.next_request.include_sessions, false);
    const next = await call("alaya_recall", first.next_request);
    assert.equal(next.goal, far);
    assert.equal(next.query.max_results, 2 * first.query.max_results);
    assert.ok(next.nodes.length > first.nodes.length);
  });

  test("alaya_trace leads a card to its session; alaya_link records a relation", async () => {
    const cards = (await call("alaya_recall", { text: QUESTION, include_sessions: false, include_memex: false })).nodes;
    const trace = await call("alaya_trace", { card_id: cards[0].card_id });
    assert.ok(trace.sessions.length > 0 && trace.sessions[0].path.endsWith(".json"));
    const [source, target] = [cards[0].card_id, cards[cards.length - 1].card_id];
    const linked = await call("alaya_link", { source, target, relation: "DEPENDS_ON", reason: "plugin test" });
    assert.ok(JSON.stringify(linked).includes("DEPENDS_ON"));
    const card = await call("memory_get", { path: `alaya://card/${source}` });
    assert.ok(card.related.some((line) => line.includes("DEPENDS_ON") && line.includes(target)), card.related.join("\n"));
  });
});

describe("auto-capture", async () => {
  const messages = [
    { role: "user", content: "Remember: the staging database lives on host tern-07.", timestamp: 1776502800000 },
    { role: "assistant", content: [{ type: "text", text: "Noted, staging DB is on tern-07." },
      { type: "toolCall", name: "exec", arguments: { command: "ping tern-07" } }], timestamp: 1776502801000 },
    { role: "toolResult", toolName: "exec", content: [{ type: "text", text: "64 bytes from tern-07" }], timestamp: 1776502802000 },
  ];

  test("agent_end stores the run's session in the background; the next run replaces it", async () => {
    const { host } = await registerPlugin(config());
    const sessionId = `plugin-capture-${process.pid}`;
    const context = { sessionId, agentId: "main", channel: "cli" };
    assert.equal(host.hooks.get("agent_end")({ messages: messages.slice(0, 2), success: true }, context), undefined);
    await host.hooks.get("gateway_stop")();
    const get = (params) => host.tools.get("memory_get").execute("call-1", params).then(details);
    const stored = await get({ path: `alaya://session/${sessionId}` });
    assert.equal(stored.turnCount, 2);
    assert.match(stored.text, /^\[1\] user: Remember: the staging database lives on host tern-07\./);
    host.hooks.get("agent_end")({ messages: [...messages, { role: "user", content: "thanks" }], success: true }, context);
    await host.hooks.get("gateway_stop")();
    const grown = await get({ path: `alaya://session/${sessionId}` });
    assert.equal(grown.turnCount, 4);
    assert.match(grown.text, /\[3\] tool \(exec\): 64 bytes from tern-07/);
    assert.ok(!host.logs.some(([level]) => level === "warn"), JSON.stringify(host.logs));
  });

  test("a compacted session keeps what was stored and goes on as a new part", async () => {
    const { host } = await registerPlugin(config());
    const sessionId = `plugin-compacted-${process.pid}`;
    const end = (list) => host.hooks.get("agent_end")({ messages: list, success: true }, { sessionId });
    end(messages);
    end([{ role: "user", content: "Summary so far: staging DB on tern-07." }, { role: "user", content: "and prod?" }]);
    await host.hooks.get("gateway_stop")();
    const get = (params) => host.tools.get("memory_get").execute("call-1", params).then(details);
    assert.equal((await get({ path: `alaya://session/${sessionId}` })).turnCount, 3);
    const part = await get({ path: `alaya://session/${sessionId}.part2` });
    assert.equal(part.turnCount, 2);
    assert.match(part.text, /\[2\] user: and prod\?/);
  });

  test("a failure is logged, never thrown into the conversation", async (t) => {
    const notAStore = mkdtempSync(path.join(os.tmpdir(), "alaya-not-a-store-"));
    t.after(() => rmSync(notAStore, { recursive: true, force: true }));
    const { host } = await registerPlugin({ home: notAStore, alayaPath: ALAYA });
    host.hooks.get("agent_end")({ messages, success: true }, { sessionId: "plugin-capture-fails" });
    await host.hooks.get("gateway_stop")();
    const warnings = host.logs.filter(([level]) => level === "warn").map(([, message]) => message);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /storing session plugin-capture-fails failed: Alaya \w+: .*(alaya init|no Alaya store|not initialised)/i);
  });

  test("a run without a usable session id is not stored", async () => {
    const { host } = await registerPlugin(config());
    host.hooks.get("agent_end")({ messages, success: true }, { sessionId: "../escape" });
    await host.hooks.get("gateway_stop")();
    assert.ok(host.logs.some(([level, message]) => level === "debug" && message.includes("nothing to store")));
  });
});

describe("auto-recall", () => {
  test("puts the best memories in front of the prompt, within the token budget", async () => {
    const { host } = await registerPlugin({ ...config(), autoRecall: true, autoRecallTokens: 150 });
    const result = await host.hooks.get("before_prompt_build")({ prompt: "history…", currentUserMessage: QUESTION, messages: [] }, {});
    const block = result.prependContext;
    assert.match(block, /^<alaya-memory>\n/);
    assert.match(block, /<\/alaya-memory>$/);
    assert.ok(estimateTokens(block) <= 150, `${estimateTokens(block)} tokens`);
    assert.match(block, /\(alaya:\/\/(card|session)\//);
  });

  test("an empty request recalls nothing; a failing store only logs", async (t) => {
    const { host } = await registerPlugin({ ...config(), autoRecall: true });
    assert.equal(await host.hooks.get("before_prompt_build")({ prompt: "x", currentUserMessage: "", messages: [] }, {}), undefined);
    const none = mkdtempSync(path.join(os.tmpdir(), "alaya-none-"));
    t.after(() => rmSync(none, { recursive: true, force: true }));
    const broken = await registerPlugin({ home: none, alayaPath: ALAYA, autoRecall: true });
    assert.equal(await broken.host.hooks.get("before_prompt_build")({ prompt: QUESTION, messages: [] }, {}), undefined);
    assert.match(broken.host.logs.at(-1)[1], /auto-recall failed: Alaya/);
  });
});

describe("openclaw memory (the CLI registrar)", async () => {
  const { host } = await registerPlugin(config());
  const program = new Command().exitOverride();
  await host.cli[0].registrar({ program });

  async function cli(...args) {
    const printed = [];
    const log = console.log;
    console.log = (line) => printed.push(`${line}\n`);
    try {
      await program.parseAsync(["memory", ...args], { from: "user" });
    } finally {
      console.log = log;
    }
    return printed.join("");
  }

  test("status shows the store and its server", async () => {
    const shown = JSON.parse(await cli("status", "--json"));
    assert.equal(shown.home, storeHome());
    assert.ok(shown.status.l2.cards > 0 && shown.server.pid > 0);
    assert.match(await cli("status"), /^Alaya store: .*\nsessions: \d+/);
  });

  test("index brings OpenClaw transcripts in and distills them", async () => {
    const stateDir = path.join(REPO_DIR, "tests", "fixtures", "openclaw_state");
    const report = JSON.parse(await cli("index", "--state-dir", stateDir, "--json"));
    assert.ok(report.sync.ingested + report.sync.unchanged + report.sync.replaced >= 1, JSON.stringify(report.sync));
    assert.equal(report.sync.refused, 1, "the fixture's malformed transcript is reported, the others stored");
    assert.equal(report.distill.sessions_failed, 0);
    const again = await cli("index", "--state-dir", stateDir, "--no-distill");
    assert.match(again, /^sync: 0 ingested/);
  });
});
