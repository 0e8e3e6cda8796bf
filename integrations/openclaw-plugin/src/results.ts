/** Alaya's recall documents in the shape OpenClaw's memory tools use, and the paths `memory_get` reads. */

export interface RecallNode {
  card_id: string;
  title: string;
  content: string;
  score: number;
  type: string;
  source: string;
  kind?: string;
  session_id?: string | null;
  turn_range?: [number, number] | null;
  /** What a card states as data; `valid_from` in ms since the epoch; empty for windows. */
  facts?: { subject: string; attribute: string; value: string; valid_from: number }[];
}

export interface RecallDocument {
  nodes: RecallNode[];
  verdict: string;
  next_request: Record<string, unknown> | null;
  reason: string | null;
  timings_ms: Record<string, number>;
}

export type HitSource = "card" | "session" | "memex";

export interface SearchHit {
  /** What memory_get takes: `alaya://card/<card id>` or `alaya://session/<session id>`. */
  path: string;
  /** 1-based lines of a card's content; 1-based turn positions of a session window. */
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
  source: HitSource;
  id: string;
  title: string;
  type: string;
  citation: string;
}

export const SNIPPET_CHARS = 700;
const CARD_PREFIX = "alaya://card/";
const SESSION_PREFIX = "alaya://session/";
const WINDOW_ID = /^(.+):turns:(\d+)-(\d+)$/;

export function cardPath(cardId: string): string {
  return CARD_PREFIX + cardId;
}

export function sessionPath(sessionId: string): string {
  return SESSION_PREFIX + sessionId;
}

export function hitSource(node: RecallNode): HitSource {
  if (node.kind === "session_turns") return "session";
  return node.source === "memex" ? "memex" : "card";
}

export function toHit(node: RecallNode): SearchHit {
  const source = hitSource(node);
  let path: string;
  let startLine: number;
  let endLine: number;
  if (source === "session" && node.session_id && node.turn_range) {
    path = sessionPath(node.session_id);
    [startLine, endLine] = [node.turn_range[0] + 1, node.turn_range[1] + 1];
  } else {
    path = cardPath(node.card_id);
    [startLine, endLine] = [1, Math.max(1, node.content.split("\n").length)];
  }
  return {
    path, startLine, endLine, score: node.score, snippet: clip(node.content, SNIPPET_CHARS), source,
    id: node.card_id, title: node.title, type: node.type,
    citation: startLine === endLine ? `${path}#L${startLine}` : `${path}#L${startLine}-L${endLine}`,
  };
}

export function clip(text: string, limit: number): string {
  const flat = text.trim();
  return flat.length <= limit ? flat : flat.slice(0, Math.max(0, limit - 1)).trimEnd() + "…";
}

export type MemoryRef =
  | { kind: "card"; id: string }
  | { kind: "session"; sessionId: string; first?: number; last?: number };

/** A memory_get path: `alaya://card/<id>`, `alaya://session/<id>` (optionally `#L3-L5`, 1-based turns), a bare
 * card id, or a window id from alaya_recall (`<session>:turns:<first>-<last>`, zero-based). */
export function parseMemoryPath(raw: string): MemoryRef | null {
  const value = raw.trim();
  if (value.startsWith(CARD_PREFIX)) {
    const id = value.slice(CARD_PREFIX.length).split("#")[0];
    return id ? { kind: "card", id } : null;
  }
  if (value.startsWith(SESSION_PREFIX)) {
    const [sessionId, anchor] = value.slice(SESSION_PREFIX.length).split("#");
    if (!sessionId) return null;
    const lines = /^L(\d+)(?:-L(\d+))?$/.exec(anchor ?? "");
    if (!lines) return { kind: "session", sessionId };
    const first = Number(lines[1]) - 1;
    return { kind: "session", sessionId, first, last: lines[2] ? Number(lines[2]) - 1 : first };
  }
  const window = WINDOW_ID.exec(value);
  if (window) return { kind: "session", sessionId: window[1], first: Number(window[2]), last: Number(window[3]) };
  return /^[\w.-]+$/.test(value) ? { kind: "card", id: value } : null;
}

/** Rough token count, as Alaya counts them (alaya_engine/foundations/domain.py estimate_tokens): a CJK character is one token,
 * other text about four characters a token. */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0x3400 && code <= 0x9fff) cjk += 1;
  }
  return cjk + Math.floor(([...text].length - cjk) / 4);
}
