"""A recall request, from any of the three ways in (free text, structured flags, stdin JSON).

Free text becomes concepts like this: the whole text is always one concept,
and when punctuation (``, ， 、 ; ； 。 ? ？ ! ！ /`` or a line break) splits it
into two or more parts of at least two characters, each part is a concept
too (at most :data:`MAX_CONCEPTS`). A node's concept distance is to its
*nearest* concept, so a question and its parts each get their chance. The
whole text also drives full-text search.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ..foundations.domain import CARD_TYPES
from ..foundations.errors import AlayaError
from ..foundations.json_input import has_lone_surrogate
from ..foundations.relations import normalise_relation
from ..foundations.scope import parse_rule

MAX_DEPTH = 3
MAX_CONCEPTS = 8
MAX_TEXT_CHARS = 4000
"""Per text or concept: embedding costs ~30 µs a character, so a pasted document would hold the store for minutes."""
MAX_RESULTS = 200
"""The most units one recall returns."""
MAX_ITEMS = {"concepts": 32, "relations": 32, "from_nodes": 200, "types": len(CARD_TYPES), "scope": 32}
_SPLIT = re.compile(r"[,，、;；。?？!！/\n]+")
_KEYS = {"concepts", "relations", "depth", "from_nodes", "top_k", "types", "max_results", "text", "include_sessions",
         "include_memex", "scope", "as_of", "entity"}


@dataclass
class RecallQuery:
    concepts: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    """Normalised names; empty means every relation."""
    depth: int = 1
    from_nodes: list[str] = field(default_factory=list)
    top_k: int = 20
    types: list[str] = field(default_factory=list)
    max_results: int = 10
    text: str | None = None
    """The free text, when recall was asked in words; used for full-text search."""
    include_sessions: bool = True
    """Whether windows of raw session turns compete with cards for the result (default ``recall.include_sessions``)."""
    include_memex: bool = True
    """Whether cards imported from a memex vault (``alaya import-memex``, source ``memex``) may be returned."""
    scope: list[str] = field(default_factory=list)
    """Only cards and raw turns of the sessions these rules match (``agent=X``, ``project=Y``; see
    ``foundations/scope.py``); empty: every session."""
    as_of: int | None = None
    """Answer as the memory stood at this moment (ms; a date means its end, UTC): nothing said later, and no
    replacement said later. None: now."""
    entity: str | None = None
    """Start from the cards that mention this entity (a name, any case or spacing, or an alias). With free text
    or concepts they join the cards search found; alone, its name is the goal and no search runs."""

    @property
    def entity_only(self) -> bool:
        """An entity and nothing else to start from: its cards are all the starting points."""
        return self.entity is not None and self.text is None and not self.from_nodes and self.concepts == [self.entity]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def whole_text(text: str) -> str:
    """Free text as its first concept: whitespace runs made single spaces."""
    return " ".join(text.split())


def split_free_text(text: str) -> list[str]:
    whole = whole_text(text)
    parts = [part.strip() for part in _SPLIT.split(text) if len(part.strip()) >= 2]
    concepts = [whole] + (parts if len(parts) > 1 else [])
    return list(dict.fromkeys(concepts))[:MAX_CONCEPTS]


def bad_query(message: str) -> AlayaError:
    return AlayaError("bad_query", message)


def build_query(document: Any, defaults: dict[str, Any]) -> RecallQuery:
    """Validate a JSON-shaped request; every rule names the field and the allowed values."""
    if not isinstance(document, dict):
        raise bad_query("the recall request must be a JSON object with 'concepts' and/or 'from_nodes'")
    unknown = sorted(set(document) - _KEYS)
    if unknown:
        raise bad_query(f"unknown field '{unknown[0]}'; allowed: {', '.join(sorted(_KEYS))}")
    text = document.get("text")
    if text is not None and (not isinstance(text, str) or not text.strip()):
        raise bad_query("'text' must be a non-empty string")
    if text is not None:
        _check_text(text, "'text'")
    concepts = _strings(document, "concepts")
    if text and not concepts:
        concepts = split_free_text(text)
    from_nodes = _strings(document, "from_nodes")
    entity = document.get("entity")
    if entity is not None:
        if not isinstance(entity, str) or not entity.strip():
            raise bad_query("'entity' must be a non-empty string: an entity's name")
        _check_text(entity, "'entity'")
        entity = " ".join(entity.split())
        if from_nodes:
            raise bad_query("give 'entity' or 'from_nodes', not both: each says where recall starts")
        if not concepts:
            concepts = [entity]
    if not concepts and not from_nodes:
        raise bad_query("nothing to recall: give free text, 'concepts', 'from_nodes' or 'entity'")
    types = _strings(document, "types")
    for card_type in types:
        if card_type not in CARD_TYPES:
            raise bad_query(f"unknown type '{card_type}'; allowed: {', '.join(CARD_TYPES)}")
    include_sessions = document.get("include_sessions", defaults["include_sessions"])
    if not isinstance(include_sessions, bool):
        raise bad_query("'include_sessions' must be true or false")
    include_memex = document.get("include_memex", True)
    if not isinstance(include_memex, bool):
        raise bad_query("'include_memex' must be true or false")
    scope = _strings(document, "scope")
    for rule in scope:
        parse_rule(rule, "'scope'", recall=True)
    default_depth = 1 if from_nodes else defaults["graph_expand_depth"]
    return RecallQuery(
        concepts=concepts,
        relations=[normalise_relation(name) for name in _strings(document, "relations")],
        depth=_integer(document, "depth", default_depth, 0, MAX_DEPTH),
        from_nodes=from_nodes,
        top_k=_integer(document, "top_k", defaults["vector_top_k"], 1, 500),
        types=types,
        max_results=_integer(document, "max_results", defaults["max_results"], 1, MAX_RESULTS),
        text=text.strip() if text else None,
        include_sessions=include_sessions,
        include_memex=include_memex,
        scope=scope,
        as_of=_moment(document.get("as_of")),
        entity=entity,
    )


def _moment(value: Any) -> int | None:
    """``as_of``: an ISO date (its last millisecond, UTC) or date-time (UTC unless it names a zone), or ms since
    the epoch (what a result's ``query`` and ``next_request`` carry), as ms."""
    from datetime import datetime, time, timezone

    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if not isinstance(value, str):
        raise bad_query("'as_of' must be an ISO date or date-time, e.g. 2026-02-01 or 2026-02-01T09:30")
    try:
        if len(value.strip()) == 10:
            moment = datetime.combine(datetime.fromisoformat(value.strip()).date(), time.max)
        else:
            moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise bad_query(f"'as_of' is {value!r}; give an ISO date or date-time, e.g. 2026-02-01") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def _strings(document: dict, key: str) -> list[str]:
    value = document.get(key, [])
    if isinstance(value, str):
        value = [part for part in (piece.strip() for piece in value.split(",")) if part]
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise bad_query(f"'{key}' must be a list of non-empty strings")
    if len(value) > MAX_ITEMS[key]:
        raise bad_query(f"'{key}' has {len(value)} items; at most {MAX_ITEMS[key]}")
    for item in value:
        _check_text(item, f"an item of '{key}'")
    return [item.strip() for item in value]


def _check_text(text: str, what: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise bad_query(f"{what} is {len(text)} characters; at most {MAX_TEXT_CHARS}: recall takes a question or "
                        "key phrases, not a document")
    if has_lone_surrogate(text):
        raise bad_query(f"{what} is not valid UTF-8 text")


def _integer(document: dict, key: str, default: int, low: int, high: int) -> int:
    value = document.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_query(f"'{key}' must be an integer from {low} to {high}")
    if not low <= value <= high:
        raise bad_query(f"'{key}' is {value}; it must be from {low} to {high}")
    return value
