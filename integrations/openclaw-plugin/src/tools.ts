/** The agent's tools: OpenClaw's memory_search / memory_get served by Alaya, and Alaya's own navigation tools
 * (their wording follows alaya_mcp/tools.py, the MCP face of the same calls). */

import type { AlayaClient } from "./alaya.js";
import { AlayaError } from "./alaya.js";
import { cardPath, parseMemoryPath, sessionPath, toHit, type RecallDocument } from "./results.js";
import { withinScope } from "./scope.js";

export interface ToolResult {
  content: { type: "text"; text: string }[];
  details: unknown;
}

export interface MemoryTool {
  name: string;
  label: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(toolCallId: string, params: Record<string, unknown>): Promise<ToolResult>;
}

/** As OpenClaw's own tools answer: the document as JSON text, and as structured details. */
export function jsonResult(payload: unknown): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload };
}

const DEFAULT_SEARCH_RESULTS = 8;
const DEFAULT_SESSION_TURNS = 20;
const CORE_RELATIONS = "CAUSES, CAUSED_BY, DEPENDS_ON, SIMILAR_TO, CONTRADICTS, SUPERSEDES, SUPERSEDED_BY, TEMPORAL_NEXT";

const strings = (description: string) => ({ type: "array", items: { type: "string", minLength: 1 }, description });

/** Alaya's recall request (alaya_mcp/tools.py recall_request_schema); the engine validates it. */
export const RECALL_REQUEST_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    text: { type: "string", minLength: 1, description: "Free text, e.g. the user's request. Split into concepts at " +
      "punctuation and also used for full-text search, which finds exact identifiers such as `plugins.allow`." },
    concepts: strings('Concepts to start from (structured recall, best for agents), e.g. ["gateway restart", "telegram"].'),
    relations: strings(`Relations to follow from the cards found; empty follows every relation. Core: ${CORE_RELATIONS}. ` +
      "Custom names (e.g. LED_TO) work too and are matched by meaning."),
    depth: { type: "integer", minimum: 0, maximum: 3, description: "Graph hops from the cards found (default 1; 2 for cause chains)." },
    from_nodes: strings("Card ids to continue from: the best card_id of the previous result whose kind is card (navigation; " +
      "a window of raw turns has no relations to follow)."),
    top_k: { type: "integer", minimum: 1, maximum: 500, description: "Cards taken from search as starting points." },
    types: { type: "array", items: { enum: ["concept", "pattern", "gotcha", "decision"] },
      description: 'Only cards of these types, e.g. ["gotcha", "decision"].' },
    max_results: { type: "integer", minimum: 1, maximum: 200, description: "Units to return." },
    include_sessions: { type: "boolean", description: "Whether windows of raw session turns (kind session_turns) compete " +
      "with cards, so what no card holds is still found (default true)." },
    include_memex: { type: "boolean", description: "Whether cards imported from a memex vault (source memex) may be " +
      "returned (default true)." },
    scope: strings('Only cards and raw turns of sessions these rules match: agent=NAME, channel=NAME or project=NAME ' +
      '(shell patterns; any rule may match), or shared (sessions shared with other machines and pulled from them), ' +
      'e.g. ["agent=main", "shared"].'),
    as_of: { type: "string", minLength: 1, description: "Answer as the memory stood then: an ISO date (its end, UTC) or " +
      "date-time, e.g. 2026-02-01. Left out: now (a replaced card or window then carries superseded_by and ranks right " +
      "after what replaced it)." },
    entity: { type: "string", minLength: 1, description: "Start from the cards that mention this entity (a person, " +
      "service, host, file, repository...; any case or spacing, or an alias the sessions gave it), e.g. ops-01. With " +
      "text or concepts its cards join the cards search finds; alone, its name is the goal and its cards are where " +
      "recall starts. A result's entities list the names to use." },
  },
};

/** The tools of one agent; `scope` (per-agent isolation, see scope.ts) keeps its searches and recalls to its own
 * sessions and the shared ones. */
export function memoryTools(alaya: AlayaClient, scope?: string[]): MemoryTool[] {
  return [
    {
      name: "memory_search",
      label: "Memory Search",
      description: "Search long-term memory (Alaya) before answering questions about prior work, decisions, dates, " +
        "people, preferences or todos, and before risky operations (restarts, migrations, config changes). Hits are " +
        "knowledge cards distilled from earlier sessions (source card, or memex for imported notes) and windows of raw " +
        "session turns (source session), best first; read one in full with memory_get and its path. For cause chains " +
        "and related cards, navigate with alaya_recall.",
      parameters: {
        type: "object",
        additionalProperties: false,
        required: ["query"],
        properties: {
          query: { type: "string", minLength: 1, description: "What to look for, e.g. the user's question." },
          maxResults: { type: "integer", minimum: 1, maximum: 50, description: `Hits to return (default ${DEFAULT_SEARCH_RESULTS}).` },
          minScore: { type: "number", description: "Leave out hits scoring below this (score = 1 - h_distance)." },
          corpus: { type: "string", enum: ["memory", "sessions", "all"],
            description: "memory: cards only; sessions: raw session turns only; all (default): both." },
          includeMemex: { type: "boolean", description: "Whether imported memex notes may be returned (default true)." },
        },
      },
      async execute(_id, params) {
        const corpus = params.corpus ?? "all";
        const request: Record<string, unknown> = {
          text: String(params.query), max_results: Number(params.maxResults ?? DEFAULT_SEARCH_RESULTS),
          include_sessions: corpus !== "memory",
        };
        if (params.includeMemex === false) request.include_memex = false;
        const recall = await alaya.call<RecallDocument>("recall", { request: withinScope(request, scope) });
        const minScore = typeof params.minScore === "number" ? params.minScore : -Infinity;
        const results = recall.nodes.map(toHit)
          .filter((hit) => hit.score >= minScore && (corpus !== "sessions" || hit.source === "session"));
        return jsonResult({
          results, provider: "alaya", verdict: recall.verdict, ...(recall.reason ? { reason: recall.reason } : {}),
          ...(recall.next_request ? { next_request: recall.next_request } : {}), timings_ms: recall.timings_ms,
        });
      },
    },
    {
      name: "memory_get",
      label: "Memory Get",
      description: "Read one memory_search hit in full by its path: a card (alaya://card/<id>: its title, content, tags " +
        "and relations) or a session's raw turns (alaya://session/<id>; `from` is the first turn, 1-based, `lines` how " +
        `many turns, default ${DEFAULT_SESSION_TURNS}). A hit's startLine is the \`from\` to use. Card ids and window ids ` +
        "from alaya_recall work as paths too.",
      parameters: {
        type: "object",
        additionalProperties: false,
        required: ["path"],
        properties: {
          path: { type: "string", minLength: 1, description: "A path from memory_search, e.g. alaya://card/card-3ef7d74365696dbe." },
          from: { type: "integer", minimum: 1, description: "First line of a card, or first turn of a session (1-based)." },
          lines: { type: "integer", minimum: 1, maximum: 200, description: "How many lines (card) or turns (session)." },
        },
      },
      async execute(_id, params) {
        const raw = String(params.path);
        const ref = parseMemoryPath(raw);
        if (!ref) throw new AlayaError("bad_path", `'${raw}' is not an Alaya memory path; use a path from memory_search ` +
          "(alaya://card/<id> or alaya://session/<id>)");
        const from = typeof params.from === "number" ? params.from : undefined;
        const lines = typeof params.lines === "number" ? params.lines : undefined;
        if (ref.kind === "card") return jsonResult(await readCard(alaya, ref.id, from, lines));
        const first = from !== undefined ? from - 1 : ref.first ?? 0;
        const count = lines ?? (ref.last !== undefined && from === undefined ? ref.last - first + 1 : DEFAULT_SESSION_TURNS);
        return jsonResult(await readSession(alaya, ref.sessionId, first, count));
      },
    },
    {
      name: "alaya_recall",
      label: "Alaya Recall",
      description: "Recall what earlier sessions taught: knowledge cards (gotchas, decisions, patterns, concepts) linked by " +
        "typed relations. Call it at the start of every task with the task's key concepts, before risky operations " +
        "(restarts, migrations, config changes), and when the user asks what was done or decided before. Give `text` " +
        "(free text) or `concepts` (+ optional `relations`, `depth`), or `from_nodes` to continue. The result ranks " +
        "cards by h_distance (lower is closer) and lists `explorable` relations beyond them. Until the verdict is " +
        "'close to target', call again with `next_request` (the same `text`, twice as many results: at equal tokens " +
        "reading further down finds more than a hop); stop when close or after a few rounds. To follow a relation on " +
        "purpose, give an explorable entry's from_nodes and relations=[its rel] with the same `text` as the goal.",
      parameters: RECALL_REQUEST_SCHEMA,
      async execute(_id, params) {
        return jsonResult(await alaya.call("recall", { request: withinScope(params, scope) }));
      },
    },
    {
      name: "alaya_trace",
      label: "Alaya Trace",
      description: "Trace a card (a card_id from alaya_recall or memory_search) back to where it came from: its source " +
        "sessions with times, the exact turns it was distilled from, and the path of the full session file. Call it " +
        "when you need the original conversation or evidence behind a card before acting on it.",
      parameters: {
        type: "object",
        additionalProperties: false,
        required: ["card_id"],
        properties: { card_id: { type: "string", minLength: 1, description: "A card id, e.g. card-3ef7d74365696dbe." } },
      },
      async execute(_id, params) {
        return jsonResult(await alaya.call("trace", { card_id: String(params.card_id) }));
      },
    },
    {
      name: "alaya_link",
      label: "Alaya Link",
      description: "Record a relation you have established between two cards, e.g. that one DEPENDS_ON the other. Use a " +
        `core relation (${CORE_RELATIONS}) or a custom UPPER_SNAKE_CASE name, and say why in \`reason\`. SIMILAR_TO and ` +
        "CONTRADICTS are stored in both directions. A name the store does not know yet is refused with the nearest " +
        "known one (usually a typo); set new_relation=true to create it.",
      parameters: {
        type: "object",
        additionalProperties: false,
        required: ["source", "target"],
        properties: {
          source: { type: "string", minLength: 1, description: "Card id the edge starts from." },
          target: { type: "string", minLength: 1, description: "Card id the edge points to." },
          relation: { type: "string", minLength: 1, description: "Relation type (default RELATES_TO)." },
          reason: { type: "string", description: "Why the two cards are related." },
          weight: { type: "number", minimum: 0, maximum: 1, description: "Strength, 0-1 (default 1)." },
          new_relation: { type: "boolean", description: "Create the relation if the store does not know it yet." },
        },
      },
      async execute(_id, params) {
        return jsonResult(await alaya.call("link", {
          source: params.source, target: params.target, relation: params.relation ?? "RELATES_TO",
          reason: params.reason ?? "", weight: params.weight ?? 1.0, new_relation: params.new_relation === true,
        }));
      },
    },
  ];
}

async function readCard(alaya: AlayaClient, id: string, from?: number, lines?: number) {
  const document = await alaya.call("card", { card_id: id });
  const card = document.card;
  const content: string[] = String(card.content ?? "").split("\n");
  const first = Math.max(1, from ?? 1);
  const taken = content.slice(first - 1, lines ? first - 1 + lines : undefined);
  type Edge = { relation: string; card_id: string; title: string };
  const relation = (edge: Edge, arrow: string) => `${arrow} ${edge.relation} ${edge.title} (${cardPath(edge.card_id)})`;
  const related = [...(document.outgoing ?? []).map((edge: Edge) => relation(edge, "→")),
    ...(document.incoming ?? []).map((edge: Edge) => relation(edge, "←"))];
  return {
    path: cardPath(card.id), status: "ok", id: card.id, title: card.title, type: card.type, source: card.source,
    tags: card.tags ?? [], from: first, lines: taken.length, totalLines: content.length, text: taken.join("\n"),
    related, source_sessions: card.source_sessions ?? [],
  };
}

async function readSession(alaya: AlayaClient, sessionId: string, first: number, count: number) {
  const document = await alaya.call("session.turns", { session_id: sessionId, first, count });
  const turns = document.turns as { index: number; role: string; content: string; tool_name?: string }[];
  const text = turns.map((turn) => `[${turn.index + 1}] ${turn.tool_name ? `${turn.role} (${turn.tool_name})` : turn.role}: ` +
    turn.content).join("\n");
  return {
    path: sessionPath(sessionId), status: "ok", session_id: sessionId, from: document.first + 1, lines: turns.length,
    turnCount: document.turn_count, more: document.more, ...(document.more ? { nextFrom: document.last + 2 } : {}),
    text, file: document.path,
  };
}
