"""Retrieval on agentset: does recall lead back to the evidence turns, with windows of raw turns and with cards only?

One store of all 24 sessions (:mod:`bench.agentset_store`). Each of the 97 questions is asked as the quality
harness asks (``engine.recall({"text": question, "max_results": 10})``), then again with ``"include_sessions":
false`` (cards only): the second says what the distilled cards alone carry, the first what recall gives an
agent. Returned units are mapped to turns as in ``locomo_quality`` (a card through its context, a window through
its ``turn_range``: :class:`bench.quality.alaya.UnitMapper`) and scored by :class:`bench.quality.scoring.Scored`.

Rows per mode, per category (single, cross-lingual, update, multi-hop, contradiction) and overall: evidence
recall@10 (recall@5, hit@10 and the tokens returned in the note). For the 6 update questions, the share where
recall puts the new knowledge first: the best-ranked unit holding a turn of the current item ranks above the
best-ranked unit holding a turn of the stale one (a stale item not returned counts as below; a current item not
returned, or one unit holding both, does not count). ``--quick`` skips it unless named, then the first 6 sessions.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from alaya_engine.engine import Engine

from .agentset_store import agentset_store, dataset_for
from .plan import Plan
from .quality.agentset import GROUPS, Agentset, Update
from .quality.alaya import UnitMapper, served
from .quality.harness import TOP, Asked
from .quality.records import TurnKey
from .quality.scoring import Scored
from .report import Row, median_p95

NAME = "agentset_quality"
MODES = {"default": {}, "cards only": {"include_sessions": False}}
"""What each mode adds to the recall request."""


def run(plan: Plan) -> list[Row]:
    dataset = dataset_for(plan, NAME)
    if isinstance(dataset, Row):
        return [dataset]
    with agentset_store(plan, dataset) as (home, _built):
        return retrieval_rows(dataset, home)


def ask(dataset: Agentset, home: Path) -> tuple[list[Asked], list[float]]:
    """Every question under every mode, with the store held as the owner server holds it; and each recall's ms."""
    engine = Engine.open(home)
    mapper = UnitMapper(home, dataset.haystack.turns)
    asked = [Asked(question) for question in dataset.haystack.questions]
    spent = []
    with served(engine):
        for mode, request in MODES.items():
            for item in asked:
                started = time.perf_counter()
                nodes = engine.recall({"text": item.question.text, "max_results": TOP, **request}).to_json()["nodes"]
                spent.append((time.perf_counter() - started) * 1000)
                item.by_method[mode] = Scored(item.question, [mapper.unit(node) for node in nodes])
    return asked, spent


def first_rank(scored: Scored, turns: frozenset[TurnKey]) -> int | None:
    """The rank (from 1) of the first unit holding one of ``turns``; None when no returned unit does."""
    return next((rank for rank, unit in enumerate(scored.units, start=1) if unit.turns & turns), None)


def current_first(scored: Scored, update: Update) -> bool:
    """Whether the current item's best unit ranks above the stale item's (which may be absent)."""
    current, stale = first_rank(scored, update.current), first_rank(scored, update.stale)
    return current is not None and (stale is None or current < stale)


def retrieval_rows(dataset: Agentset, home: Path) -> list[Row]:
    asked, spent = ask(dataset, home)
    rows = []
    for mode in MODES:
        for group in GROUPS:
            ranked = [item.by_method[mode] for item in asked if group in item.question.groups]
            if ranked:
                rows.append(Row(NAME, f"agentset {group}: recall@10 — {mode}",
                                statistics.mean(scored.recall(TOP) for scored in ranked), "recall",
                                f"r@5 {statistics.mean(scored.recall(5) for scored in ranked):.3f}, "
                                f"hit@10 {statistics.mean(scored.hit(TOP) for scored in ranked):.3f}, "
                                f"{statistics.mean(len(scored.units) for scored in ranked):.1f} units, "
                                f"{statistics.mean(scored.tokens(TOP) for scored in ranked):.0f} tokens, "
                                f"{len(ranked)} questions"))
        rows.extend(_update_rows(mode, dataset, asked))
    return rows + _diagnostic_rows(asked, spent)


def _update_rows(mode: str, dataset: Agentset, asked: list[Asked]) -> list[Row]:
    by_qid = {item.question.qid: item.by_method[mode] for item in asked}
    ranks = [(first_rank(by_qid[update.qid], update.current), first_rank(by_qid[update.qid], update.stale))
             for update in dataset.updates]
    if not ranks:
        return []
    wins = sum(current_first(by_qid[update.qid], update) for update in dataset.updates)
    return [Row(NAME, f"agentset update: current item ranked above the stale one — {mode}", wins / len(ranks),
                "fraction", f"{wins} of {len(ranks)}; (current, stale) ranks: "
                            + ", ".join(f"({current or '-'}, {stale or '-'})" for current, stale in ranks))]


def _diagnostic_rows(asked: list[Asked], spent: list[float]) -> list[Row]:
    returned = [unit for item in asked for unit in item.by_method["default"].units]
    cards = sum(unit.kind == "card" for unit in returned)
    p50, p95 = median_p95(spent)
    columns = ["qid", "category", *(f"{mode} recall@10" for mode in MODES)]
    lines = ["\t".join([item.question.qid, item.question.groups[0],
                        *(f"{item.by_method[mode].recall(TOP):.3f}" for mode in MODES)]) for item in asked]
    return [
        Row(NAME, "agentset: units returned that are cards — default", cards / max(1, len(returned)), "fraction",
            f"{cards} of {len(returned)} units; the rest windows of raw turns"),
        Row(NAME, f"agentset: recall per question (in-process, store held, max_results {TOP})", p50, "ms p50",
            f"p95 {p95:.0f} ms, {len(spent)} recalls"),
        Row(NAME, "agentset: per-question results (JSON detail)", len(lines), "questions",
            "qid, category, recall@10 per mode", detail={"columns": columns, "rows": lines}),
    ]
