"""Graph expansion and h-distance scoring.

``h = α·concept_distance + β·relation_distance + γ·depth_penalty`` where
concept_distance is the cosine distance from the card to its nearest query
concept, relation_distance is ``1 − rel_similarity`` of the relation that
reached the card (0 for seeds: no relation was traversed), and depth_penalty
is ``0.1·depth``. An edge is followed only when its relation's similarity to
the requested relations reaches ``recall.min_rel_similarity`` (every edge
when no relation is requested); ``EXTRACTED_FROM`` leads to sessions, not
cards, and is not followed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..graph.reader import GraphReader
    from .relation_space import RelationSpace


@dataclass
class Reach:
    card_id: str
    depth: int
    via: str | None = None
    matched_rel: str | None = None
    rel_similarity: float | None = None


def expand(graph: "GraphReader", starts: list[str], depth: int, relations: list[str],
           space: "RelationSpace", min_rel_similarity: float) -> dict[str, Reach]:
    """Breadth-first from ``starts``; each card keeps its shallowest, best-matching way in.

    Between equally good ways in, the smallest (via, relation) wins, so the result does not depend on the
    order the graph lists edges in (the database and its resident snapshot list them differently).
    """
    reached = {card_id: Reach(card_id, 0) for card_id in starts}
    frontier = list(starts)
    for level in range(1, depth + 1):
        found: dict[str, Reach] = {}
        for source, relation, target, _weight in graph.neighbours(frontier):
            if target in reached:
                continue
            similarity = space.similarity(relation, relations)
            if similarity < min_rel_similarity:
                continue
            similarity = round(similarity, 4)
            best = found.get(target)
            if best is None or (-similarity, source, relation) < (-best.rel_similarity, best.via, best.matched_rel):
                found[target] = Reach(target, level, source, relation, similarity)
        if not found:
            break
        reached.update(found)
        frontier = list(found)
    return reached


def h_distance(weights: tuple[float, float, float], concept_distance: float, reach: Reach) -> tuple[float, float]:
    """(h, relation_distance) for one reached card."""
    alpha, beta, gamma = weights
    relation_distance = 0.0 if reach.rel_similarity is None else 1.0 - reach.rel_similarity
    return alpha * concept_distance + beta * relation_distance + gamma * 0.1 * reach.depth, relation_distance
