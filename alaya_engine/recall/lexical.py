"""The lexical share of a unit's concept distance: how much an exact full-text match brings a card or window closer.

For cards and windows alike::

    concept_distance = (1 − cos) · (1 − λ · lexical)       λ = recall.lexical_weight
    lexical = BM25 / max(best BM25 of this query in that index, floor)
    floor = recall.lexical_floor · distinct search terms of the query

A unit no full-text search found keeps its cosine distance, so the verdict's
thresholds keep their meaning; an exact name, identifier or date closes up to
λ of the gap. The floor keeps a query whose best hit matched only common words
from counting that hit as exact: relative to the best hit alone, a Chinese
question over an English memory counted Chinese small talk of other people as
exact matches and lost half its recall. λ and the floor were chosen on whole
row groups of LoCoMo, MemoryBank and the cross-lingual set (docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..foundations.terms import term_list


@dataclass(frozen=True)
class LexicalFusion:
    weight: float
    floor: float
    """The BM25 score a query's best hit must reach to count as an exact match (lexical 1)."""

    @classmethod
    def for_query(cls, text: str, settings: dict[str, Any]) -> "LexicalFusion":
        return cls(settings["lexical_weight"], settings["lexical_floor"] * len(set(term_list(text))))

    def shares(self, hits: dict[str, float]) -> dict[str, float]:
        """Each full-text hit's lexical share, 0..1."""
        scale = max(max(hits.values(), default=0.0), self.floor)
        return {unit_id: score / scale for unit_id, score in hits.items()} if scale > 0 else {}

    def distance(self, cosine_distance: float, share: float) -> float:
        return cosine_distance * (1.0 - self.weight * share)
