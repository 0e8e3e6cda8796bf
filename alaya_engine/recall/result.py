"""The recall result: exactly the documented recall structure, plus fields that only add information.

The original fields (``card_id, title, content, score, h_distance, matched_rel,
rel_similarity``; ``explorable[] rel, count, rel_sim_to_query``;
``h_distance_avg``) are never renamed or dropped. The JSON Schema shipped in
``alaya_engine/schemas/recall.schema.json`` pins the whole document.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from ..foundations.domain import Fact, from_fields
from .query import MAX_RESULTS

CLOSE_ENOUGH = 0.15
"""A result whose best unit's h-distance is below this is close to the target: on the dev sets its top 5 held an
evidence turn for 85% of such LoCoMo questions and all such MemoryBank Chinese ones (calibration: docs/recall.md)."""
GETTING_CLOSER = 0.22
"""Below this (and not close) the result is getting closer; above it, far from the target."""
FURTHER = 2
"""How many times as many units the next request asks for."""


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
    """When it was said, ms since the epoch: a window's first turn; for a card, the latest session it came from
    (None when the graph has no time for it)."""
    facts: list[Fact] = field(default_factory=list)
    """What a card states as data (subject, attribute, value, valid_from); empty for windows."""
    superseded_by: list[str] = field(default_factory=list)
    """The cards that replaced what this unit says, current first (empty: nothing replaced it). A superseded
    unit ranks right after its replacement."""
    valid_to: int | None = None
    """When what this unit says stopped being current (the first replacement was said), ms; None: still current."""

    def to_json(self) -> dict:
        """``asdict``'s document, built by hand: its deep copy of every field took 0.24 ms for a demo recall's ten
        nodes, this 0.03 ms (the lists are copied; strings and numbers need not be)."""
        document = {name: getattr(self, name) for name in _NODE_FIELDS}
        document["tags"] = list(self.tags)
        document["turn_range"] = None if self.turn_range is None else list(self.turn_range)
        document["facts"] = [fact.to_json() for fact in self.facts]
        document["superseded_by"] = list(self.superseded_by)
        return document

    @classmethod
    def from_json(cls, document: dict) -> "RecallNode":
        node = from_fields(cls, document)
        node.facts = [Fact.from_json(fact) for fact in document.get("facts") or []]
        return node


_NODE_FIELDS = tuple(field.name for field in fields(RecallNode))


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
    goal: str | None = None
    """What distances are measured against: the free text or the concepts. None for a hop from ``from_nodes``
    without them, whose distances are to the start cards' own vectors."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    entities: list[dict] = field(default_factory=list)
    """The entities the returned cards mention: ``id``, ``name``, ``kind`` and ``cards`` (the returned cards that
    mention it, in result order); the most mentioned first."""

    @property
    def h_distance_avg(self) -> float | None:
        if not self.nodes:
            return None
        return round(sum(node.h_distance for node in self.nodes) / len(self.nodes), 4)

    @property
    def h_distance_best(self) -> float | None:
        return min((node.h_distance for node in self.nodes), default=None)

    @property
    def verdict(self) -> str:
        """What the best unit's distance says and what to do next. The best h, not the average: on the dev sets
        the average told questions whose answer was found from the rest no better than chance (AUC 0.51 on
        LoCoMo), the best h did (0.68; 0.94 on MemoryBank Chinese). What it advises is reading further down the
        list, not following a relation: at twice one recall's tokens the rest of the list found more than the
        best relation's cards on LoCoMo (0.888 against 0.867; multi-hop 0.705 against 0.664) and on agentset
        (docs/benchmarks.md). The relations stay in ``explorable`` for a person or an agent that wants a path."""
        best_h = self.h_distance_best
        if best_h is None:
            return "nothing found"
        if self.goal is None:
            return "no goal given: distances are to the start cards; pass the question to measure them against it"
        if best_h < CLOSE_ENOUGH:
            return "close to target"
        further = self._further()
        if best_h < GETTING_CLOSER:
            return f"getting closer: read further down (max_results {further})" if further else \
                "getting closer: nothing further down; rephrase or add concepts"
        return f"far from target: rephrase the concepts or read further down (max_results {further})" if further \
            else "far from target: rephrase the concepts"

    @property
    def next_request(self) -> dict | None:
        """The same request asking for ``FURTHER`` times as many units, so the next result holds this one (a window
        may widen, merged with one that ranks further down) and what ranks after it, against the same goal; None
        when close to the target, when nothing was found or no goal was given, and when there is nothing further down
        (the list came back shorter than asked, or already the longest a recall returns). Every face offers it as
        the next step (the CLI as a command line)."""
        if self.goal is None or not self.nodes or self.h_distance_best < CLOSE_ENOUGH or not self._further():
            return None
        query = self.query
        request: dict = {"text": query["text"]} if query.get("text") else {"concepts": query.get("concepts") or []}
        if query.get("from_nodes"):
            request.update(from_nodes=query["from_nodes"], relations=query.get("relations") or [],
                           depth=query.get("depth", 1))
        for kept in ("types", "scope", "as_of", "entity"):
            if query.get(kept):
                request[kept] = query[kept]
        for switch in ("include_sessions", "include_memex"):
            if query.get(switch) is False:
                request[switch] = False
        request["max_results"] = self._further()
        return request

    def _further(self) -> int | None:
        """How many units the next request asks for; None when asking for more would return nothing more."""
        asked = int(self.query.get("max_results") or len(self.nodes))
        if len(self.nodes) < asked or asked >= MAX_RESULTS:
            return None
        return min(MAX_RESULTS, FURTHER * asked)

    @classmethod
    def from_json(cls, document: dict) -> "RecallResult":
        """The result back from its ``--json`` document (the verdict and next request are recomputed alike)."""
        return cls(nodes=[RecallNode.from_json(node) for node in document["nodes"]],
                   explorable=[from_fields(Explorable, item) for item in document["explorable"]],
                   query=document["query"], reason=document.get("reason"), goal=document.get("goal"),
                   timings_ms=document.get("timings_ms") or {}, entities=document.get("entities") or [])

    def to_json(self) -> dict:
        return {
            "nodes": [node.to_json() for node in self.nodes],
            "explorable": [item.to_json() for item in self.explorable],
            "h_distance_avg": self.h_distance_avg,
            "h_distance_best": self.h_distance_best,
            "verdict": self.verdict,
            "next_request": self.next_request,
            "reason": self.reason,
            "goal": self.goal,
            "query": self.query,
            "timings_ms": self.timings_ms,
            "entities": self.entities,
        }
