"""The cards behind a figure of the heat (``browse``): a tier, a temperature band, a type, or a relation's edges.

``alaya status`` counts cards per tier, band and type and edges per relation; a count a person cannot open is a
number to take on trust. One filter per call, hottest cards first, bounded by ``limit``; ``total`` is the count
the figure showed.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from ..foundations.domain import CARD_TYPES, TIERS
from ..foundations.errors import AlayaError
from ..foundations.relations import CARD_TO_SESSION, CORE_RELATIONS, CUSTOM_TABLE
from ..graph.store import TEMPERATURE_BANDS

if TYPE_CHECKING:
    from ..graph.store import GraphStore
    from ..store_parts import StoreParts

FILTERS = ("tier", "band", "type", "relation")
DEFAULT_LIMIT = 200
MAX_LIMIT = 2000
_CARD_COLUMNS = "c.id, c.title, c.type, c.tier, c.temperature, c.created_at"


def browse(store: StoreParts, params: dict) -> dict:
    """``{"filter": {name: value}, "total", "cards": [...]}``, or ``"edges"`` instead of cards for a relation."""
    chosen = {name: params[name] for name in FILTERS if params.get(name) is not None}
    if len(chosen) != 1:
        raise AlayaError("bad_request", f"browse takes exactly one of {', '.join(FILTERS)}")
    limit = params.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise AlayaError("bad_request", f"limit must be a whole number from 1 to {MAX_LIMIT}")
    (name, value), = chosen.items()
    if name == "relation":
        known = set(store.vectors().relation_names())
    with store.step() as graph:
        if name == "relation":
            _check_relation(graph, value, known | set(CORE_RELATIONS) | graph.promoted_relations())
            return {"filter": chosen, **_edges(graph, value, limit)}
        where, parameters = _card_filter(name, value)
        total = graph.query(f"MATCH (c:Card) WHERE {where} RETURN count(c)", parameters)[0][0]
        rows = graph.query(f"MATCH (c:Card) WHERE {where} RETURN {_CARD_COLUMNS} "
                           "ORDER BY c.temperature DESC, c.id LIMIT $limit", {**parameters, "limit": limit})
    cards = [{"card_id": card_id, "title": title, "type": kind, "tier": tier, "temperature": heat,
              "created_at": created.isoformat() + "Z"} for card_id, title, kind, tier, heat, created in rows]
    return {"filter": chosen, "total": total, "cards": cards}


def _card_filter(name: str, value: Any) -> tuple[str, dict]:
    """The Cypher condition for one filter; an unknown tier, type or band is refused naming the known ones (it would
    match no card, the same answer as an empty one)."""
    if name == "tier":
        _check_known("tier", value, TIERS)
        return "c.tier = $value", {"value": value}
    if name == "type":
        _check_known("type", value, CARD_TYPES)
        return "c.type = $value", {"value": value}
    bands = {f"{low:.1f}-{high:.1f}": (low, high) for low, high in TEMPERATURE_BANDS}
    _check_known("band", value, tuple(bands))
    low, high = bands[value]
    upper = "" if high >= TEMPERATURE_BANDS[0][1] else " AND c.temperature < $high"
    lower = "c.temperature >= $low" if low > 0 else "(c.temperature IS NULL OR c.temperature >= $low)"
    return lower + upper, {"low": low, **({"high": high} if upper else {})}


def _check_known(name: str, value: Any, known: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in known:
        shown = f"'{value}'" if isinstance(value, str) else "that value"
        raise AlayaError(f"unknown_{name}", f"unknown {name} {shown}; {name} must be one of {', '.join(known)}")


def _check_relation(graph: GraphStore, relation: Any, known: set[str]) -> None:
    """A relation this store knows (core, promoted, custom with its name embedded, or custom with edges), else
    ``unknown_relation`` with the nearest names: an unknown name would list no edges, the same answer as a relation
    never used."""
    if not isinstance(relation, str) or not relation:
        raise AlayaError("bad_request", "relation must be a relation name, e.g. CAUSED_BY")
    if relation in known:
        return
    if not graph.query(f"MATCH (:Card)-[r:{CUSTOM_TABLE}]->(:Card) WHERE r.type = $relation RETURN r.type LIMIT 1",
                       {"relation": relation}):
        close = difflib.get_close_matches(relation, sorted(known), n=3, cutoff=0.4)
        hint = (f"; did you mean {', '.join(close)}? All of them: alaya schema --relations" if close
                else "; list them with: alaya schema --relations")
        raise AlayaError("unknown_relation", f"unknown relation '{relation}'{hint}")


def _edges(graph: GraphStore, relation: str, limit: int) -> dict:
    """The relation's edges between cards, or from cards to their sessions (``EXTRACTED_FROM``)."""
    if relation in CORE_RELATIONS or relation in graph.promoted_relations():
        target = "Session" if relation in CARD_TO_SESSION else "Card"
        pattern, parameters = f"(a:Card)-[r:`{relation}`]->(b:{target})", {}
    else:
        pattern, parameters = f"(a:Card)-[r:{CUSTOM_TABLE}]->(b:Card) WHERE r.type = $relation", {"relation": relation}
    total = graph.query(f"MATCH {pattern} RETURN count(r)", parameters)[0][0]
    title = "b.id" if relation in CARD_TO_SESSION else "b.title"
    rows = graph.query(f"MATCH {pattern} RETURN a.id, a.title, b.id, {title} ORDER BY a.id, b.id LIMIT $limit",
                       {**parameters, "limit": limit})
    return {"total": total, "edges": [{"source": source, "source_title": source_title, "relation": relation,
                                       "target": target, "target_title": target_title}
                                      for source, source_title, target, target_title in rows]}
