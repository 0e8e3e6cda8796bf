"""Everything an export shows, read from the graph (cards, sessions, every edge) and ``card_heat`` (counters).

Times become ISO 8601 UTC strings (``2026-03-31T06:29:00Z``) here, once, so the
Markdown files and the GraphML file agree to the character.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..foundations.relations import CARD_TO_SESSION
from ..graph.store import CARD_FIELDS

if TYPE_CHECKING:
    from ..graph.store import GraphStore

SESSION_FIELDS = ("id", "timestamp", "channel", "agent", "summary", "turns", "tokens", "content_hash", "path",
                  "distilled_hash", "distilled_at")


@dataclass
class StoreSnapshot:
    cards: list[dict[str, Any]]
    """``CARD_FIELDS`` plus ``access_count`` and ``last_accessed`` (None if never recalled), by id."""
    sessions: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    """``source``, ``target``, ``relation`` (a custom relation by its own name), ``weight``, ``reason``,
    ``created_at``."""
    entities: list[dict[str, Any]] = field(default_factory=list)
    """``id``, ``name``, ``kind``, ``aliases``, by id."""
    mentions: list[dict[str, Any]] = field(default_factory=list)
    """One per (card, entity): ``source`` (the card), ``target`` (the entity), ``name`` (the card's name for it,
    the first in code-point order when it used several)."""


def read_snapshot(graph: "GraphStore", heat_rows: list[dict]) -> StoreSnapshot:
    counters = {row["id"]: row for row in heat_rows}
    cards = []
    for row in graph.query(f"MATCH (c:Card) RETURN {', '.join('c.' + name for name in CARD_FIELDS)} ORDER BY c.id"):
        card = {name: _plain(value) for name, value in zip(CARD_FIELDS, row)}
        heat = counters.get(card["id"], {})
        card["access_count"] = int(heat.get("access_count") or 0)
        card["last_accessed"] = _iso_millis(heat.get("last_accessed"))
        cards.append(card)
    sessions = [{name: _plain(value) for name, value in zip(SESSION_FIELDS, row)} for row in graph.query(
        f"MATCH (s:Session) RETURN {', '.join('s.' + name for name in SESSION_FIELDS)} ORDER BY s.id")]
    edges = [_edge(a, custom or label, b, weight, reason, created) for a, label, custom, b, weight, reason, created
             in graph.query("MATCH (a:Card)-[r]->(b:Card) RETURN a.id, label(r), r.type, b.id, r.weight, r.reason, "
                            "r.created_at ORDER BY a.id, b.id")]
    for relation in sorted(CARD_TO_SESSION):
        edges += [_edge(a, relation, b, weight, reason, created) for a, b, weight, reason, created in graph.query(
            f"MATCH (a:Card)-[r:{relation}]->(b:Session) RETURN a.id, b.id, r.weight, r.reason, r.created_at "
            "ORDER BY a.id, b.id")]
    entities = [{"id": identifier, "name": name, "kind": kind, "aliases": list(aliases or [])}
                for identifier, name, kind, aliases in graph.query(
                    "MATCH (e:Entity) RETURN e.id, e.name, e.kind, e.aliases ORDER BY e.id")]
    mentions = [{"source": card, "target": entity, "name": name} for card, entity, name in graph.query(
        "MATCH (c:Card)-[m:MENTIONS]->(e:Entity) RETURN c.id, e.id, min(m.name) ORDER BY c.id, e.id")]
    return StoreSnapshot(cards=cards, sessions=sessions, edges=edges, entities=entities, mentions=mentions)


def iso(moment: datetime) -> str:
    """A naive UTC timestamp from the graph as ISO 8601 with ``Z``."""
    return moment.isoformat() + "Z"


def _edge(source: str, relation: str, target: str, weight, reason, created) -> dict[str, Any]:
    return {"source": source, "target": target, "relation": relation, "weight": weight, "reason": reason,
            "created_at": _plain(created)}


def _plain(value: Any) -> Any:
    """Times as ISO strings, also inside a card's facts (a list of structs)."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return iso(value) if isinstance(value, datetime) else value


def _iso_millis(millis: int | None) -> str | None:
    from ..graph.store import from_millis

    return iso(from_millis(millis)) if millis else None
