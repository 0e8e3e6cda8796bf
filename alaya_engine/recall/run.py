"""One recall, start to finish: embed → seeds → expand → score → rank → explorable. No LLM anywhere.

COLD cards have no vector in L1: one reached through the graph counts as half
as similar as the card it was reached from, one found by full-text search has
its title embedded on the spot (see :func:`_concept_distances`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..foundations.errors import AlayaError
from ..graph.store import facts_from_graph
from ..raw.windows import parse_window_id, window_id
from .currency import first_said, put_current_first
from .lexical import LexicalFusion
from .navigate import Reach, expand, h_distance
from .query import RecallQuery, whole_text
from .result import Explorable, RecallNode, RecallResult
from .turns import TurnSearch

MAX_MERGED_TURNS = 7
"""A merged window spans at most this many turns (three windows of three, two apart): on LoCoMo a longer merge
added tokens for no evidence (recall@10 0.813 at 7, 0.814 unbounded), on MemoryBank nothing but tokens."""
BROUGHT_WITHIN = 0.06
"""How far below the cut (in h) the card that replaced a returned stale unit may have ranked to be brought into the
result ahead of it (:mod:`.currency`). Further down it is not what the question is about, and bringing it pushed
out the last unit, which often was (written sets: questions about other things lost their evidence). The stale unit
is then returned as it ranked, marked with ``superseded_by``. 0.05-0.07 kept every current-first answer of five
sets and raised their recall; 0.03-0.04 lost one, 0.1 kept less of the gain (docs/benchmarks.md)."""
COLD_SIMILARITY_SHARE = 0.5
"""A card without a vector (see :func:`_concept_distances`) reached through the graph counts as this share of its
via's similarity to the concepts: measured on the introspected 100k synthetic store, 750 COLD cards' true
similarity was 0.53 of their via's (median ratio; least squares 0.54, correlation 0.44), so such cards enter
results about as often as their true distances say."""

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future

    import numpy as np

    from ..embedding.base import Embedder
    from ..graph.reader import GraphReader
    from .index import ResidentIndex
    from .relation_space import RelationSpace


def run_recall(query: RecallQuery, queries: "np.ndarray", *, graph: "GraphReader",
               index: "ResidentIndex", space: "RelationSpace", embedder: "Embedder", settings: dict[str, Any],
               full_text: "Future[dict[str, float]] | None" = None,
               turns: TurnSearch | None = None, in_scope: set[str] | None = None,
               context_turns: "Callable[[str, str], set[int]]" = lambda card_id, session_id: set(),
               entity_cards: list[str] | None = None) -> RecallResult:
    """``queries`` are the embedded concepts and ``index`` is refreshed: both done by the caller before it takes
    the store's step lock, so a cold model or a reload of the vectors never holds up another client's step.
    ``graph`` is the database or its resident snapshot: both answer ``cards``, ``card_types``, ``neighbours`` and
    ``card_count`` alike. ``full_text`` is the full-text search of the free text, started by the caller on another
    thread (None when there is no free text or ``recall.hybrid`` is off). ``turns`` searches the windows of raw
    turns when the request includes sessions (see :mod:`.turns`). ``in_scope``: the sessions a scoped request may
    return cards and turns of (None: all). ``context_turns(card, session)``: the turns of that session a card was
    distilled from, which tell the windows holding superseded knowledge (:mod:`.currency`). ``entity_cards``: the
    cards that mention the request's ``entity``; they start the recall beside the cards search found, or alone
    (no search) when the entity is all the request gives."""
    clock = _Clock()
    space.check_known(query.relations)
    goal = query.text or ("; ".join(query.concepts) if query.concepts else None)
    if query.from_nodes:
        known = graph.card_types(query.from_nodes)
        missing = [card_id for card_id in query.from_nodes if card_id not in known]
        if missing:
            raise AlayaError("unknown_card", f"no card '{missing[0]}' in this store; use card ids from a recall result")
        starts = list(query.from_nodes)
        if not len(queries):
            queries = _vectors_for(starts, index.vectors_of(starts), graph, embedder)
    elif not index.ids and not graph.card_count() and not (turns and turns.index.ids):
        return RecallResult([], [], query.to_json(), reason="the store has no cards yet: ingest and distill "
                                                           "sessions first", goal=goal, timings_ms=clock.laps)
    window_queries = _window_queries(query, queries)
    if turns is not None:
        turns.start_vector_search(window_queries, query.top_k, settings["min_similarity"])
    if query.entity_only:
        starts = list(entity_cards or [])
    elif not query.from_nodes:
        starts = index.seeds(queries, full_text, query.top_k, settings["min_similarity"])
        starts += [card_id for card_id in entity_cards or () if card_id not in set(starts)]
    fusion = LexicalFusion.for_query(query.text or " ".join(query.concepts), settings)
    window_distances = {} if turns is None else turns.distances(window_queries, fusion)
    if in_scope is not None:
        window_distances = {window_id: distance for window_id, distance in window_distances.items()
                            if parse_window_id(window_id)[0] in in_scope}
    if query.as_of is not None:
        window_distances = _said_by(window_distances, query.as_of, graph)
    clock.lap("search")
    reached = expand(graph, starts, query.depth, query.relations, space, settings["min_rel_similarity"])
    distances = _concept_distances(reached, queries, graph, index, embedder)
    if full_text is not None:
        lexical = fusion.shares(full_text.result())
        distances = {card_id: fusion.distance(distance, lexical.get(card_id, 0.0))
                     for card_id, distance in distances.items()}
    if query.from_nodes:
        for card_id in query.from_nodes:
            reached.pop(card_id, None)
    types = graph.card_types(list(reached))
    candidates = [reached[card_id] for card_id in reached
                  if card_id in types and (not query.types or types[card_id] in query.types)]
    if not query.include_memex:
        candidates = without_memex(candidates, graph)
    if in_scope is not None:
        cards = graph.cards([reach.card_id for reach in candidates], content=False)
        candidates = [reach for reach in candidates
                      if in_scope.intersection(cards.get(reach.card_id, {}).get("source_sessions") or ())]
    if query.as_of is not None:
        said = first_said(graph, [reach.card_id for reach in candidates])
        candidates = [reach for reach in candidates if said.get(reach.card_id, 0) <= query.as_of]
    clock.lap("graph")
    ranked = _rank(candidates, distances, settings)
    nodes = _merge(ranked, window_distances, settings, query.max_results, graph, turns)
    found = {item.reach.card_id: item for item in ranked}
    cut = max((node.h_distance for node in nodes), default=0.0)
    nodes = put_current_first(nodes, graph, limit=query.max_results, as_of=query.as_of, question=query.text,
                              context_turns=context_turns,
                              current_node=lambda card_id: next(iter(_nodes([found[card_id]], graph)), None)
                              if card_id in found and found[card_id].h <= cut + BROUGHT_WITHIN else None)
    explorable = _explorable(graph, [node for node in nodes if node.kind == "card"], query, space, queries)
    clock.lap("rank")
    reason = None if nodes else "no card is close enough to the concepts; try other words or a deeper search"
    return RecallResult(nodes, explorable, query.to_json(), reason=reason, goal=goal, timings_ms=clock.laps)


def _said_by(window_distances: dict[str, float], as_of: int, graph: "GraphReader") -> dict[str, float]:
    """The windows of sessions held by ``as_of``."""
    sessions = {window_id: parse_window_id(window_id)[0] for window_id in window_distances}
    said = graph.session_times(sorted(set(sessions.values())))
    return {window_id: distance for window_id, distance in window_distances.items()
            if said.get(sessions[window_id], 0) <= as_of}


def _window_queries(query: RecallQuery, queries: "np.ndarray") -> "np.ndarray":
    """The concepts windows are searched with: a free text's whole (its first concept), else every concept. A
    window is a stretch of conversation, matched as a whole question matches it; the parts of a question split at
    its punctuation added a vector search each over the largest index, for no evidence (docs/benchmarks.md)."""
    return queries[:1] if query.text and query.concepts and query.concepts[0] == whole_text(query.text) else queries


def without_memex(candidates: list[Reach], graph: "GraphReader") -> list[Reach]:
    """The candidates not imported from a memex vault (a request with ``include_memex`` false). Cards reached
    through a memex card stay: only the memex cards themselves are left out of the result."""
    from ..memex.importer import SOURCE

    cards = graph.cards([reach.card_id for reach in candidates], content=False)
    return [reach for reach in candidates if cards.get(reach.card_id, {}).get("source") != SOURCE]


@dataclass
class _Scored:
    reach: Reach
    h: float
    concept_distance: float
    relation_distance: float


def _rank(candidates: list[Reach], distances: dict[str, float], settings: dict[str, Any]) -> list[_Scored]:
    """Every reached card by h, best first; only the cards that make the cut are read in full afterwards."""
    weights = (settings["alpha"], settings["beta"], settings["gamma"])
    scored = []
    for reach in candidates:
        concept_distance = distances[reach.card_id]
        h, relation_distance = h_distance(weights, concept_distance, reach)
        scored.append(_Scored(reach, round(h, 4), round(concept_distance, 4), round(relation_distance, 4)))
    scored.sort(key=lambda item: (item.h, item.reach.card_id))
    return scored


def _merge(cards: list[_Scored], window_distances: dict[str, float], settings: dict[str, Any], limit: int,
           graph: "GraphReader", turns: TurnSearch | None) -> list[RecallNode]:
    """Cards and windows in one ranking by h (a window is a seed: h = α · concept distance), cut by
    :func:`take_units`. Only the units that make the cut are read."""
    windows = [(round(settings["alpha"] * distance, 4), unit_id, round(distance, 4))
               for unit_id, distance in window_distances.items()]
    ranked = sorted([(item.h, item.reach.card_id, item) for item in cards] + windows, key=lambda row: row[:2])
    chosen = take_units(ranked, limit)
    card_nodes = {node.card_id: node for node in _nodes([row[2] for row in chosen if isinstance(row[2], _Scored)],
                                                        graph)}
    window_nodes = {} if turns is None else turns.nodes(
        {unit_id: (h, distance) for h, unit_id, distance, _ in chosen if not isinstance(distance, _Scored)},
        merged={unit_id for _, unit_id, _, parts in chosen if len(parts) > 1})
    return [node for node in (card_nodes.get(unit_id) or window_nodes.get(unit_id) for _, unit_id, _, _ in chosen)
            if node is not None]


def take_units(ranked: list[tuple], limit: int) -> list[tuple]:
    """The first ``limit`` units of a ranking of rows ``(h, unit id, item)``, as ``(h, unit id, item, parts)``.

    A window that overlaps chosen ones extends the best of them instead of taking a place of its own: the unit's
    id becomes the span of them all (``<session>:turns:<first>-<last>``), its h and item stay the best window's,
    and ``parts`` lists the items merged into it (the others it bridged give their places back). Two overlapping
    windows ranked this high say the span matters, and the turns they share are not paid twice; on LoCoMo this
    took evidence recall@10 from 0.771 to 0.814 for 722 -> 824 tokens a question, where skipping the second
    window lost its new turns (docs/benchmarks.md). Returned windows never share a turn. A card id never parses
    as a window's.
    """
    chosen: list[list] = []  # [h, unit id, item, parts, span or None]
    for row in ranked:
        if len(chosen) == limit:
            break
        span = parse_window_id(row[1])
        joined = [unit for unit in chosen if unit[4] is not None and _overlaps(span, unit[4])] if span else []
        if joined and _length(span, *(unit[4] for unit in joined)) > MAX_MERGED_TURNS:
            continue
        if not joined:
            chosen.append([row[0], row[1], row[2], [row[2]], span])
            continue
        best = joined[0]
        for unit in [*joined[1:], [row[0], row[1], row[2], [row[2]], span]]:
            best[3] += unit[3]
            best[4] = (span[0], min(best[4][1], unit[4][1]), max(best[4][2], unit[4][2]))
        best[1] = window_id(*best[4])
        bridged = {id(unit) for unit in joined[1:]}
        chosen = [unit for unit in chosen if id(unit) not in bridged]
    return [tuple(unit[:4]) for unit in chosen]


def _length(*spans: tuple[str, int, int]) -> int:
    return max(span[2] for span in spans) - min(span[1] for span in spans) + 1


def _overlaps(span: tuple[str, int, int], other: tuple[str, int, int]) -> bool:
    return span[0] == other[0] and span[1] <= other[2] and other[1] <= span[2]


def _concept_distances(reached: dict[str, Reach], queries: "np.ndarray", graph: "GraphReader",
                       index: "ResidentIndex", embedder: "Embedder") -> dict[str, float]:
    """Cosine distance to the nearest concept of every reached card, in one matrix product.

    Every card recall holds has a vector: resident floats, COLD codes, or the vector a distill step just wrote.
    One without any (a store made before COLD cards kept theirs, until its next introspect) counts, reached
    through the graph, as :data:`COLD_SIMILARITY_SHARE` of the similarity of the card it was reached from; found
    by full-text search, it is embedded from its title (:func:`_vectors_for`).
    """
    import numpy as np

    held = dict(zip(reached, index.vectors_of(list(reached))))
    with_vectors = {card_id: reach for card_id, reach in reached.items()
                    if reach.via is None or held[card_id] is not None}
    vectors = _vectors_for(list(with_vectors), [held[card_id] for card_id in with_vectors], graph, embedder)
    if len(queries) and len(vectors):
        similarities = (vectors @ np.asarray(queries, dtype=vectors.dtype).T).max(axis=1).tolist()
    else:
        similarities = [0.0] * len(with_vectors)
    distances = {card_id: max(0.0, 1.0 - similarity) for card_id, similarity in zip(with_vectors, similarities)}
    for card_id, reach in reached.items():
        if card_id not in distances:
            distances[card_id] = 1.0 - COLD_SIMILARITY_SHARE * (1.0 - distances[reach.via])
    return distances


def _nodes(scored: list[_Scored], graph: "GraphReader") -> list[RecallNode]:
    cards = graph.cards([item.reach.card_id for item in scored])
    said = graph.session_times(sorted({session for card in cards.values()
                                       for session in card["source_sessions"] or ()}))
    nodes = []
    for item in scored:
        if item.reach.card_id not in cards:  # forgotten or merged away since it was ranked (recall takes no lock)
            continue
        card, reach = cards[item.reach.card_id], item.reach
        times = [said[session] for session in card["source_sessions"] or () if session in said]
        nodes.append(RecallNode(
            card_id=card["id"], title=card["title"], content=card["content"], score=round(1.0 - item.h, 4),
            h_distance=item.h, matched_rel=reach.matched_rel, rel_similarity=reach.rel_similarity,
            type=card["type"], tags=list(card["tags"] or []), tier=card["tier"], depth=reach.depth, via=reach.via,
            source=card["source"], concept_distance=item.concept_distance, relation_distance=item.relation_distance,
            facts=facts_from_graph(card["facts"]), time=max(times, default=None)))
    return nodes


def _vectors_for(card_ids: list[str], vectors: "list[np.ndarray | None]", graph: "GraphReader",
                 embedder: "Embedder") -> "np.ndarray":
    """The cards' ``vectors`` recall holds; a card without one (None; see :func:`_concept_distances`) embedded
    from its title."""
    import numpy as np

    cold = [card_id for card_id, vector in zip(card_ids, vectors) if vector is None]
    if cold:
        titles = {card_id: card["title"] for card_id, card in graph.cards(cold, content=False).items()}
        embedded = dict(zip(titles, embedder.embed(list(titles.values()))))
        missing = np.zeros(embedder.dimension, np.float32)  # a full-text hit the graph no longer has
        vectors = [embedded.get(card_id, missing) if vector is None else vector
                   for card_id, vector in zip(card_ids, vectors)]
    return np.vstack(vectors) if vectors else np.zeros((0, embedder.dimension), np.float32)


def _explorable(graph: "GraphReader", nodes: list[RecallNode], query: RecallQuery,
                space: "RelationSpace", queries: "np.ndarray") -> list[Explorable]:
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
