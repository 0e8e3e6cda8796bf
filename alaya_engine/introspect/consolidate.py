"""Consolidate (seed 4.7.1): find near-duplicate cards, missing ``SIMILAR_TO`` links and relation names to tidy.

Offline, nothing is merged automatically: every finding becomes a suggestion
in the review queue (``alaya review``), and approving one applies it exactly
as an automatic merge would (:mod:`.apply`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..relations import is_core
from ..schema_info import GENERIC_NAMES, PROMOTE_AT
from .suggestions import SuggestionStore, suggestion_id

if TYPE_CHECKING:
    from ..graph.store import GraphStore
    from ..vectors.store import VectorStore

SIMILAR_FLOOR = 0.7
"""Pairs from here up to ``consolidate_threshold`` without an edge become ``SIMILAR_TO`` suggestions."""
RELATION_ALIAS_AT = 0.9
MAX_PAIRS_PER_CARD = 3
BLOCK = 2048
EXAMPLES = 5


@dataclass
class ConsolidateReport:
    new: dict[str, int] = field(default_factory=dict)
    pending: int = 0
    dry_run: bool = False

    def to_json(self) -> dict:
        return asdict(self)


def card_pairs(ids: list[str], matrix, floor: float) -> list[tuple[float, str, str]]:
    """(cosine, a, b) for pairs at or above ``floor``, at most a few per card, computed block by block."""
    import numpy as np

    pairs = []
    for start in range(0, len(ids), BLOCK):
        scores = matrix[start:start + BLOCK] @ matrix.T
        for offset, row in enumerate(scores):
            me = start + offset
            candidates = [j for j in np.nonzero(row >= floor)[0] if j > me]
            for j in sorted(candidates, key=lambda k: -row[k])[:MAX_PAIRS_PER_CARD]:
                pairs.append((float(row[j]), ids[me], ids[j]))
    return pairs


def consolidate(*, vectors: "VectorStore", graph: "GraphStore", store: SuggestionStore, settings: dict, now: int,
                dry_run: bool) -> ConsolidateReport:
    report = ConsolidateReport(dry_run=dry_run)
    linked = {frozenset(row) for row in graph.query("MATCH (a:Card)-[]->(b:Card) RETURN a.id, b.id")}
    ids, matrix = vectors.active_vectors()
    findings: list[tuple[str, list[str], dict]] = []
    for score, first, second in card_pairs(ids, matrix, SIMILAR_FLOOR):
        if score >= settings["consolidate_threshold"]:
            findings.append(("merge_cards", [first, second], {"similarity": round(score, 4)}))
        elif frozenset((first, second)) not in linked:
            findings.append(("similar_to", [first, second], {"similarity": round(score, 4)}))
    findings.extend(_relation_findings(vectors, graph))
    for kind, subjects, evidence in findings:
        if dry_run:
            is_new = store.get(suggestion_id(kind, subjects), missing_ok=True) is None
        else:
            is_new = store.propose(kind, subjects, evidence, now)[1]
        report.new[kind] = report.new.get(kind, 0) + is_new
    report.pending = len(store.all("pending"))
    return report


def _relation_findings(vectors: "VectorStore", graph: "GraphStore") -> list[tuple[str, list[str], dict]]:
    uses = graph.counts()["links_by_relation"]
    names, matrix = vectors.relation_vectors()
    custom = [(name, matrix[position]) for position, name in enumerate(names) if not is_core(name)]
    findings = []
    for index, (name, vector) in enumerate(custom):
        for other, other_vector in custom[index + 1:]:
            score = float(vector @ other_vector)
            if score > RELATION_ALIAS_AT:
                keep, drop = sorted((name, other), key=lambda n: (-uses.get(n, 0), n))
                findings.append(("merge_relations", [keep, drop], {"similarity": round(score, 4),
                                                                   "uses": {keep: uses.get(keep, 0), drop: uses.get(drop, 0)}}))
        if uses.get(name, 0) > PROMOTE_AT:
            findings.append(("promote_relation", [name], {"uses": uses[name]}))
        if name in GENERIC_NAMES:
            examples = graph.query("MATCH (a:Card)-[r:CUSTOM {type: $name}]->(b:Card) RETURN a.title, b.title "
                                   f"LIMIT {EXAMPLES}", {"name": name})
            findings.append(("split_relation", [name], {"uses": uses.get(name, 0),
                                                        "examples": [f"{a} → {b}" for a, b in examples]}))
    return findings
