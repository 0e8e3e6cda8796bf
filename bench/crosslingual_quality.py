"""Cross-lingual retrieval quality: Chinese questions over an English memory and English over Chinese, with
distractors in the question's language.

MemoryBank's English bank is a translation of its Chinese one (same users, days and exchange ids), so a user's
question in one language has labelled evidence in the other. Per user N and direction, a fresh store holds user
N's sessions in the memory's language plus the sessions of three other users (N+1..N+3, wrapping) in the
question's language: a method that matches on language rather than meaning finds the distractors first, which
is what a bilingual user's real memory would tempt it with. Evidence: user N's labelled turns from the memory
language's question file. The lexical baselines are kept for honesty (BM25 cannot cross languages, except through
shared names and numbers); the dense ones use the store's multilingual embedder.

Methods, metrics and diagnostics are LoCoMo's (see :mod:`bench.locomo_quality` and :mod:`bench.quality`); the
data and the store's make-up are described in :mod:`bench.quality.memorybank`. ``--quick`` skips it unless named
with ``--only``, then 4 users per direction.
"""

from __future__ import annotations

from .plan import Plan
from .quality import memorybank
from .quality.benchmark import Yardstick, run_quality
from .report import Row

NAME = "crosslingual_quality"
QUICK_USERS = 4
DIRECTIONS = (("cn", "en"), ("en", "cn"))
"""(question language, memory language)."""


def _load(quick: bool):
    limit = QUICK_USERS if quick else None
    return [haystack for asked, memory in DIRECTIONS for haystack in memorybank.crosslingual(asked, memory, limit)]


def run(plan: Plan) -> list[Row]:
    groups = [memorybank.crosslingual_group(asked, memory) for asked, memory in DIRECTIONS]
    return run_quality(plan, Yardstick(NAME, "cross-lingual", groups, _load, f"{QUICK_USERS} users per direction"))
