"""Search terms: the one tokenizer behind lexical search of raw turns, for Chinese and English alike.

LanceDB's own ``icu`` tokenizer found nothing for 我在读什么书 over a turn
that says 我最近在读《百年孤独》, so text is split here and indexed with the
whitespace tokenizer: CJK runs by jieba's search mode (a compound and its
parts: 百年孤独 → 百年 孤独 百年孤独), everything else as lower-case runs of
letters and digits. Index and query go through the same function, so the two
always agree.
"""

from __future__ import annotations

import re
from functools import lru_cache

_RUNS = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@lru_cache(maxsize=1)
def _jieba():
    """jieba with its dictionary loaded once (the first Chinese text pays ~1 s) and its start-up log quiet."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def term_list(text: str) -> list[str]:
    """The terms of ``text`` in order: jieba's search-mode words for CJK runs, lower-case words otherwise."""
    terms: list[str] = []
    for match in _RUNS.finditer(text):
        run = match.group()
        if _CJK.match(run):
            terms.extend(word for word in _jieba().lcut_for_search(run) if word.strip())
        else:
            terms.append(run.lower())
    return terms


def search_terms(text: str) -> str:
    """``text`` as space-separated terms: what the full-text index stores and what a query is matched with."""
    return " ".join(term_list(text))
