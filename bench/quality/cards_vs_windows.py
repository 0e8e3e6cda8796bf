"""Cards only against windows only, within one token budget a question: do the distilled cards lead back to as much
evidence as windows of the raw turns they were distilled from, for no more tokens?

Both sides are recall's own ranking of the question, searched alike (vectors fused with full text):

- cards only: ``"include_sessions": false``, recall's switch that leaves windows out;
- windows only: recall has no switch that leaves cards out, so its windows are taken from a recall with sessions, in
  its order, with the cards dropped. Cards and windows meet only in the one ranking by h: a card never merges with
  a window or displaces one, it only takes a place under ``max_results``, asked at :data:`DEEP` so that both sides
  run out of budget before they run out of units. Asked that deep, a window also absorbs overlapping ones ranked
  far below it (recall merges up to 7 turns), which costs windows tokens: the comparison errs towards cards.

The harness's windows baselines (BM25 and dense over the same 3-turn windows, unmerged, :mod:`.baselines`) are in
the note at the same budget, not the comparison: against them a gap would mix the unit with the search. Each
ranking is cut at the budget as every equal-token comparison of the harness is (:meth:`.scoring.Scored.recall_within`)
and scored on the evidence turns its units cover, a card through the turns of its context (:class:`.alaya.UnitMapper`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..report import Row
from .harness import ALAYA
from .scoring import Scored

if TYPE_CHECKING:
    from alaya_engine.engine import Engine

    from .alaya import UnitMapper
    from .harness import Asked, Run

CARDS_ONLY, WINDOWS_ONLY = "cards only", "windows only"
MODES = {CARDS_ONLY: ({"include_sessions": False}, "card"), WINDOWS_ONLY: ({}, "session_turns")}
"""What each mode adds to the recall request, and the kind of node it keeps."""
DEEP = 50
"""``max_results`` of both recalls: a LoCoMo card costs ~55 tokens and a window ~120-180 (merged), so 50 units
(~2,500 tokens) outlast the budget."""
BASELINES = ("window BM25", "window dense")


def ask(engine: "Engine", mapper: "UnitMapper", item: "Asked") -> None:
    """Ask ``item``'s question cards only and windows only; both rankings go into ``item.by_method``."""
    for mode, (request, kind) in MODES.items():
        nodes = engine.recall({"text": item.question.text, "max_results": DEEP, **request}).to_json()["nodes"]
        item.by_method[mode] = Scored(item.question, [unit for unit in map(mapper.unit, nodes) if unit.kind == kind])


def recall_within(asked: list["Asked"], method: str, budget: int) -> float:
    return statistics.mean(item.by_method[method].recall_within(budget) for item in asked)


def per_group(run: "Run", groups: list[str], score: Callable[[list["Asked"]], float]) -> str:
    """``score`` of each group narrower than the whole run, e.g. ``cat 1 multi-hop 0.412, cat 2 temporal 0.601``."""
    scores = []
    for group in groups:
        asked = [item for item in run.asked if group in item.question.groups]
        if 0 < len(asked) < len(run.asked):
            scores.append(f"{group} {score(asked):.3f}")
    return ", ".join(scores)


def ratio(asked: list["Asked"], budget: int) -> float:
    """Cards only's recall over windows only's (nan when windows only recall nothing)."""
    cards, windows = (recall_within(asked, mode, budget) for mode in MODES)
    return cards / windows if windows else float("nan")


def comparison_rows(name: str, label: str, run: "Run", groups: list[str], budget: int) -> list[Row]:
    """Cards only, windows only and their ratio within ``budget`` tokens: over every question, per group in the note."""
    title, count = f"{label}, {budget} tokens", f"{len(run.asked)} questions"
    rows = []
    for mode in MODES:
        ranked = [item.by_method[mode] for item in run.asked]
        kept = [scored.within(budget) for scored in ranked]
        baselines = "" if mode == CARDS_ONLY else "; baselines within the budget: " + ", ".join(
            f"{baseline} {recall_within(run.asked, baseline, budget):.3f}" for baseline in BASELINES)
        rows.append(Row(name, f"{title}: evidence recall — {mode}", recall_within(run.asked, mode, budget), "recall",
                        f"{per_group(run, groups, lambda asked: recall_within(asked, mode, budget))}; "
                        f"{statistics.mean(kept):.1f} units, "
                        f"{statistics.mean(s.tokens(k) for s, k in zip(ranked, kept)):.0f} tokens a question"
                        f"{baselines}; {count}"))
    rows.append(Row(name, f"{title}: cards only / windows only", ratio(run.asked, budget), "ratio",
                    f"{per_group(run, groups, lambda asked: ratio(asked, budget))}; 1 or more: cards only reach "
                    f"windows only. Default recall (cards and windows) within the budget: "
                    f"{recall_within(run.asked, ALAYA, budget):.3f}"))
    return rows
