"""Relation names: the core set with their definitions, and name normalisation.

Core relations have their own rel tables in the graph; every other name lives
in the ``CUSTOM`` table under its normalised UPPER_SNAKE_CASE ``type``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .domain import Link

CORE_RELATIONS: dict[str, str] = {
    "CAUSES": "A causes B: A is the reason B happens (e.g. a missing memory limit causes an OOM kill).",
    "CAUSED_BY": "A is caused by B: B is the reason A happened (e.g. message loss caused by a config omission).",
    "DEPENDS_ON": "A depends on B: A needs B to work or to be done first (e.g. deployment depends on the build script).",
    "SIMILAR_TO": "A is similar to B: the same kind of problem, pattern or idea (e.g. two type errors).",
    "CONTRADICTS": "A contradicts B: A replaces, conflicts with or invalidates B (e.g. old approach vs new approach).",
    "TEMPORAL_NEXT": "A is followed by B: B came after A in time (e.g. decision B after decision A).",
    "EXTRACTED_FROM": "Card A was extracted from session B: where a piece of knowledge came from.",
}

CORE_PHRASES: dict[str, str] = {
    "CAUSES": "causes, leads to, results in, triggers, 导致, 引起",
    "CAUSED_BY": "caused by, because of, due to, results from, 由于, 因为",
    "DEPENDS_ON": "depends on, requires, needs, relies on, 依赖, 需要",
    "SIMILAR_TO": "similar to, resembles, same kind as, 类似, 相似",
    "CONTRADICTS": "contradicts, conflicts with, replaces, supersedes, 矛盾, 取代",
    "TEMPORAL_NEXT": "followed by, then, next, afterwards, 之后, 接着",
    "EXTRACTED_FROM": "extracted from, comes from, source, 来自, 提取自",
}
"""What each core relation's embedding is made from: short bilingual synonyms.

Measured with the default model, long definitions diluted the match (``led to`` scored 0.16 against the
CAUSES definition); synonym phrases rank custom names next to the core relation they mean.
"""

SYMMETRIC_RELATIONS = frozenset({"SIMILAR_TO", "CONTRADICTS"})
CARD_TO_SESSION = frozenset({"EXTRACTED_FROM"})
CUSTOM_TABLE = "CUSTOM"

_SEPARATORS = re.compile(r"[^0-9A-Za-z]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_relation(name: str) -> str:
    """``led to`` / ``ledTo`` / ``led-to`` → ``LED_TO``; refuses names with no letters or digits."""
    from .errors import AlayaError

    words = _SEPARATORS.sub(" ", _CAMEL.sub(" ", name.strip())).split()
    if not words:
        raise AlayaError("bad_relation", f"relation name {name!r} has no letters or digits")
    return "_".join(word.upper() for word in words)


def is_core(relation: str) -> bool:
    return relation in CORE_RELATIONS


def relation_embedding_text(relation: str, reason: str = "") -> str:
    """Core relations embed their synonym phrase; custom ones their name in words plus a reason (seed 3.2)."""
    if relation in CORE_PHRASES:
        return CORE_PHRASES[relation]
    words = relation.replace("_", " ").lower()
    return f"{words}; {reason}" if reason else words


def directed(link: "Link") -> list["Link"]:
    """Symmetric relations are stored in both directions (seed 4.8)."""
    from .domain import Link

    if link.relation not in SYMMETRIC_RELATIONS:
        return [link]
    return [link, Link(link.target, link.source, link.relation, link.weight, link.reason, link.created_at)]
