"""Relation names: the core set with their definitions, and name normalisation.

Core relations have their own rel tables in the graph; every other name lives
in the ``CUSTOM`` table under its normalised UPPER_SNAKE_CASE ``type``.
"""

from __future__ import annotations

import re

CORE_RELATIONS: dict[str, str] = {
    "CAUSES": "A causes B: A is the reason B happens (e.g. a missing memory limit causes an OOM kill).",
    "CAUSED_BY": "A is caused by B: B is the reason A happened (e.g. message loss caused by a config omission).",
    "DEPENDS_ON": "A depends on B: A needs B to work or to be done first (e.g. deployment depends on the build script).",
    "SIMILAR_TO": "A is similar to B: the same kind of problem, pattern or idea (e.g. two type errors).",
    "CONTRADICTS": "A contradicts B: A replaces, conflicts with or invalidates B (e.g. old approach vs new approach).",
    "TEMPORAL_NEXT": "A is followed by B: B came after A in time (e.g. decision B after decision A).",
    "EXTRACTED_FROM": "Card A was extracted from session B: where a piece of knowledge came from.",
}

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
