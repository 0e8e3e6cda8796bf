"""Telling Chinese text from English, and jieba (Chinese word splitting), loaded once and quiet."""

from __future__ import annotations

import re
from functools import lru_cache

CJK = re.compile(r"[\u3400-\u9fff]")
LETTER = re.compile(r"[^\W\d_]")
"""A letter of any script (counted in C: a Python loop over every character cost 4% of a distillation)."""
WORD_TOKEN = re.compile(r"[\w'’]+")
BOOK_TITLE = re.compile(r"《[^《》]{1,30}》")
ZH_NAME_TAGS = ("nr", "ns", "nz", "nt", "nrt", "nrfg")
"""jieba's part-of-speech tags for names of people, places, organisations and other proper nouns."""


def is_chinese(text: str, share: float = 0.3) -> bool:
    """Chinese enough (CJK share of letters) that labels and word splitting should be Chinese."""
    letters = len(LETTER.findall(text))
    return letters > 0 and len(CJK.findall(text)) / letters > share


@lru_cache(maxsize=1)
def quiet_jieba() -> None:
    """Load jieba's dictionary once (the first Chinese text pays for it), without its start-up log."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


def words_of(text: str) -> list[str]:
    """The words of a sentence: jieba words for Chinese (an unspaced sentence is many words), else ``[\\w']+``."""
    if not CJK.search(text):
        return WORD_TOKEN.findall(text)
    import jieba

    quiet_jieba()
    return [word for word in jieba.cut(text) if WORD_TOKEN.fullmatch(word)]


def chinese_names(text: str) -> list[str]:
    """Titles in 《》 and the names jieba tags (people, places, organisations), two characters or more."""
    return [name for name, _ in tagged_chinese_names(text)]


@lru_cache(maxsize=4096)
def tagged_chinese_names(text: str) -> tuple[tuple[str, str], ...]:
    """:func:`chinese_names` with jieba's tag of each (``book`` for a title in 《》). Cached: jieba's part-of-speech
    pass is the slow part of reading names (~1 ms for a card), and a card's text is read by distill, by its
    entities and by introspect."""
    import jieba.posseg

    quiet_jieba()
    names = [(title, "book") for title in BOOK_TITLE.findall(text)]
    plain = BOOK_TITLE.sub("，", text)
    names.extend((pair.word, pair.flag) for pair in jieba.posseg.cut(plain)
                 if pair.flag in ZH_NAME_TAGS and len(pair.word) >= 2)
    return tuple(names)
