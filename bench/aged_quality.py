"""Quality after a year: the LoCoMo and MemoryBank stores, fresh and then aged by twelve months, asked the same.

A memory ages: introspect, run a year after the sessions with nothing recalled meanwhile, cools every card
(COLD: temperature < 0.3 and untouched for ``cold_days``; a COLD card keeps no vector in L1) and forgets the
long-cold ones (below ``forget_threshold``, untouched for ``forget_days``, recalled fewer than 3 times, nothing
depending on them). Each store is built as in ``locomo_quality`` / ``memorybank_quality``, every question asked
(default recall and cards only, ``max_results`` 10), then introspect runs with its clock 365 days after the
store was built — the cards' own clock: they are created, and recalled, at build time, whatever the sessions'
dates — first cool-down alone ("aged"), then every step ("aged, forget on") — and every question is asked
again. Rows: evidence recall@10 per dataset and state, the share of questions whose ten units are the fresh
store's in the same order (aging should not reorder what it keeps), and the cards left and COLD. The target:
aged within 0.02 of fresh. ``--quick`` skips it unless named, then 2 LoCoMo conversations and 4 MemoryBank users
per language.
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .plan import Plan
from .quality import locomo, memorybank
from .quality.alaya import UnitMapper, served
from .quality.harness import TOP, Run, build
from .quality.records import Haystack, MissingData
from .quality.scoring import Scored
from .report import Row, skipped

NAME = "aged_quality"
YEAR_MS = 365 * 24 * 3600 * 1000
MODES = {"default": {}, "cards only": {"include_sessions": False}}
STATES = ("fresh", "aged", "aged, forget on")
DATASETS: dict[str, Callable[[bool], list[Haystack]]] = {
    "LoCoMo": lambda quick: locomo.haystacks(2 if quick else None),
    "MemoryBank": lambda quick: [haystack for language in memorybank.LANGUAGES
                                 for haystack in memorybank.monolingual(language, 4 if quick else None)],
}


def run(plan: Plan) -> list[Row]:
    if plan.quick and NAME not in plan.named:
        return [skipped(NAME, "skipped in --quick", f"minutes of distilling; --quick --only {NAME} for a few stores")]
    rows = []
    for label, load in DATASETS.items():
        try:
            haystacks = load(plan.quick)
        except MissingData as missing:
            rows.append(skipped(NAME, f"{label} not found", str(missing)))
            continue
        rows.extend(_dataset_rows(label, haystacks))
    return rows


def _dataset_rows(label: str, haystacks: list[Haystack]) -> list[Row]:
    recall: dict[tuple[str, str], list[float]] = {}
    same: dict[tuple[str, str], list[bool]] = {}
    cards: dict[str, list[int]] = {state: [] for state in STATES}
    cold: dict[str, list[int]] = {state: [] for state in STATES}
    with tempfile.TemporaryDirectory(prefix="alaya-bench-aged-") as scratch:
        model_cache = Path(scratch) / "model-cache"
        for number, haystack in enumerate(haystacks):
            home = Path(scratch) / f"store-{number}"
            engine = build(haystack, home, Run(), None, model_cache)
            fresh_units: dict[tuple[str, int], list[str]] = {}
            mapper = UnitMapper(home, haystack.turns)
            for state in STATES:
                year_later = int(time.time() * 1000) + YEAR_MS
                if state == "aged":
                    engine.introspect(steps=["cooldown"], now=year_later)
                elif state == "aged, forget on":
                    engine.introspect(steps=["cooldown", "forget"], now=year_later)
                tiers = _tiers(engine)
                cards[state].append(sum(tiers.values()))
                cold[state].append(tiers.get("COLD", 0))
                with served(engine):
                    for mode, request in MODES.items():
                        for number_asked, question in enumerate(haystack.questions):
                            nodes = engine.recall({"text": question.text, "max_results": TOP,
                                                   **request}).to_json()["nodes"]
                            scored = Scored(question, [mapper.unit(node) for node in nodes])
                            recall.setdefault((state, mode), []).append(scored.recall(TOP))
                            units = [node["card_id"] for node in nodes]
                            if state == "fresh":
                                fresh_units[(mode, number_asked)] = units
                            same.setdefault((state, mode), []).append(units == fresh_units[(mode, number_asked)])
            del engine
            gc.collect()
    rows = []
    for mode in MODES:
        fresh = statistics.mean(recall[("fresh", mode)])
        for state in STATES:
            value = statistics.mean(recall[(state, mode)])
            change = "" if state == "fresh" else (
                f"; {value - fresh:+.3f} against fresh (target within 0.02); the same ten units in the same order "
                f"for {statistics.mean(same[(state, mode)]):.0%} of questions")
            rows.append(Row(NAME, f"{label} {state}: evidence recall@10 — {mode}", value, "recall",
                            f"{len(recall[(state, mode)])} questions{change}"))
    for state in STATES:
        rows.append(Row(NAME, f"{label} {state}: cards left, COLD among them", sum(cards[state]), "cards",
                        f"COLD {sum(cold[state])} ({100 * sum(cold[state]) / max(1, sum(cards[state])):.0f}%), "
                        f"{len(haystacks)} stores"))
    return rows


def _tiers(engine) -> dict[str, int]:
    """Cards per tier."""
    with engine.step() as graph:
        return dict(graph.query("MATCH (c:Card) RETURN c.tier, count(*)"))
