"""Relation names: the core set with their definitions, name normalisation, and which names may become tables.

Core relations have their own rel tables in the graph; every other name lives
in the ``CUSTOM`` table under its normalised UPPER_SNAKE_CASE ``type`` until
``alaya review`` promotes it to a rel table of its own (a *promoted* relation,
which then behaves as core in that store).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .domain import Link

CORE_RELATIONS: dict[str, str] = {
    "CAUSES": "A causes B: A is the reason B happens (e.g. a missing memory limit causes an OOM kill).",
    "CAUSED_BY": "A is caused by B: B is the reason A happened (e.g. message loss caused by a config omission).",
    "DEPENDS_ON": "A depends on B: A needs B to work or to be done first "
                  "(e.g. deployment depends on the build script).",
    "SIMILAR_TO": "A is similar to B: the same kind of problem, pattern or idea (e.g. two type errors).",
    "CONTRADICTS": "A contradicts B: A conflicts with or invalidates B without replacing it (e.g. a runbook vs what "
                   "an incident showed).",
    "SUPERSEDES": "A supersedes B: A states the current value of what B stated before (e.g. a timeout raised from "
                  "120 s to 300 s).",
    "SUPERSEDED_BY": "A is superseded by B: what A stated held until B replaced it (the inverse of SUPERSEDES).",
    "TEMPORAL_NEXT": "A is followed by B: B came after A in time (e.g. decision B after decision A).",
    "EXTRACTED_FROM": "Card A was extracted from session B: where a piece of knowledge came from.",
}

CORE_PHRASES: dict[str, str] = {
    "CAUSES": "causes, leads to, results in, triggers, 导致, 引起",
    "CAUSED_BY": "caused by, because of, due to, results from, 由于, 因为",
    "DEPENDS_ON": "depends on, requires, needs, relies on, 依赖, 需要",
    "SIMILAR_TO": "similar to, resembles, same kind as, 类似, 相似",
    "CONTRADICTS": "contradicts, conflicts with, replaces, supersedes, 矛盾, 取代",
    "SUPERSEDES": "supersedes, replaces, updates, is the new value of, 取代, 更新为",
    "SUPERSEDED_BY": "superseded by, replaced by, outdated, no longer true, 被取代, 已过时",
    "TEMPORAL_NEXT": "followed by, then, next, afterwards, 之后, 接着",
    "EXTRACTED_FROM": "extracted from, comes from, source, 来自, 提取自",
}
"""What each core relation's embedding is made from: short bilingual synonyms.

Measured with the default model, long definitions diluted the match (``led to`` scored 0.16 against the
CAUSES definition); synonym phrases rank custom names next to the core relation they mean.
"""

SYMMETRIC_RELATIONS = frozenset({"SIMILAR_TO", "CONTRADICTS"})
INVERSE_RELATIONS = {"SUPERSEDES": "SUPERSEDED_BY", "SUPERSEDED_BY": "SUPERSEDES"}
"""Relations stored with their inverse beside them, so the stale card's own edges lead to the current one."""
CARD_TO_SESSION = frozenset({"EXTRACTED_FROM"})
CUSTOM_TABLE = "CUSTOM"
MENTIONS_TABLE = "MENTIONS"
"""Card → Entity: the names a card's text mentions (not a relation between cards; see ``graph.entities``)."""
NODE_TABLES = ("Card", "Session", "Entity")
GENERIC_NAMES = frozenset({"RELATES_TO", "RELATED_TO", "LINKED_TO", "LINKS_TO", "ASSOCIATED_WITH", "CONNECTED_TO"})
"""Vague names: introspect suggests splitting them into finer ones, never promoting them."""

PROMOTABLE_NAME = re.compile(r"[A-Z][A-Z0-9_]{1,63}")
CYPHER_KEYWORDS = frozenset("""
    ACYCLIC ADD ALL ALTER AND ANY AS ASC ASCENDING ATTACH BEGIN BY CALL CASE CAST CHECKPOINT COLUMN COMMENT COMMIT
    COMMIT_SKIP_CHECKPOINT CONSTRAINT CONTAINS COPY COUNT CREATE CYCLE DATABASE DBTYPE DEFAULT DELETE DESC
    DESCENDING DETACH DISTINCT DO DROP ELSE END ENDS EXISTS EXPLAIN EXPORT EXTENSION FALSE FOR FROM GLOB GRAPH
    GROUP HEADERS HINT IF IMPORT IN INCREMENT INDEX INSTALL IS JOIN KEY LIMIT LOAD LOGICAL MACRO MANDATORY MATCH
    MAXVALUE MERGE MINVALUE MULTI_JOIN NO NODE NONE NOT NULL OF ON ONLY OPTIONAL OR ORDER PRIMARY PROFILE PROJECT
    READ REL RELATIONSHIP REMOVE RENAME REQUIRE RETURN ROLLBACK ROLLBACK_SKIP_CHECKPOINT SCALAR SEQUENCE SET
    SHORTEST SINGLE SKIP START STARTS TABLE THEN TO TRAIL TRANSACTION TRUE TYPE UNINSTALL UNION UNIQUE UNWIND UPDATE
    USE WHEN WHERE WITH WRITE WSHORTEST XOR YIELD
""".split())
"""Words the graph's Cypher dialect (openCypher plus Kuzu's DDL) reserves or may reserve: never a table name."""

_SEPARATORS = re.compile(r"[\W_]+")
"""Anything but letters and digits (any script: ``导致`` is a name of its own) separates words."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise_relation(name: str) -> str:
    """``led to`` / ``ledTo`` / ``led-to`` → ``LED_TO``, ``caused by 根因`` → ``CAUSED_BY_根因``; refuses names with
    no letters or digits. Such a name is only ever a query parameter (``CUSTOM.type``), never Cypher text; only
    ASCII names can be promoted to tables of their own (:func:`check_promotable`)."""
    from .errors import AlayaError

    upper = _CAMEL.sub(" ", name.strip()).upper()  # upper-casing first: ``ῶ`` becomes ``Ω`` + a combining mark
    words = _SEPARATORS.sub(" ", upper).split()
    if not words:
        raise AlayaError("bad_relation", f"relation name {name!r} has no letters or digits")
    return "_".join(words)


def is_core(relation: str) -> bool:
    return relation in CORE_RELATIONS


def check_promotable(name: str) -> None:
    """Refuse a name that must not become a rel table: it is interpolated into Cypher, so trust nothing.

    Allowed: ``[A-Z][A-Z0-9_]{1,63}`` (what :func:`normalise_relation` makes, starting with a letter), not a
    Cypher keyword, not a core, ``CUSTOM`` or node table (compared case-insensitively, as the graph's catalog
    does), not a vague name (those are to be split, and memex imports keep ``RELATES_TO`` in ``CUSTOM``).
    """
    from .errors import AlayaError

    shown = repr(name)[:80]
    if not isinstance(name, str) or not PROMOTABLE_NAME.fullmatch(name):
        raise AlayaError("bad_relation", f"relation {shown} cannot become a table: a name is 2-64 characters of "
                                         "A-Z, 0-9 and _, starting with a letter")
    reserved = {*CORE_RELATIONS, CUSTOM_TABLE, MENTIONS_TABLE, *NODE_TABLES}
    if name in CYPHER_KEYWORDS or name.upper() in {table.upper() for table in reserved}:
        raise AlayaError("bad_relation", f"relation {shown} cannot become a table: the name is a Cypher keyword or "
                                         "an existing table")
    if name in GENERIC_NAMES:
        raise AlayaError("bad_relation", f"relation {shown} is too vague to promote; split it into finer names "
                                         "instead (alaya link --rel NAME)")


DEFAULT_RELATION = "RELATES_TO"
"""What ``alaya link`` uses without ``--rel``: known in every store, though custom."""


def check_new_relation(name: str, known: set[str]) -> None:
    """Refuse a relation name the store does not know yet, naming the nearest known one.

    A new relation is a real decision (it gets an embedding and shows in ``alaya schema``), and by far the most
    common new name is a typo (``CAUSD_BY``); creating one takes ``new_relation`` (``--new-relation``).
    """
    import difflib

    from .errors import AlayaError

    known = known | set(CORE_RELATIONS) | {DEFAULT_RELATION}
    if name in known:
        return
    nearest = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    hint = f"did you mean {nearest[0]}? " if nearest else f"known: {', '.join(sorted(known)[:12])}. "
    raise AlayaError("new_relation", f"{name} would be a new relation in this store; {hint}To create it, add "
                                     "--new-relation (new_relation: true)")


def relation_embedding_text(relation: str, reason: str = "") -> str:
    """Core relations embed their synonym phrase; custom ones their name in words plus a reason."""
    if relation in CORE_PHRASES:
        return CORE_PHRASES[relation]
    words = relation.replace("_", " ").lower()
    return f"{words}; {reason}" if reason else words


def directed(link: "Link") -> list["Link"]:
    """Symmetric relations are stored in both directions, inverse ones with their inverse."""
    from .domain import Link

    back = link.relation if link.relation in SYMMETRIC_RELATIONS else INVERSE_RELATIONS.get(link.relation)
    if back is None:
        return [link]
    return [link, Link(link.target, link.source, back, link.weight, link.reason, link.created_at)]
