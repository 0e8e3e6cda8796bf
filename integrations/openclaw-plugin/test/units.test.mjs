// The pure parts: paths memory_get takes, the socket rule (checked against Alaya's own), the recall block's budget.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ALAYA, run } from "./helpers.mjs";
import { socketPath } from "../dist/alaya.js";
import { recallBlock, recallQuery } from "../dist/recall-context.js";
import { estimateTokens, parseMemoryPath } from "../dist/results.js";

test("memory_get paths", () => {
  assert.deepEqual(parseMemoryPath("alaya://card/card-1"), { kind: "card", id: "card-1" });
  assert.deepEqual(parseMemoryPath("card-1"), { kind: "card", id: "card-1" });
  assert.deepEqual(parseMemoryPath("alaya://session/s-1"), { kind: "session", sessionId: "s-1" });
  assert.deepEqual(parseMemoryPath("alaya://session/s-1#L3-L5"), { kind: "session", sessionId: "s-1", first: 2, last: 4 });
  assert.deepEqual(parseMemoryPath("s-1:turns:2-4"), { kind: "session", sessionId: "s-1", first: 2, last: 4 });
  assert.equal(parseMemoryPath("memory/2026-01-01.md"), null);
});

test("the socket path follows Alaya's rule, long homes included", async () => {
  const python = await alayaPython();
  const script = "import sys; from alaya_engine.foundations.socket_address import socket_path; print(socket_path(sys.argv[1]))";
  for (const home of ["/tmp/short-home", `/tmp/${"x".repeat(120)}/home`]) {
    const expected = (await run(python, ["-c", script, home])).stdout.trim();
    assert.ok(expected.endsWith(".sock"), expected);
    assert.equal(socketPath(home), expected);
  }
});

/** The Python interpreter behind the `alaya` command (its shebang). */
async function alayaPython() {
  const { readFile } = await import("node:fs/promises");
  const which = (await run("sh", ["-c", `command -v "${ALAYA}"`])).stdout.trim();
  return (await readFile(which, "utf8")).split("\n")[0].replace(/^#!\s*/, "").trim();
}

test("the auto-recall block keeps to its budget and cuts snippets rather than dropping everything", () => {
  const node = (index, content) => ({ card_id: `card-${index}`, title: `title ${index}`, content, score: 0.9, type: "gotcha",
    source: "distill", kind: "card" });
  const recall = { nodes: [node(1, "short"), node(2, "long ".repeat(400)), node(3, "中文".repeat(300))], verdict: "", next_request: null, reason: null, timings_ms: {} };
  for (const budget of [60, 120, 400]) {
    const block = recallBlock(recall, budget);
    assert.ok(estimateTokens(block) <= budget, `${budget}: ${estimateTokens(block)}`);
    assert.match(block, /title 1 \(alaya:\/\/card\/card-1\): short/);
  }
  assert.match(recallBlock(recall, 400), /title 2 .*…/);
  assert.equal(recallBlock({ ...recall, nodes: [] }, 400), null);
  assert.equal(recallQuery({ prompt: "p", currentUserMessage: " q " }), "q");
  assert.equal(recallQuery({ prompt: "x".repeat(5000) }).length, 4000);
});
