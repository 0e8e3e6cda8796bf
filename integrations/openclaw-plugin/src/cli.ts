/** `openclaw memory search|status|index`, served by Alaya. */

import type { Command } from "commander";
import type { AlayaClient } from "./alaya.js";
import { toHit, type RecallDocument } from "./results.js";

/** Bringing sessions in can distill many of them (a model call each with an LLM distiller). */
const INDEX_TIMEOUT_MS = 60 * 60 * 1000;

export function registerMemoryCli(program: Command, alaya: AlayaClient): void {
  const memory = program.command("memory").description("Search Alaya's memory, show its status, bring OpenClaw sessions in (alaya-memory)");

  memory.command("search").description("Search memory (Alaya recall)").argument("[query]", "Search query")
    .option("--query <text>", "Search query (alternative to the positional argument)")
    .option("--max-results <n>", "Max results", (value: string) => positiveInteger(value, "--max-results"))
    .option("--no-sessions", "Cards only, no windows of raw session turns")
    .option("--json", "Print JSON")
    .action(async (queryArgument: string | undefined, options: { query?: string; maxResults?: number; sessions: boolean; json?: boolean }) => {
      const query = options.query ?? queryArgument;
      if (!query) throw new Error("Missing search query. Provide a positional query or use --query <text>.");
      const request = { text: query, max_results: options.maxResults ?? 8, include_sessions: options.sessions };
      const recall = await alaya.call<RecallDocument>("recall", { request });
      const results = recall.nodes.map(toHit);
      if (options.json) {
        print(JSON.stringify({ results, verdict: recall.verdict, timings_ms: recall.timings_ms }, null, 2));
        return;
      }
      if (!results.length) {
        print(`No memories found (${recall.reason ?? recall.verdict}).`);
        return;
      }
      results.forEach((hit, index) => {
        print(`${index + 1}. ${hit.score.toFixed(3)}  ${hit.title}  [${hit.type}, ${hit.source}]`);
        print(`   ${hit.citation}`);
        print(`   ${hit.snippet.replace(/\s+/g, " ").slice(0, 200)}`);
      });
      print(`verdict: ${recall.verdict}`);
    });

  memory.command("status").description("Show the Alaya store's status and its server").option("--json", "Print JSON")
    .action(async (options: { json?: boolean }) => {
      const status = await alaya.call("status", {});
      const server = await alaya.call("server.status", {});
      if (options.json) {
        print(JSON.stringify({ home: alaya.options.home, status, server }, null, 2));
        return;
      }
      print(`Alaya store: ${alaya.options.home} (Alaya ${server.version}, server pid ${server.pid}, socket ${alaya.socket})`);
      print(summarise(status));
    });

  memory.command("index").description("Bring OpenClaw sessions into Alaya (alaya sync openclaw) and distill what is not yet distilled")
    .option("--agent <id>", "Only this agent's sessions")
    .option("--state-dir <dir>", "OpenClaw's state folder (default: $OPENCLAW_STATE_DIR or ~/.openclaw)")
    .option("--include-active", "Re-ingest changed sessions now instead of waiting until they are quiet")
    .option("--no-distill", "Only bring sessions in")
    .option("--json", "Print JSON")
    .action(async (options: { agent?: string; stateDir?: string; includeActive?: boolean; distill: boolean; json?: boolean }) => {
      const args = ["sync", "openclaw"];
      if (options.agent) args.push("--agent", options.agent);
      if (options.stateDir) args.push("--state-dir", options.stateDir);
      if (options.includeActive) args.push("--include-active");
      const sync = await alaya.cli(args, { timeoutMs: INDEX_TIMEOUT_MS });
      const distill = options.distill ? await alaya.call("distill", {}) : null;
      if (options.json) {
        print(JSON.stringify({ sync, distill }, null, 2));
        return;
      }
      print(`sync: ${sync.ingested} ingested, ${sync.replaced} replaced, ${sync.unchanged} unchanged, ` +
        `${sync.waiting} waiting, ${sync.refused} refused`);
      for (const change of sync.changes.filter((item: { status: string }) => item.status === "refused")) {
        print(`  refused ${change.path}: ${change.error.message}`);
      }
      if (distill) print(`distill: ${distill.sessions_distilled} sessions distilled, ${distill.cards_created} cards, ` +
        `${distill.links_created} links${distill.sessions_failed ? `, ${distill.sessions_failed} failed` : ""}`);
    });
}

function summarise(status: Record<string, any>): string {
  const counts = (record: Record<string, number>) => Object.entries(record).map(([name, count]) => `${name} ${count}`).join(", ");
  return [
    `sessions: ${status.l3.sessions} (${status.l3.oldest ?? "-"} to ${status.l3.newest ?? "-"})`,
    `cards:    ${status.l2.cards} (${counts(status.l2.cards_by_type)})`,
    `links:    ${status.l2.links}`,
    `vectors:  ${counts(status.l1.by_tier)} (${status.l1.embedding.name})`,
  ].join("\n");
}

function positiveInteger(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${flag} must be a positive integer.`);
  return parsed;
}

function print(line: string): void {
  console.log(line);
}
