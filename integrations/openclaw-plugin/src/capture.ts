/** Auto-capture: an agent run's messages (the `agent_end` hook) as a session in Alaya's session JSON format, ingested
 * with `replace` so that each run stores the session as it now stands. The session keeps OpenClaw's session id, the
 * id `alaya sync openclaw` gives the same conversation, so the two never store it twice. */

import type { PluginLogger } from "openclaw/plugin-sdk/plugin-entry";
import type { AlayaClient } from "./alaya.js";

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const ROLES: Record<string, string> = { user: "user", assistant: "assistant", toolResult: "tool", tool: "tool", system: "system" };

interface Turn {
  role: string;
  content: string;
  timestamp?: number;
  tool_calls?: { name: unknown; arguments: unknown }[];
  tool_name?: string;
}

export interface SessionContext {
  sessionId?: string;
  agentId?: string;
  channel?: string;
}

/** The session document, or null when there is nothing to store (no usable id, or no turn with content). */
export function sessionDocument(messages: unknown[], context: SessionContext): Record<string, unknown> | null {
  if (!context.sessionId || !SAFE_ID.test(context.sessionId)) return null;
  const turns = messages.map(toTurn).filter((turn): turn is Turn => turn !== null);
  if (!turns.some((turn) => turn.content.trim() || turn.tool_calls)) return null;
  const timestamp = turns.find((turn) => turn.timestamp !== undefined)?.timestamp ?? Date.now();
  return {
    id: context.sessionId, timestamp, channel: context.channel || "openclaw", agent: context.agentId || "main",
    turns, metadata: { format: "openclaw-plugin" },
  };
}

function toTurn(message: unknown): Turn | null {
  if (!message || typeof message !== "object") return null;
  const record = message as Record<string, unknown>;
  const role = typeof record.role === "string" ? ROLES[record.role] : undefined;
  if (!role) return null;
  const texts: string[] = [];
  const calls: { name: unknown; arguments: unknown }[] = [];
  if (typeof record.content === "string") texts.push(record.content);
  else if (Array.isArray(record.content)) {
    for (const part of record.content as Record<string, unknown>[]) {
      if (part?.type === "text" && typeof part.text === "string") texts.push(part.text);
      else if (part?.type === "toolCall") calls.push({ name: part.name, arguments: part.arguments });
      else if (part?.type === "image") texts.push("[image]");
    }
  }
  const turn: Turn = { role, content: texts.join("\n") };
  if (typeof record.timestamp === "number" && Number.isFinite(record.timestamp) && record.timestamp > 0) {
    turn.timestamp = Math.round(record.timestamp);
  }
  if (calls.length) turn.tool_calls = calls;
  if (role === "tool" && typeof record.toolName === "string") turn.tool_name = record.toolName;
  return turn;
}

/** Hands sessions to Alaya in the background: never awaited by the agent, failures only logged. A session that
 * ends again while its previous version is still being stored is stored once more afterwards, latest version only. */
export class Capturer {
  private readonly waiting = new Map<string, Record<string, unknown>>();
  private readonly running = new Map<string, Promise<void>>();
  /** Per OpenClaw session: the part it is stored as now (1: under its own id) and that part's turn count. */
  private readonly parts = new Map<string, { part: number; turns: number }>();

  constructor(private readonly alaya: AlayaClient, private readonly logger: PluginLogger, private readonly distill: boolean) {}

  /** Store `document` (from sessionDocument). A session that comes back with fewer turns than last time was
   * compacted: the version stored keeps its turns, and the conversation goes on as `<id>.part2`, `.part3`, … */
  capture(document: Record<string, unknown>): void {
    const turns = (document.turns as unknown[]).length;
    const state = this.parts.get(String(document.id)) ?? { part: 1, turns: 0 };
    if (turns < state.turns) state.part += 1;
    state.turns = turns;
    this.parts.set(String(document.id), state);
    const id = state.part > 1 ? `${document.id}.part${state.part}` : String(document.id);
    this.waiting.set(id, { ...document, id });
    if (!this.running.has(id)) this.running.set(id, this.drain(id));
  }

  /** Wait until every capture asked for so far has finished (or failed). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  private async drain(id: string): Promise<void> {
    try {
      for (let document = this.waiting.get(id); document; document = this.waiting.get(id)) {
        this.waiting.delete(id);
        await this.store(document);
      }
    } finally {
      this.running.delete(id);
    }
  }

  private async store(document: Record<string, unknown>): Promise<void> {
    try {
      const stdin = Buffer.from(JSON.stringify(document), "utf8").toString("base64");
      const report = await this.alaya.call("ingest", { paths: ["-"], stdin_b64: stdin, replace: true, distill: this.distill });
      const refused = (report.files ?? []).find((file: { error?: { message: string } }) => file.error);
      if (refused) this.logger.warn(`alaya-memory: session ${document.id} was not stored: ${refused.error.message}`);
      else this.logger.debug?.(`alaya-memory: stored session ${document.id} (${report.files?.[0]?.status ?? "?"})`);
    } catch (error) {
      this.logger.warn(`alaya-memory: storing session ${document.id} failed: ${(error as Error).message}`);
    }
  }
}
