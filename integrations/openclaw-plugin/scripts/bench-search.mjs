#!/usr/bin/env node
// How much memory_search adds to Alaya's own recall time, through the owner server's socket (what the plugin uses)
// and, for comparison, by spawning `alaya recall --json` per call.
//
//   node scripts/bench-search.mjs [--home DIR] [--runs N]
//
// Without --home it builds the offline demo store in a temporary folder (alaya demo) and removes it afterwards.
// The server's time for each request is what it logs (logs/alaya.log: "recall ok in X ms", measured from the
// request read to the reply built); the plugin's is the wall time of the tool call, so the difference is the
// connection, the JSON on both sides and the mapping to OpenClaw's result shape.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { AlayaClient } from "../dist/alaya.js";
import { memoryTools } from "../dist/tools.js";

const { values } = parseArgs({ options: { home: { type: "string" }, runs: { type: "string", default: "100" }, alaya: { type: "string" } } });
const runs = Number(values.runs);
const alayaPath = values.alaya ?? process.env.ALAYA_BIN ?? "alaya";
const QUERIES = ["gateway restart telegram", "why were messages lost", "docker memory limit", "plugins.allow whitelist",
  "disk usage alert on db-01", "what did we decide about the vector store"];

function exec(command, args, timeoutMs = 180_000) {
  return new Promise((resolve, reject) => execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 << 20 },
    (error, stdout, stderr) => (error ? reject(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stderr}`)) : resolve(stdout))));
}

function serverTimes(home) {
  const log = readFileSync(path.join(home, "logs", "alaya.log"), "utf8");
  return [...log.matchAll(/ recall ok in ([\d.]+) ms/g)].map((match) => Number(match[1]));
}

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

function row(name, values) {
  return `${name.padEnd(44)} p50 ${percentile(values, 0.5).toFixed(1).padStart(7)} ms   p95 ${percentile(values, 0.95).toFixed(1).padStart(7)} ms`;
}

/** Runs `call` `runs` times; returns the wall times and the server's own times for the same requests. */
async function measure(home, call) {
  const before = serverTimes(home).length;
  const walls = [];
  for (let index = 0; index < runs; index++) {
    const started = process.hrtime.bigint();
    await call(QUERIES[index % QUERIES.length]);
    walls.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const server = serverTimes(home).slice(before);
  if (server.length !== runs) throw new Error(`expected ${runs} recalls in the server log, found ${server.length}`);
  return { walls, server, overhead: walls.map((wall, index) => wall - server[index]) };
}

let scratch;
let home = values.home;
if (!home) {
  scratch = mkdtempSync(path.join(os.tmpdir(), "alaya-bench-"));
  home = path.join(scratch, "store");
  console.log(`building the demo store in ${home} …`);
  await exec(alayaPath, ["demo", "--demo-home", home, "--no-tui", "--json"]);
}
try {
  const alaya = new AlayaClient({ home, alayaPath, timeoutMs: 30_000 });
  const search = memoryTools(alaya).find((tool) => tool.name === "memory_search");
  await search.execute("warm-up", { query: "warm up" }); // starts the server if needed and learns Alaya's version
  const socket = await measure(home, (query) => search.execute("bench", { query }));
  const cli = await measure(home, (query) => exec(alayaPath, ["--home", home, "recall", query, "--max-results", "8", "--json"]));
  console.log(`${runs} memory_search calls against ${home}:`);
  console.log(row("server's own recall time", socket.server));
  console.log(row("memory_search through the socket (plugin)", socket.walls));
  console.log(row("  added by the plugin", socket.overhead));
  console.log(row("alaya recall --json spawned per call", cli.walls));
  console.log(row("  added by spawning the CLI", cli.overhead));
} finally {
  if (scratch) {
    await exec(alayaPath, ["--home", home, "server", "stop"]).catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}
