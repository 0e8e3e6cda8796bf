"""Navigation on LoCoMo, MemoryBank (Chinese) and agentset: the agent loop against one recall, at the same tokens
and at twice them (against one recall read further down).

The loop and its scoring are :mod:`bench.quality.navigation`: round 1 is the harness's recall; while the verdict
is not "close to target" and a relation is explorable, the best one is followed with the question as the goal
(at most two hops); the pooled units are cut at round 1's tokens. Rows per LoCoMo category and for MemoryBank
Chinese, then the verdict's calibration (hit@5 per verdict and per ``h_distance_avg`` threshold). A full run
takes every conversation and user; ``--quick`` skips it unless named with ``--only`` (then 2 conversations and
4 users).
"""

from __future__ import annotations

from .plan import Plan
from .quality import agentset, locomo, memorybank
from .quality.navigation import measure_navigation, navigation_rows
from .quality.records import MissingData
from .report import Row, skipped

NAME = "navigation_quality"


def run(plan: Plan) -> list[Row]:
    if plan.quick and NAME not in plan.named:
        return [skipped(NAME, "skipped in --quick", f"minutes of distilling; --quick --only {NAME} for a sample")]
    rows = []
    for label, groups, load in (
            ("LoCoMo", locomo.GROUPS, lambda: locomo.haystacks(2 if plan.quick else None)),
            ("MemoryBank", [memorybank.monolingual_group("cn")], lambda: memorybank.monolingual(
                "cn", 4 if plan.quick else None)),
            ("agentset", ["multi-hop", agentset.OVERALL], lambda: [agentset.load(6 if plan.quick else None).haystack])):
        try:
            haystacks = load()
        except MissingData as missing:
            rows.append(skipped(NAME, f"{label} not found", str(missing)))
            continue
        rows.extend(navigation_rows(NAME, label, measure_navigation(haystacks), groups))
    return rows
