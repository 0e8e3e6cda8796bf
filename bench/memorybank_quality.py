"""Retrieval quality on MemoryBank, in Chinese and in English: everyday chats with an AI companion, asked back.

MemoryBank-SiliconFriend's 15 users each chat with an AI companion over 10 days (hobbies, books, films, plans);
its probing questions ask what a memory must keep ("which science-fiction film did I recommend to you?"). 92 of
the 100 carry hand-labelled evidence turns. Per user a fresh store holds that user's sessions only (the
``haystack``), asked that user's questions, once for the Chinese bank and once for its English translation (two
row groups). Chinese is what LoCoMo cannot test: the lexical baselines split it with jieba.

Methods, metrics and diagnostics are LoCoMo's (see :mod:`bench.locomo_quality` and :mod:`bench.quality`). 92
questions is small (±8 points at 95%): compare methods on a whole group, never tune on single questions.

Read from ``../shared/data/memorybank/`` or ``$ALAYA_MEMORYBANK`` (MIT), never copied; without it one row says
so. The full run: 15 users in each language; ``--quick`` skips it unless named with ``--only``, then 4 users.
"""

from __future__ import annotations

from .plan import Plan
from .quality import memorybank
from .quality.benchmark import Yardstick, run_quality
from .report import Row

NAME = "memorybank_quality"
QUICK_USERS = 4


def _load(quick: bool):
    limit = QUICK_USERS if quick else None
    return [haystack for language in memorybank.LANGUAGES for haystack in memorybank.monolingual(language, limit)]


def run(plan: Plan) -> list[Row]:
    groups = [memorybank.monolingual_group(language) for language in memorybank.LANGUAGES]
    return run_quality(plan, Yardstick(NAME, "MemoryBank", groups, _load, f"{QUICK_USERS} users per language"))
