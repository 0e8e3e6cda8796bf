"""One recall, start to finish: embed → seeds → expand → score → rank → explorable. No LLM anywhere.

COLD cards have no vector in L1; when the graph (or full-text search)
reaches one, its concept distance is computed by embedding its title and
content on the spot, so it is ranked by the same formula as every other card.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..errors import AlayaError
from .navigate import Reach, expand, h_distance
from .query import RecallQuery
from .result import Explorable, RecallNode, RecallResult

if TYPE_CHECKING:
    import numpy as np

    from ..embedding.base import Embedder
    from ..graph.snapshot import GraphSnapshot
    from ..graph.store import GraphStore
    from .index import CardIndex
    from .relation_space import RelationSpace


def run_recall(query: RecallQuery, queries: "np.ndarray", *, graph: "GraphStore | GraphSnapshot", index: "CardIndex",
               space: "RelationSpace", embedder: "Embedder", settings: dict[str, Any]) -> RecallResult:
    """``queries`` are the embedded concepts and ``index`` is refreshed: both done by the caller before it takes
    the store's step lock, so a cold model or a reload of the vectors never holds up another client's step.
    ``graph`` is the database or its resident snapshot: both answer ``cards``, ``neighbours`` and ``card_count``
    alike."""
    clock = _Clock()
    space.check_known(query.relations)
    if query.from_nodes:
        known = graph.cards(query.from_nodes)
        missing = [card_id for card_id in query.from_nodes if card_id not in known]
        if missing:
            raise AlayaError("unknown_card", f"no card '{missing[0]}' in this store; use card ids from a recall result")
        starts = list(query.from_nodes)
        if not len(queries):
            queries = _vectors_for(list(known.values()), index, embedder)
    else:
        if not index.ids and not graph.card_count():
            return RecallResult([], [], query.to_json(), reason="the store has no cards yet: ingest and distill "
                                                               "sessions first", timings_ms=clock.laps)
        full_text = query.text if settings["hybrid"] else None
        starts = index.seeds(queries, full_text, query.top_k, settings["min_similarity"])
    clock.lap("search")
    reached = expand(graph, starts, query.depth, query.relations, space, settings["min_rel_similarity"])
    if query.from_nodes:
        for card_id in query.from_nodes:
            reached.pop(card_id, None)
    cards = graph.cards(list(reached))
    if query.types:
        cards = {card_id: card for card_id, card in cards.items() if card["type"] in query.types}
    clock.lap("graph")
    nodes = _score(reached, cards, queries, index, embedder, settings)[: query.max_results]
    explorable = _explorable(graph, nodes, query, space, queries)
    clock.lap("rank")
    reason = None if nodes else "no card is close enough to the concepts; try other words or a deeper search"
    return RecallResult(nodes, explorable, query.to_json(), reason=reason, timings_ms=clock.laps)


def _score(reached: dict[str, Reach], cards: dict[str, dict], queries: "np.ndarray", index: "CardIndex",
           embedder: "Embedder", settings: dict[str, Any]) -> list[RecallNode]:
    weights = (settings["alpha"], settings["beta"], settings["gamma"])
    present = [reached[card_id] for card_id in reached if card_id in cards]
    vectors = _vectors_for([cards[reach.card_id] for reach in present], index, embedder)
    nodes = []
    for reach, vector in zip(present, vectors):
        card = cards[reach.card_id]
        concept_distance = max(0.0, 1.0 - _similarity(vector, queries))
        h, relation_distance = h_distance(weights, concept_distance, reach)
        nodes.append(RecallNode(
            card_id=card["id"], title=card["title"], content=card["content"], score=round(1.0 - h, 4),
            h_distance=round(h, 4), matched_rel=reach.matched_rel, rel_similarity=reach.rel_similarity,
            type=card["type"], tags=list(card["tags"] or []), tier=card["tier"], depth=reach.depth, via=reach.via,
            source=card["source"], concept_distance=round(concept_distance, 4),
            relation_distance=round(relation_distance, 4)))
    nodes.sort(key=lambda node: (node.h_distance, node.card_id))
    return nodes


def _vectors_for(cards: list[dict], index: "CardIndex", embedder: "Embedder") -> "np.ndarray":
    """Resident vectors where L1 has them; COLD cards embedded from their text."""
    import numpy as np

    vectors = [index.vector_of(card["id"]) for card in cards]
    cold = [position for position, vector in enumerate(vectors) if vector is None]
    if cold:
        embedded = embedder.embed([f"{cards[p]['title']}\n{cards[p]['content']}" for p in cold])
        for position, vector in zip(cold, embedded):
            vectors[position] = vector
    return np.vstack(vectors) if vectors else np.zeros((0, embedder.dimension), np.float32)


def _similarity(vector: "np.ndarray", queries: "np.ndarray") -> float:
    return float((queries @ vector).max()) if len(queries) else 0.0


def _explorable(graph: "GraphStore | GraphSnapshot", nodes: list[RecallNode], query: RecallQuery, space: "RelationSpace",
                queries: "np.ndarray") -> list[Explorable]:
    """Relations leading one step beyond the returned cards, with how many cards wait there."""
    shown = {node.card_id for node in nodes} | set(query.from_nodes)
    order = {node.card_id: position for position, node in enumerate(nodes)}
    targets: dict[str, set[str]] = {}
    sources: dict[str, set[str]] = {}
    for source, relation, target, _weight in graph.neighbours([node.card_id for node in nodes]):
        if target not in shown:
            targets.setdefault(relation, set()).add(target)
            sources.setdefault(relation, set()).add(source)
    items = []
    for relation, cards in targets.items():
        if query.relations:
            similarity = space.similarity(relation, query.relations)
        else:
            similarity = space.similarity_to_vectors(relation, queries)
        items.append(Explorable(rel=relation, count=len(cards), rel_sim_to_query=round(similarity, 4),
                                from_nodes=sorted(sources[relation], key=order.__getitem__)))
    items.sort(key=lambda item: (-item.rel_sim_to_query, -item.count, item.rel))
    return items


class _Clock:
    def __init__(self):
        self.started = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round((now - self.last) * 1000, 2)
        self.laps["total"] = round((now - self.started) * 1000, 2)
        self.last = now
