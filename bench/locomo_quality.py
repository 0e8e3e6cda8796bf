"""Retrieval quality on LoCoMo: does Alaya lead back to the turns that hold the answer, and at what cost in tokens?

For each LoCoMo conversation a fresh store is built from that conversation's sessions only (default config:
offline distiller, bundled embedder): ``Engine.init``, ``Engine.open``, ``ingest``, ``distill``. Every question
of categories 1–4 that has evidence is asked with ``engine.recall({"text": question, "max_results": 10})``; each
returned unit is mapped to the turns it covers (a card through its context file, a window of raw turns through
its session and turn range). The same sessions are ranked by four baselines: BM25 and dense retrieval (the
store's own embedder) over raw turns and over 3-turn windows (stride 2).

Per category and overall, for each method: evidence recall@5 and @10, hit@10, MRR@10 and the tokens returned;
then recall at equal tokens: each baseline cut per question at the tokens Alaya returned, and every method cut
at the budget of ten 3-turn windows (Alaya's target: recall@10 >= 0.80 within it). Diagnostics: the share of
evidence turns inside any card (the ceiling for cards), Alaya's misses whose evidence no card holds (distill, not
recall), cards made, the kinds of units returned, and timings. The harness is :mod:`bench.quality`, which says
how each number is computed.

Then, on the same stores, cards only against windows only within 500 tokens a question: each question asked again
with ``"include_sessions": false`` and with the cards of a recall dropped, both cut at the budget and scored the
same way, overall and per category, with their ratio (:mod:`bench.quality.cards_vs_windows` says why this is the
fair pair).

Evidence ids that name no turn of the conversation (2 in the data) are left out of the denominator. LoCoMo
(CC BY-NC) is read from ``../shared/data/locomo/`` (or ``$ALAYA_LOCOMO``) and never copied; without it this
benchmark prints one row saying so. The full run: all 10 conversations; ``--quick`` skips it (one row saying so)
unless it is named with ``--only``, then the first 2 conversations.
"""

from __future__ import annotations

from .plan import Plan
from .quality import locomo
from .quality.benchmark import Yardstick, run_quality
from .report import Row

NAME = "locomo_quality"
QUICK_CONVERSATIONS = 2
CARDS_VS_WINDOWS_BUDGET = 500


def run(plan: Plan) -> list[Row]:
    return run_quality(plan, Yardstick(NAME, "LoCoMo", locomo.GROUPS,
                                       lambda quick: locomo.haystacks(QUICK_CONVERSATIONS if quick else None),
                                       f"{QUICK_CONVERSATIONS} conversations", CARDS_VS_WINDOWS_BUDGET))
