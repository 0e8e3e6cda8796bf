"""A card's neighbourhood: the cards one and two hops away and the typed edges between them (``neighbourhood``).

The explorer draws it as a picture around the card; a picture of hundreds of nodes says nothing, so the document
is bounded (``limit`` nodes, the nearest hop first, within a hop the hottest first) and says how many were left
out. Edges are those between the nodes kept, each once, in its stored direction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..foundations.errors import AlayaError

if TYPE_CHECKING:
    from .store import GraphStore

MAX_HOPS = 2
DEFAULT_LIMIT = 24
MAX_LIMIT = 200


def neighbourhood(graph: GraphStore, card_id: str, hops: int = MAX_HOPS, limit: int = DEFAULT_LIMIT) -> dict:
    """``{"focus", "hops", "nodes": [...], "edges": [...], "left_out"}``; the focus is ``nodes[0]`` (hop 0)."""
    if isinstance(hops, bool) or not isinstance(hops, int) or not 1 <= hops <= MAX_HOPS:
        raise AlayaError("bad_request", f"hops must be 1 or {MAX_HOPS}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise AlayaError("bad_request", f"limit must be a whole number from 1 to {MAX_LIMIT}")
    if not graph.cards([card_id]):
        raise AlayaError("unknown_card", f"no card '{card_id}' in this store; card ids come from recall")
    hop_of = {card_id: 0}
    edges: dict[tuple[str, str, str], None] = {}
    frontier = [card_id]
    left_out = 0
    for hop in range(1, hops + 1):
        found: list[str] = []
        for source, touching in graph.edges_of_many(frontier).items():
            for direction, listed in touching.items():
                for edge in listed:
                    other = edge["card_id"]
                    ends = (source, other) if direction == "outgoing" else (other, source)
                    edges[(*ends, edge["relation"])] = None
                    if other not in hop_of and other not in found:
                        found.append(other)
        kept, dropped = _hottest(graph, found, limit - len(hop_of))
        left_out += dropped
        hop_of.update(dict.fromkeys(kept, hop))
        frontier = kept
    cards = graph.cards(list(hop_of), content=False)
    nodes = [_node(cards[node], hop) for node, hop in hop_of.items() if node in cards]
    kept_edges = [{"source": source, "target": target, "relation": relation}
                  for source, target, relation in edges if source in hop_of and target in hop_of]
    return {"focus": card_id, "hops": hops, "nodes": nodes, "edges": kept_edges, "left_out": left_out}


def _hottest(graph: GraphStore, card_ids: list[str], room: int) -> tuple[list[str], int]:
    """The ``room`` hottest of these cards, and how many did not fit."""
    if room <= 0 or not card_ids:
        return [], len(card_ids)
    heat = dict(graph.query("UNWIND $ids AS x MATCH (c:Card {id: x}) RETURN c.id, c.temperature", {"ids": card_ids}))
    ranked = sorted(card_ids, key=lambda card: (-(heat.get(card) or 0.0), card))
    return ranked[:room], max(0, len(ranked) - room)


def _node(card: dict[str, Any], hop: int) -> dict[str, Any]:
    return {"card_id": card["id"], "title": card["title"], "type": card["type"], "tier": card["tier"],
            "temperature": card["temperature"], "hop": hop}
