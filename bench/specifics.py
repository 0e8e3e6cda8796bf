"""The specifics of a statement, and whether a text keeps them: a mechanical test that a card says what an item says.

A card can share an item's turns and still lose what makes the item worth remembering: the number, the time, the
host, the person. Those are the words counted here, so the test needs no judge:

- in Latin script, a word (letters and digits, joined by ``. _ : / -``: ``pg-main-02``, ``07:45``,
  ``Money.round``, ``src/billing/money.py``) is a specific when it holds a digit (numbers, times, dates,
  versions), one of those joiners or a lower-to-upper case change (identifiers: ``orders-api``, ``pool_size``,
  ``SQLAlchemy``), or when it is capitalised, two letters or more, and does not start a sentence (names:
  ``Marco``, ``Postgres``, ``UTC``, ``Feb``);
- in Chinese, a word of two characters or more that jieba tags as a name (part of speech ``nr`` person, ``ns``
  place, ``nt`` organisation, ``nz`` other proper noun); digits are Latin-script words already.

A text keeps a specific when it holds it after NFKC normalisation and case folding: a Latin-script specific as a
whole word (not inside a longer run of letters, digits or ``_``, so ``20`` is not found in ``2026``), a number
also with leading zeros or an ordinal ending (``9`` in ``2026-03-09``, ``27`` in ``the 27th``: the distiller
writes dates out), a Chinese specific anywhere.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

_LETTERS = "0-9A-Za-z\u00c0-\u024f"
_WORD = re.compile(f"[{_LETTERS}]+(?:[._:/-][{_LETTERS}]+)*")
_JOINED = re.compile(r"[._:/-]")
_CAMEL = re.compile(r"[a-z][A-Z]")
_SENTENCE_END = re.compile(r"(?:^|[.!?。！？])\s*$")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD_CHARS = "0-9a-z_\u00df-\u024f"
NAME_TAGS = ("nr", "ns", "nt", "nz")


@lru_cache(maxsize=1)
def _posseg():
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    return jieba.posseg


def specifics(statement: str) -> list[str]:
    """The statement's specifics in order of appearance, each once."""
    found = []
    for match in _WORD.finditer(statement):
        word = match.group()
        starts_sentence = _SENTENCE_END.search(statement[:match.start()]) is not None
        if (any(char.isdigit() for char in word) or _JOINED.search(word) or _CAMEL.search(word)
                or (word[0].isupper() and len(word) > 1 and not starts_sentence)):
            found.append(word)
    if _HAN.search(statement):
        found.extend(word for word, tag in _posseg().cut(statement)
                     if tag.startswith(NAME_TAGS) and len(_HAN.findall(word)) >= 2)
    return list(dict.fromkeys(found))


def normalised(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def holds(text: str, specific: str) -> bool:
    """Whether ``text`` (already :func:`normalised`) holds ``specific``."""
    specific = normalised(specific)
    if _HAN.search(specific):
        return specific in text
    pattern = f"0*{specific}(?:st|nd|rd|th)?" if specific.isdigit() else re.escape(specific)
    return re.search(f"(?<![{_WORD_CHARS}]){pattern}(?![{_WORD_CHARS}])", text) is not None


def kept(specifics: Iterable[str], text: str) -> int:
    """How many of the specifics ``text`` holds."""
    text = normalised(text)
    return sum(holds(text, specific) for specific in specifics)


def enough(kept_count: int, total: int, share: float) -> bool:
    """At least ``share`` of ``total`` kept, rounded up (an item with no specifics needs none)."""
    return kept_count >= math.ceil(share * total - 1e-9)
