"""Scores of one question's ranked units under one method: at a number of units and at a token budget.

- ``recall(k)``: the fraction of the question's evidence turns covered by the top-k units;
- ``hit(k)``: at least one evidence turn covered by the top k;
- ``rr(k)``: 1 / rank of the first unit covering an evidence turn (0 when none in the top k);
- ``within(budget)``: how many leading units fit in ``budget`` tokens, the longest prefix whose cumulative
  tokens do not exceed it (0 when the first unit alone does), so a method never gets more text than the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from .records import Question, TurnKey
from .units import Unit


@dataclass
class Scored:
    question: Question
    units: list[Unit]

    def covered(self, k: int) -> set[TurnKey]:
        return set().union(*(unit.turns for unit in self.units[:k]))

    def recall(self, k: int) -> float:
        return len(self.covered(k) & self.question.evidence) / len(self.question.evidence)

    def hit(self, k: int) -> float:
        return float(bool(self.covered(k) & self.question.evidence))

    def rr(self, k: int) -> float:
        for rank, unit in enumerate(self.units[:k], start=1):
            if unit.turns & self.question.evidence:
                return 1.0 / rank
        return 0.0

    def tokens(self, k: int) -> int:
        return sum(unit.tokens for unit in self.units[:k])

    def within(self, budget: float) -> int:
        return sum(1 for total in accumulate(unit.tokens for unit in self.units) if total <= budget)

    def recall_within(self, budget: float) -> float:
        return self.recall(self.within(budget))
