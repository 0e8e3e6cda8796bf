"""What a quality benchmark module hands the harness, and the ``run(plan)`` they share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ..plan import Plan
from ..report import Row, skipped
from . import cards_vs_windows
from .harness import evaluate, measure
from .records import Haystack, MissingData
from .rows import quality_rows


@dataclass
class Yardstick:
    name: str
    label: str
    """What its rows start with, e.g. ``LoCoMo``."""
    groups: list[str]
    """The row groups in the order they are reported."""
    load: Callable[[bool], list[Haystack]]
    """``load(quick)``: the haystacks of a full run, or of ``--quick``; raises MissingData without the data."""
    quick_scope: str
    """What ``--quick --only <name>`` measures, e.g. ``2 conversations``."""
    budget: int | None = None
    """When set, every question is also asked cards only and windows only, and the two compared within this many
    tokens a question (:mod:`.cards_vs_windows`), on the same stores."""


def run_quality(plan: Plan, yardstick: Yardstick) -> list[Row]:
    name = yardstick.name
    if plan.quick and name not in plan.named:
        return [skipped(name, "skipped in --quick", f"minutes of distilling and embedding; run without --quick, "
                                                    f"or --quick --only {name} for {yardstick.quick_scope}")]
    try:
        haystacks = yardstick.load(plan.quick)
    except MissingData as missing:
        return [skipped(name, f"{yardstick.label} not found", str(missing))]
    budget = yardstick.budget
    run = measure(haystacks, ask=None if budget is None else partial(evaluate, also=cards_vs_windows.ask))
    rows = quality_rows(name, yardstick.label, run, yardstick.groups)
    if budget is not None:
        rows += cards_vs_windows.comparison_rows(name, yardstick.label, run, yardstick.groups, budget)
    return rows
