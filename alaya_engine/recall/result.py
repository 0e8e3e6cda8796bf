"""The recall result: exactly the documented recall structure, plus fields that only add information.

The original fields (``card_id, title, content, score, h_distance, matched_rel,
rel_similarity``; ``explorable[] rel, count, rel_sim_to_query``;
``h_distance_avg``) are never renamed or dropped. The JSON Schema shipped in
``alaya_engine/schemas/recall.schema.json`` pins the whole document.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

CLOSE_ENOUGH = 0.3
"""Below this average h-distance a result counts as close to the target."""


@dataclass
class RecallNode:
    card_id: str
    title: str
    content: str
    score: float
    """1 − h_distance, so higher is better."""
    h_distance: float
    matched_rel: str | None
    """The relation traversed to reach this card; None for a seed found by search."""
    rel_similarity: float | None
    """How well ``matched_rel`` answers the requested relations (1.0 exact); None for seeds."""
    type: str
    tags: list[str]
    tier: str
    depth: int
    via: str | None
    """The card this one was reached from; None for seeds."""
    source: str
    concept_distance: float
    relation_distance: float
    kind: str = "card"
    """``card``, or ``session_turns``: a window of raw turns (``card_id`` is then the window's id, ``type`` is
    ``session_turns`` and ``tier`` is ``RAW``)."""
    session_id: str | None = None
    """The session a window comes from; None for cards (``alaya trace`` lists a card's sessions)."""
    turn_range: list[int] | None = None
    """``[first, last]``: zero-based positions in the session's turns, inclusive; None for cards."""
    time: int | None = None
    """When a window's first turn was said, ms since the epoch; None for cards."""

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Explorable:
    rel: str
    count: int
    """Cards one step further along ``rel`` from the returned nodes, not yet in the result."""
    rel_sim_to_query: float
    from_nodes: list[str]
    """The returned cards (in result order) that ``rel`` leads on from: the ``from_nodes`` that follow it."""

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class RecallResult:
    nodes: list[RecallNode]
    explorable: list[Explorable]
    query: dict
    reason: str | None = None
    """Why the result is empty, when it is."""
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def h_distance_avg(self) -> float | None:
        if not self.nodes:
            return None
        return round(sum(node.h_distance for node in self.nodes) / len(self.nodes), 4)

    @property
    def verdict(self) -> str:
        """How close the result is, and the advice that fits: navigating only when a relation is explorable."""
        average = self.h_distance_avg
        if average is None:
            return "nothing found"
        if average < CLOSE_ENOUGH:
            return "close to target"
        if average < 0.5:
            return ("getting closer: navigate along an explorable relation" if self.explorable
                    else "getting closer: add or rephrase concepts")
        return ("far from target: rephrase the concepts or navigate further" if self.explorable
                else "far from target: rephrase the concepts")

    @property
    def next_request(self) -> dict | None:
        """The request that follows the best explorable relation (the list is sorted best first): one hop from the
        cards it leads on from, with the same goal, so the next result is still measured against what was asked.
        None when nothing is explorable. Every face offers it as the next step (the CLI as a command line)."""
        if not self.explorable:
            return None
        best = self.explorable[0]
        request: dict = {"from_nodes": best.from_nodes, "relations": [best.rel], "depth": 1}
        if self.query.get("text"):
            request["text"] = self.query["text"]
        elif self.query.get("concepts"):
            request["concepts"] = self.query["concepts"]
        if self.query.get("types"):
            request["types"] = self.query["types"]
        return request

    def to_json(self) -> dict:
        return {
            "nodes": [node.to_json() for node in self.nodes],
            "explorable": [item.to_json() for item in self.explorable],
            "h_distance_avg": self.h_distance_avg,
            "verdict": self.verdict,
            "next_request": self.next_request,
            "reason": self.reason,
            "query": self.query,
            "timings_ms": self.timings_ms,
        }
