"""Consolidate: find near-duplicate cards, missing ``SIMILAR_TO`` links and relation names to tidy.

Every finding becomes a suggestion in the review queue (``alaya review``), and
approving one applies it (:mod:`.apply`). Offline nothing is merged
automatically; with an LLM configured, the duplicate candidates are put to it
(:mod:`.confirm`), which merges those it confirms through that same code path.
Promoted relations behave as core: they are never proposed for a merge,
promotion or split again.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..foundations.errors import AlayaError
from ..foundations.relations import CUSTOM_TABLE, GENERIC_NAMES, check_promotable, is_core
from ..graph.schema_info import PROMOTE_AT
from .suggestions import SuggestionStore

if TYPE_CHECKING:
    from ..graph.store import GraphStore
    from ..vectors.store import VectorStore
    from .confirm import MergeConfirmation

SIMILAR_FLOOR = 0.7
"""Pairs from here up to ``consolidate_threshold`` without an edge become ``SIMILAR_TO`` suggestions."""
RELATION_ALIAS_AT = 0.9
MAX_PAIRS_PER_CARD = 3
BLOCK = 2048
"""Rows per matrix product. OpenBLAS serves one multi-threaded product at a time, so a recall on the owner server
waits for the job's current product: with 2048-row products instead of 16k-row ones for the k-means assignment,
recall p95 during a consolidate at 100k cards was 107-134 ms instead of 143-179 (two runs each)."""
EXACT_LIMIT = 20_000
EXAMPLES = 5


@dataclass
class ConsolidateReport:
    new: dict[str, int] = field(default_factory=dict)
    pending: int = 0
    dry_run: bool = False
    llm: dict | None = None
    """What the LLM decided about duplicate candidates (``confirm.ConfirmReport``); None when none is configured
    or in a dry run."""

    def to_json(self) -> dict:
        return asdict(self)


class LinkedPairs:
    """Which cards of ``ids`` are joined by an edge, either way, kept as one integer per edge: at 100k cards
    and 320k edges ~25 MB, where a set of frozensets of ids held ~150 MB through the whole step."""

    def __init__(self, graph: "GraphStore", ids: list[str]):
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        self._size = len(ids)
        self._position: dict[str, int] = {}
        for position, card_id in enumerate(ids):
            self._position.setdefault(card_id, position)
        edges = graph.query_arrow("MATCH (a:Card)-[]->(b:Card) RETURN a.id, b.id")
        known = pa.array(ids, pa.string())
        first, second = (pc.fill_null(pc.index_in(edges.column(end), value_set=known), -1).to_numpy().astype(np.int64)
                         for end in (0, 1))
        both = (first >= 0) & (second >= 0)
        low, high = np.minimum(first, second)[both], np.maximum(first, second)[both]
        self._keys = set((low * self._size + high).tolist())

    def __contains__(self, pair: tuple[str, str]) -> bool:
        first, second = self._position.get(pair[0]), self._position.get(pair[1])
        if first is None or second is None:
            return False
        return min(first, second) * self._size + max(first, second) in self._keys


def session_codes(ids: list[str], session_of: dict[str, str]):
    """Per card of ``ids``, a number standing for the session it came from (-1: none)."""
    import numpy as np

    codes: dict[str, int] = {}
    return np.array([codes.setdefault(session_of[card_id], len(codes)) if card_id in session_of else -1
                     for card_id in ids], dtype=np.int64)


def card_pairs(ids: list[str], matrix, floor: float, sessions=None) -> list[tuple[float, str, str]]:
    """(cosine, a, b) for pairs at or above ``floor``, at most a few per card, never two cards of one session
    (same code in ``sessions``). The distiller made siblings two points and their session joins them: as similar
    pairs they took a card's few places (7 of the demo's 9 suggestions) and hid the pairs across sessions, which
    only a person can join; as duplicates they are the distiller's to avoid, not a person's to review.

    Up to ``EXACT_LIMIT`` cards every pair is compared (block by block). Beyond, all pairs would cost
    O(n²) — about 5·10¹² multiply-adds at 100k cards — so cards are first grouped by a few rounds of
    spherical k-means (√n groups) and compared within their group only: near-duplicates almost always
    share a group, and a pair split across a boundary is only a missed suggestion.
    """
    import numpy as np

    sessions = np.full(len(ids), -1, dtype=np.int64) if sessions is None else sessions
    if len(ids) <= EXACT_LIMIT:
        return _pairs_within(ids, matrix, floor, sessions)
    pairs = []
    for members in _groups(matrix):
        pairs.extend(_pairs_within([ids[m] for m in members], matrix[members], floor, sessions[members]))
    return pairs


def _pairs_within(ids: list[str], matrix, floor: float, sessions) -> list[tuple[float, str, str]]:
    """Per card in order, its later partners at or above ``floor``, best first (ties: the earlier partner),
    at most ``MAX_PAIRS_PER_CARD``; chosen with array operations, not a Python loop per card."""
    import numpy as np

    pairs = []
    for start in range(0, len(ids), BLOCK):
        scores = matrix[start:start + BLOCK] @ matrix.T
        rows, columns = np.nonzero(scores >= floor)
        later = columns > rows + start
        rows, columns = rows[later], columns[later]
        values = scores[rows, columns]
        siblings = (sessions[rows + start] == sessions[columns]) & (sessions[columns] >= 0)
        rows, columns, values = rows[~siblings], columns[~siblings], values[~siblings]
        order = np.lexsort((columns, -values, rows))
        rows, columns, values = rows[order], columns[order], values[order]
        rank = np.arange(len(rows)) - np.searchsorted(rows, rows)
        kept = rank < MAX_PAIRS_PER_CARD
        pairs.extend((score, ids[start + row], ids[column]) for score, row, column in
                     zip(values[kept].tolist(), rows[kept].tolist(), columns[kept].tolist()))
    return pairs


def _groups(matrix, rounds: int = 5) -> list:
    """Spherical k-means (seeded, so runs are repeatable): lists of row indices, one per non-empty group.

    A group's sum adds its rows in row order, as ``np.add.at`` did, so the groups are the same to the bit —
    and ten times faster to get."""
    import numpy as np

    count = int(np.sqrt(len(matrix)))
    rng = np.random.default_rng(0)
    centroids = matrix[rng.choice(len(matrix), count, replace=False)]
    for _ in range(rounds):
        assignment = np.concatenate([np.argmax(matrix[start:start + BLOCK] @ centroids.T, axis=1)
                                     for start in range(0, len(matrix), BLOCK)])
        sums = np.zeros_like(centroids)
        for group, members in enumerate(_members(assignment, count)):
            if len(members):
                sums[group] = matrix[members].sum(axis=0)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = np.where(norms > 0, sums / np.maximum(norms, 1e-12), centroids)
    return [members for members in _members(assignment, count) if len(members)]


def _members(assignment, count: int) -> list:
    """Row indices of each group 0..count-1, ascending within a group."""
    import numpy as np

    order = np.argsort(assignment, kind="stable")
    bounds = np.searchsorted(assignment[order], np.arange(count + 1))
    return [order[bounds[group]:bounds[group + 1]] for group in range(count)]


def consolidate(*, vectors: "VectorStore", graph: "GraphStore", store: SuggestionStore, settings: dict, now: int,
                dry_run: bool, step: Callable[[], AbstractContextManager],
                confirmation: "MergeConfirmation | None" = None) -> ConsolidateReport:
    """Reads the store under ``step``, then compares vectors outside it, so recalls are answered meanwhile;
    with ``confirmation``, the pending duplicate candidates are then put to the LLM."""
    report = ConsolidateReport(dry_run=dry_run)
    with step():
        ids, matrix = vectors.active_vectors()
        linked = LinkedPairs(graph, ids)
        sessions = session_codes(ids, graph.card_sessions())
        relation_findings = _relation_findings(vectors, graph)
    findings: list[tuple[str, list[str], dict]] = []
    for score, first, second in card_pairs(ids, matrix, SIMILAR_FLOOR, sessions):
        if score >= settings["consolidate_threshold"]:
            findings.append(("merge_cards", [first, second], {"similarity": round(score, 4)}))
        elif (first, second) not in linked:
            findings.append(("similar_to", [first, second], {"similarity": round(score, 4)}))
    del matrix, linked
    findings.extend(relation_findings)
    for kind, subjects, evidence in findings:
        is_new = store.propose(kind, subjects, evidence, now)[1]
        report.new[kind] = report.new.get(kind, 0) + is_new
    if not dry_run:
        store.save()
        if confirmation is not None:
            from .confirm import confirm_merges

            report.llm = confirm_merges(confirmation, store=store, graph=graph, now=now, step=step).to_json()
    report.pending = len(store.all("pending"))
    return report


def _relation_findings(vectors: "VectorStore", graph: "GraphStore") -> list[tuple[str, list[str], dict]]:
    uses = graph.counts()["links_by_relation"]
    promoted = graph.promoted_relations()
    names, matrix = vectors.relation_vectors()
    custom = [(name, matrix[position]) for position, name in enumerate(names)
              if not is_core(name) and name not in promoted]
    findings = []
    for index, (name, vector) in enumerate(custom):
        for other, other_vector in custom[index + 1:]:
            score = float(vector @ other_vector)
            if score > RELATION_ALIAS_AT:
                keep, drop = sorted((name, other), key=lambda n: (-uses.get(n, 0), n))
                findings.append(("merge_relations", [keep, drop], {
                    "similarity": round(score, 4), "uses": {keep: uses.get(keep, 0), drop: uses.get(drop, 0)},
                    "examples": {keep: _examples(graph, keep), drop: _examples(graph, drop)}}))
        if uses.get(name, 0) > PROMOTE_AT and _promotable(name):
            findings.append(("promote_relation", [name], {"uses": uses[name]}))
        if name in GENERIC_NAMES:
            findings.append(("split_relation", [name], {"uses": uses.get(name, 0),
                                                        "examples": _examples(graph, name)}))
    return findings


def _examples(graph: "GraphStore", name: str) -> list[str]:
    """A few edges of a custom relation, ``title → title``: the evidence a person judges a relation by."""
    rows = graph.query(f"MATCH (a:Card)-[r:{CUSTOM_TABLE} {{type: $name}}]->(b:Card) "
                       f"RETURN a.title, b.title LIMIT {EXAMPLES}", {"name": name})
    return [f"{a} → {b}" for a, b in rows]


def _promotable(name: str) -> bool:
    """Vague names and names unfit for a table are never proposed (vague ones get a split suggestion)."""
    try:
        check_promotable(name)
    except AlayaError:
        return False
    return True
