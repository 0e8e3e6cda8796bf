"""Telling Chinese text from English, and jieba (Chinese word splitting), loaded once and quiet."""

from __future__ import annotations

import re
from functools import lru_cache

from .memo import within_session

CJK = re.compile(r"[\u3400-\u9fff]")
LETTER = re.compile(r"[^\W\d_]")
"""A letter of any script (counted in C: a Python loop over every character cost 4% of a distillation)."""
WORD_TOKEN = re.compile(r"[\w'’]+")
BOOK_TITLE = re.compile(r"《[^《》]{1,30}》")
CLAUSE_BREAK = re.compile(r"[，。！？；：、\n]+")
"""Punctuation jieba's segmentation never joins across (it cuts its input at every character outside Han, Latin
letters, digits and ``+#&._%-``): segmenting clause by clause gives the same words."""
NUMBER_WORD = re.compile(r"[.0-9]+")
LATIN_OR_DIGIT = re.compile(r"[a-zA-Z0-9]")
"""How jieba's tagger tells a number (``m``) and a Latin word (``eng``) from other symbols."""
ZH_NAME_TAGS = ("nr", "ns", "nz", "nt", "nrt", "nrfg")
"""jieba's part-of-speech tags for names of people, places, organisations and other proper nouns."""


@within_session
def is_chinese(text: str, share: float = 0.3) -> bool:
    """Chinese enough (CJK share of letters) that labels and word splitting should be Chinese."""
    letters = len(LETTER.findall(text))
    return letters > 0 and len(CJK.findall(text)) / letters > share


def written_in_chinese(session_chinese: bool, said: str) -> bool:
    """Whether a card's labels are Chinese: when its session's people talk Chinese (:func:`..turns.speaks_chinese`),
    or when what the card says is Chinese: a Chinese answer in a session whose user wrote mostly in English read
    "**Cause:** 那条规矩是针对 gateway restart 的…"."""
    return session_chinese or is_chinese(said)


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
def tagged_chinese_names(text: str, fast: bool = False) -> tuple[tuple[str, str], ...]:
    """:func:`chinese_names` with jieba's tag of each (``book`` for a title in 《》), cached.

    ``fast``: split with jieba's plain segmentation and take each word's tag from its dictionary, running the
    part-of-speech model only on a word the dictionary lacks (a name its segmentation found: 王峰); the whole
    part-of-speech pass took 5.4 ms for a demo card, this 1.2 ms, for the same names but a few (see
    docs/architecture.md, "Entities")."""
    quiet_jieba()
    names = [(title, "book") for title in BOOK_TITLE.findall(text)]
    plain = BOOK_TITLE.sub("，", text)
    if fast:
        return tuple(names) + tuple(pair for clause in CLAUSE_BREAK.split(plain) if CJK.search(clause)
                                    for pair in _fast_clause_names(clause))
    import jieba.posseg

    names.extend((pair.word, pair.flag) for pair in jieba.posseg.cut(plain)
                 if pair.flag in ZH_NAME_TAGS and len(pair.word) >= 2)
    return tuple(names)


def _fast_clause_names(clause: str) -> tuple[tuple[str, str], ...]:
    """The fast path of :func:`tagged_chinese_names` for one clause."""
    return tuple((word, flag) for word, flag in tagged_clause(clause) if flag in ZH_NAME_TAGS and len(word) >= 2)


@lru_cache(maxsize=65536)
def tagged_clause(clause: str) -> tuple[tuple[str, str], ...]:
    """Each word of one clause with its part of speech: jieba's segmentation, the dictionary's tag, the tagger only
    for a word the dictionary lacks (read alone, remembered), ``eng`` for Latin words and ``m`` for numbers, as
    jieba's tagger says them. Its tagger over whole texts ran its model on every stretch the dictionary could not
    split, most of the tagging's time; cached per clause, since texts repeat their clauses (a card quotes its
    session, a session repeats itself, a synthetic store its templates) far more than whole texts."""
    import jieba
    import jieba.posseg

    quiet_jieba()
    tags = jieba.posseg.dt.word_tag_tab
    return tuple((word, tags.get(word) or _word_tag(word) if CJK.search(word) else
                  "m" if NUMBER_WORD.match(word) else "eng" if LATIN_OR_DIGIT.match(word) else "x")
                 for word in jieba.cut(clause))


@lru_cache(maxsize=16384)
def _word_tag(word: str) -> str:
    """The part-of-speech tag jieba gives a word it does not know, read alone (one tag: the word is kept whole)."""
    import jieba.posseg

    pairs = list(jieba.posseg.cut(word))
    return pairs[0].flag if len(pairs) == 1 else "x"
