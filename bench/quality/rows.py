"""A run as report rows: per row group and method the scores at equal k and at equal tokens, then the
diagnostics of the stores, then one row carrying every question's result in its ``detail``.

Equal tokens, two ways:

- at Alaya's tokens: per question, each baseline's ranking is cut at the tokens Alaya returned for that question;
- within ten windows' tokens: every method cut at one budget per group, the mean tokens of the top-10 dense
  3-turn windows (Alaya's target: recall@10 >= 0.80 with no more tokens than that).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable

from ..report import Row, median_p95
from .baselines import METHODS
from .harness import ALAYA, ALL_METHODS, TOP, Asked, Run
from .scoring import Scored


def _mean(ranked: list[Scored], score: Callable[[Scored], float]) -> float:
    return statistics.mean(score(scored) for scored in ranked)


def group_rows(name: str, title: str, asked: list[Asked]) -> list[Row]:
    """The rows of one group of questions (``title`` names it)."""
    rows = []
    count = f"{len(asked)} questions"
    ranked = {method: [item.by_method[method] for item in asked] for method in ALL_METHODS}
    ten_windows = _mean(ranked["window dense"], lambda scored: scored.tokens(TOP))
    for method, scored in ranked.items():
        budget = f" (ten windows: {ten_windows:.0f})" if method == ALAYA else ""
        rows.append(Row(name, f"{title}: recall@10 — {method}", _mean(scored, lambda s: s.recall(TOP)), "recall",
                        f"r@5 {_mean(scored, lambda s: s.recall(5)):.3f}, "
                        f"hit@10 {_mean(scored, lambda s: s.hit(TOP)):.3f}, "
                        f"MRR@10 {_mean(scored, lambda s: s.rr(TOP)):.3f}, "
                        f"{_mean(scored, lambda s: s.tokens(TOP)):.0f} tokens{budget}, {count}"))
    alaya_tokens = [scored.tokens(TOP) for scored in ranked[ALAYA]]
    for method in METHODS:
        cut = [scored.within(budget) for scored, budget in zip(ranked[method], alaya_tokens)]
        rows.append(Row(name, f"{title}: recall at alaya's tokens — {method}",
                        statistics.mean(scored.recall(k) for scored, k in zip(ranked[method], cut)), "recall",
                        f"each question cut at the tokens Alaya returned for it (mean "
                        f"{statistics.mean(alaya_tokens):.0f}): {statistics.mean(cut):.1f} units kept, {count}"))
    for method, scored in ranked.items():
        rows.append(Row(name, f"{title}: recall within ten windows' tokens — {method}",
                        _mean(scored, lambda s: s.recall_within(ten_windows)), "recall",
                        f"budget {ten_windows:.0f} tokens: {_mean(scored, lambda s: s.within(ten_windows)):.1f} "
                        f"units kept, {count}"))
    return rows


def quality_rows(name: str, label: str, run: Run, groups: list[str]) -> list[Row]:
    """Every group's rows in the order given (groups no question belongs to are left out), then the diagnostics."""
    rows = []
    for group in groups:
        asked = [item for item in run.asked if group in item.question.groups]
        if asked:
            rows.extend(group_rows(name, f"{label} {group}", asked))
    return rows + diagnostic_rows(name, label, run) + [detail_row(name, label, run)]


def diagnostic_rows(name: str, label: str, run: Run) -> list[Row]:
    returned = [unit for item in run.asked for unit in item.by_method[ALAYA].units]
    kinds = Counter(unit.kind for unit in returned)
    missed = run.missed_in_no_card + run.missed_in_some_card
    rows = [
        Row(name, f"{label}: alaya units returned that are cards", kinds["card"] / max(1, len(returned)), "fraction",
            ", ".join(f"{kind} {count}" for kind, count in kinds.most_common()) +
            f"; {len(returned) / max(1, len(run.asked)):.1f} units per question (max {TOP}), "
            f"{statistics.mean([len(unit.turns) for unit in returned] or [0]):.2f} turns per unit"),
        Row(name, f"{label}: evidence turns inside any card (ceiling for cards)",
            run.evidence_in_cards / max(1, run.evidence_total), "fraction",
            f"{run.evidence_in_cards}/{run.evidence_total} evidence turns; cards cover "
            f"{run.turns_in_cards}/{run.turns} turns ({run.turns_in_cards / max(1, run.turns):.0%}); "
            f"{run.unknown_evidence} evidence ids naming no turn left out"),
        Row(name, f"{label}: alaya misses@10 whose evidence is in no card (distill, not recall)",
            run.missed_in_no_card / max(1, missed), "fraction",
            f"{run.missed_in_no_card} of {missed} questions without an evidence turn in Alaya's top 10 have none in "
            f"any card; {run.missed_in_some_card} have one in a card recall did not return"),
        Row(name, f"{label}: cards made", run.cards, "cards",
            f"{len(run.stores)} stores, {run.sessions} sessions, {run.turns} turns; "
            f"{statistics.mean(run.card_sizes or [0]):.2f} turns per card; {run.links} links"),
    ]
    p50, p95 = median_p95(run.build_s)
    rows.append(Row(name, f"{label}: ingest + distill per store", p50, "s p50",
                    f"p95 {p95:.1f} s, total {sum(run.build_s):.1f} s for {len(run.build_s)} stores"))
    p50, p95 = median_p95(run.init_s)
    rows.append(Row(name, f"{label}: Engine.init + open + embedder warm-up per store", p50, "s p50",
                    f"first {run.init_s[0]:.1f} s (later stores reuse its tokenizer cache), p95 {p95:.1f} s, "
                    f"total {sum(run.init_s):.1f} s"))
    rows.append(Row(name, f"{label}: baselines, embed turns, windows and questions",
                    run.embedded / run.embed_s if run.embed_s else None, "texts/s",
                    f"{run.embedded} texts not embedded earlier in this process, {run.embed_s:.1f} s"))
    p50, p95 = median_p95(run.recall_ms)
    rows.append(Row(name, f"{label}: alaya recall per question (in-process, store held, max_results {TOP})", p50,
                    "ms p50", f"p95 {p95:.0f} ms, {len(run.recall_ms)} questions, "
                              f"total {sum(run.recall_ms) / 1000:.1f} s"))
    rows.append(Row(name, f"{label}: whole benchmark", run.wall_s, "s",
                    f"{len(run.stores)} stores: {run.stores[0]} … {run.stores[-1]}"))
    return rows


def detail_row(name: str, label: str, run: Run) -> Row:
    """Every question's recall@10 and tokens under every method, one tab-separated line per question."""
    columns = ["qid"] + [f"{method} {measure}" for method in ALL_METHODS for measure in ("recall@10", "tokens")]
    lines = ["\t".join([item.question.qid] + [f"{item.by_method[method].recall(TOP):.3f}\t"
                                              f"{item.by_method[method].tokens(TOP)}" for method in ALL_METHODS])
             for item in run.asked]
    return Row(name, f"{label}: per-question results (JSON detail)", len(lines), "questions",
               "qid, then recall@10 and tokens per method", detail={"columns": columns, "rows": lines})
