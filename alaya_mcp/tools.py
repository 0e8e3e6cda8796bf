"""Alaya's MCP tools: when an agent should call each one, its JSON input schema, and the engine call it makes.

This catalogue does not import the ``mcp`` package (the SDK wiring is :mod:`.mcp_server`), so it stays cheap
to read and to test. Each tool's input has one validator: the recall request is validated by the engine itself
(:func:`alaya_engine.recall.query.build_query`), so an agent gets exactly the CLI's ``bad_query`` messages; the
other tools' arguments are checked here for shape (types, required and unknown fields), which the engine API
trusts its callers with, and the engine checks their values as it does for the CLI.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alaya_engine.foundations.errors import AlayaError
from alaya_engine.foundations.relations import CORE_RELATIONS
from alaya_engine.recall.query import CARD_TYPES, MAX_DEPTH
from alaya_engine.schemas import json_schema

TOP_K_MAX = 500
MAX_RESULTS_MAX = 200
"""The engine's bounds for ``top_k`` and ``max_results`` (tests hold the two in step)."""

INSTRUCTIONS = (
    "Alaya is this agent's long-term memory: knowledge cards (gotcha, decision, pattern, concept) distilled from "
    "earlier sessions and linked by typed relations. Call alaya_recall at the start of every task with its key "
    "concepts, and before risky operations. Until the verdict is 'close to target', call alaya_recall again with its "
    "next_request (the same text, twice as many results); stop when close or after a few rounds. To walk a relation "
    "on purpose, pass from_nodes and relations=[rel] of an explorable entry with the same text as the goal. Use "
    "alaya_trace for a card's original conversation. When a session ends, alaya_ingest it with distill=true."
)


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool over one engine method."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    method: str
    params: Callable[[dict], dict]
    """The tool's arguments → the engine method's params."""
    read_only: bool
    output_schema: dict[str, Any] | None = None
    engine_validates: bool = False
    """True when the engine's own validation gives the CLI's error messages (recall)."""
    failure: Callable[[dict], AlayaError | None] | None = None
    """A result that reports a partial failure (refused files, failed sessions) as the CLI would."""


@dataclass
class ToolOutcome:
    document: dict
    error: AlayaError | None = None


def _strings(description: str) -> dict:
    return {"type": "array", "items": {"type": "string", "minLength": 1}, "description": description}


def _object(properties: dict, required: tuple[str, ...] = ()) -> dict:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


CORE_NAMES = ", ".join(name for name in CORE_RELATIONS if name != "EXTRACTED_FROM")


ENTITY_DESCRIPTION = (
    "Start from the cards that mention this entity (a person, service, host, file, repository...; any case or "
    "spacing, or an alias the sessions gave it), e.g. ops-01. With text or concepts its cards join the cards search "
    "finds; alone, its name is the goal and its cards are where recall starts. A result's entities list the names "
    "to use.")


def recall_request_schema() -> dict:
    """The recall request of ``alaya recall --json`` (stdin), as a JSON Schema; the engine validates it."""
    return _object({
        "text": {"type": "string", "minLength": 1,
                 "description": "Free text, e.g. the user's request. Split into concepts at punctuation and also "
                                "used for full-text search, which finds exact identifiers such as `plugins.allow`."},
        "concepts": _strings('Concepts to start from (structured recall, best for agents), e.g. '
                             '["gateway restart", "telegram"].'),
        "relations": _strings(f"Relations to follow from the cards found; empty follows every relation. Core: "
                              f"{CORE_NAMES}. Custom names (e.g. LED_TO) work too and are matched by meaning; list "
                              "them with alaya_schema."),
        "depth": {"type": "integer", "minimum": 0, "maximum": MAX_DEPTH,
                  "description": "Graph hops from the cards found (default 1; 2 for cause chains)."},
        "from_nodes": _strings("Card ids to continue from: the best card_id of the previous result whose kind is "
                               "card (navigation; a window of raw turns has no relations to follow)."),
        "top_k": {"type": "integer", "minimum": 1, "maximum": TOP_K_MAX,
                  "description": "Cards taken from search as starting points (default: recall.vector_top_k)."},
        "types": {"type": "array", "items": {"enum": list(CARD_TYPES)},
                  "description": "Only cards of these types, e.g. [\"gotcha\", \"decision\"]."},
        "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS_MAX,
                        "description": "Units to return (default: recall.max_results)."},
        "include_sessions": {"type": "boolean",
                             "description": "Whether windows of raw session turns (kind session_turns) compete with "
                                            "cards, so what no card holds is still found (default: "
                                            "recall.include_sessions, true)."},
        "include_memex": {"type": "boolean",
                          "description": "Whether cards imported from a memex vault (source memex) may be returned "
                                         "(default true)."},
        "scope": _strings("Only cards and raw turns of sessions these rules match: agent=NAME, channel=NAME or "
                          "project=NAME (shell patterns; any rule may match), or shared (sessions shared with other "
                          "machines, and those pulled from them), e.g. [\"agent=main\", \"shared\"]."),
        "as_of": {"type": "string", "minLength": 1,
                  "description": "Answer as the memory stood then: an ISO date (its end, UTC) or date-time, e.g. "
                                 "2026-02-01. Nothing said later is returned, and knowledge replaced later counts as "
                                 "current. Left out: now (a replaced card or window then carries superseded_by and "
                                 "ranks right after what replaced it)."},
        "entity": {"type": "string", "minLength": 1, "description": ENTITY_DESCRIPTION},
    })


def _ingest_params(arguments: dict) -> dict:
    path, session = arguments.get("path"), arguments.get("session")
    if (path is None) == (session is None):
        raise AlayaError("bad_request", "alaya_ingest: give either 'path' (a session file or folder) or 'session' "
                                        "(the session itself), not both")
    common = {"replace": bool(arguments.get("replace")), "distill": bool(arguments.get("distill"))}
    if path is not None:
        expanded = os.path.expanduser(path)
        if not os.path.isabs(expanded):
            raise AlayaError("bad_request", f"alaya_ingest: 'path' must be absolute (this server's working "
                                            f"directory is not yours); got {path!r}")
        return {"paths": [expanded], "stdin_b64": None, **common}
    text = session if isinstance(session, str) else json.dumps(session, ensure_ascii=False)
    return {"paths": ["-"], "stdin_b64": base64.b64encode(text.encode("utf-8")).decode("ascii"), **common}


def _refused_files(document: dict) -> AlayaError | None:
    refused = [outcome for outcome in document["files"] if outcome["error"]]
    if not refused:
        return None
    return AlayaError(refused[0]["error"]["code"],
                      "; ".join(f"{outcome['source']}: {outcome['error']['message']}" for outcome in refused))


def _failed_sessions(document: dict) -> AlayaError | None:
    failed = [outcome for outcome in document["sessions"] if outcome["status"] == "failed"]
    if not failed:
        return None
    return AlayaError("distill_failed", "; ".join(f"{o['session_id']}: {o['reason']}" for o in failed))


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="alaya_recall",
        title="Recall from long-term memory",
        description=(
            "Recall what earlier sessions taught: knowledge cards (gotchas, decisions, patterns, concepts) linked by "
            "typed relations. Call it at the start of every task with the task's key concepts, before risky "
            "operations (restarts, migrations, config changes), and when the user asks what was done or decided "
            "before. Give `text` (free text) or `concepts` (+ optional `relations`, `depth`), or `from_nodes` to "
            "continue. The result ranks cards by h_distance (lower is closer) and lists `explorable` relations "
            "beyond them. Until the verdict is 'close to target', call again with `next_request` (the same `text`, "
            "twice as many results: at equal tokens reading further down finds more than a hop); stop when close or "
            "after a few rounds. To follow a relation on purpose, give an explorable entry's from_nodes and "
            "relations=[its rel] with the same `text` as the goal. A card's `facts` give the attributes it states "
            "as data (subject, attribute, value, valid_from in ms). `entities` lists the people, services, hosts, "
            "files... the returned cards mention; pass one as `entity` to recall everything about it."
        ),
        input_schema=recall_request_schema(),
        method="recall",
        params=lambda arguments: {"request": arguments},
        read_only=True,
        output_schema=json_schema("recall"),
        engine_validates=True,
    ),
    ToolSpec(
        name="alaya_trace",
        title="Trace a card to its source",
        description=(
            "Trace a card (a card_id from alaya_recall) back to where it came from: its source sessions with "
            "times, the exact turns it was distilled from, and the path of the full session file. Call it when "
            "you need the original conversation or evidence behind a card before acting on it."
        ),
        input_schema=_object({"card_id": {"type": "string", "minLength": 1,
                                          "description": "A card id, e.g. card-3ef7d74365696dbe."}}, ("card_id",)),
        method="trace",
        params=lambda arguments: {"card_id": arguments["card_id"]},
        read_only=True,
    ),
    ToolSpec(
        name="alaya_schema",
        title="Relation and card types",
        description=(
            "The memory's data model: relation types with how often each is used (core ones and custom ones that "
            "emerged, with hints) and the card types. Call it before a structured alaya_recall when you are "
            "unsure which relation names exist. With neither flag set, both are returned."
        ),
        input_schema=_object({
            "relations": {"type": "boolean", "description": "Relation types with their usage."},
            "node_types": {"type": "boolean", "description": "Card types and the session count."},
        }),
        method="schema",
        params=lambda arguments: {"relations": bool(arguments.get("relations")),
                                  "node_types": bool(arguments.get("node_types"))},
        read_only=True,
    ),
    ToolSpec(
        name="alaya_link",
        title="Link two cards",
        description=(
            "Record a relation you have established between two cards, e.g. that one DEPENDS_ON the other. Use a "
            f"core relation ({CORE_NAMES}) or a custom UPPER_SNAKE_CASE name, and say why in `reason`. SIMILAR_TO "
            "and CONTRADICTS are stored in both directions, SUPERSEDES with SUPERSEDED_BY back. A name the store does "
            "not know yet is refused with the "
            "nearest known one (usually a typo); set new_relation=true to create it."
        ),
        input_schema=_object({
            "source": {"type": "string", "minLength": 1, "description": "Card id the edge starts from."},
            "target": {"type": "string", "minLength": 1, "description": "Card id the edge points to."},
            "relation": {"type": "string", "minLength": 1, "default": "RELATES_TO",
                         "description": "Relation type (default RELATES_TO)."},
            "reason": {"type": "string", "default": "", "description": "Why the two cards are related."},
            "weight": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0, "description": "Strength, 0–1."},
            "new_relation": {"type": "boolean", "default": False,
                             "description": "Create the relation if the store does not know it yet."},
        }, ("source", "target")),
        method="link",
        params=lambda arguments: {"source": arguments["source"], "target": arguments["target"],
                                  "relation": arguments.get("relation", "RELATES_TO"),
                                  "reason": arguments.get("reason", ""), "weight": arguments.get("weight", 1.0),
                                  "new_relation": arguments.get("new_relation", False)},
        read_only=False,
    ),
    ToolSpec(
        name="alaya_ingest",
        title="Store a session",
        description=(
            "Store a session in long-term memory. Call it when a session ends. Give `path` (an absolute path to "
            "a session JSON file, an OpenClaw .jsonl transcript, or a folder of them) or `session` (the session "
            "itself: a session object in Alaya's session JSON format, or the text of a session file). "
            "Set distill=true to turn it into knowledge cards at once. Storing the same session again changes "
            "nothing; a session whose content changed needs replace=true."
        ),
        input_schema=_object({
            "path": {"type": "string", "minLength": 1, "description": "Absolute path of a session file or folder."},
            "session": {"type": ["object", "string"],
                        "description": 'Inline session: {"id", "timestamp", "turns": [{"role", "content"}], ...} '
                                       "or the text of a session JSON / OpenClaw JSONL file."},
            "replace": {"type": "boolean", "default": False,
                        "description": "Overwrite a stored session whose content changed."},
            "distill": {"type": "boolean", "default": False, "description": "Distill what was stored."},
        }),
        method="ingest",
        params=_ingest_params,
        read_only=False,
        failure=_refused_files,
    ),
    ToolSpec(
        name="alaya_distill",
        title="Distill sessions into cards",
        description=(
            "Turn stored sessions into knowledge cards and typed links. Call it after alaya_ingest (unless that "
            "had distill=true); with no `sessions` it distills every session not yet distilled. `dry_run` shows "
            "what would be created without writing; `force` replaces those sessions' earlier cards."
        ),
        input_schema=_object({
            "sessions": _strings("Session ids to distill (default: every session not yet distilled)."),
            "force": {"type": "boolean", "default": False,
                      "description": "Distill again, replacing exactly those sessions' cards and links."},
            "dry_run": {"type": "boolean", "default": False,
                        "description": "Show what it would create; write nothing."},
        }),
        method="distill",
        params=lambda arguments: {"sessions": arguments.get("sessions", []), "force": bool(arguments.get("force")),
                                  "dry_run": bool(arguments.get("dry_run"))},
        read_only=False,
        failure=_failed_sessions,
    ),
    ToolSpec(
        name="alaya_status",
        title="Memory status",
        description=(
            "Counts per layer: stored sessions, cards per type, links per relation, vectors per tier, sizes on "
            "disk. Call it to check that the memory is set up and filled, e.g. when alaya_recall finds nothing."
        ),
        input_schema=_object({}),
        method="status",
        params=lambda arguments: {},
        read_only=True,
    ),
)
TOOLS_BY_NAME = {spec.name: spec for spec in TOOLS}


SHAPE_RULES = frozenset({"type", "required", "additionalProperties"})
"""What the schema check enforces; value rules (ranges, empty strings, unknown ids) are the engine's, so their
codes and messages are the CLI's."""


def check_arguments(spec: ToolSpec, arguments: dict) -> None:
    """Refuse arguments of the wrong shape for the tool's input schema, naming the field."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    errors = Draft202012Validator(spec.input_schema).iter_errors(arguments)
    error = best_match(error for error in errors if error.validator in SHAPE_RULES)
    if error is not None:
        where = "".join(f"'{part}': " for part in error.absolute_path)
        raise AlayaError("bad_request", f"{spec.name}: {where}{error.message}")


def run_tool(call: Callable[[str, dict], dict], name: str, arguments: dict | None) -> ToolOutcome:
    """Validate, call the engine method through ``call`` and report a partial failure the CLI's way."""
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        raise AlayaError("unknown_tool", f"no tool named '{name}'; known: {', '.join(TOOLS_BY_NAME)}")
    arguments = arguments or {}
    if not spec.engine_validates:
        check_arguments(spec, arguments)
    document = call(spec.method, spec.params(arguments))
    return ToolOutcome(document, spec.failure(document) if spec.failure else None)
