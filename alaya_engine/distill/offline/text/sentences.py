"""Splitting English or Chinese text into sentences, and joining them back."""

from __future__ import annotations

import re

from .markdown import INLINE_CODE
from .memo import within_session

ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "Mr.", "Mrs.", "Ms.", "Dr.", "St.", "No.", "approx.")
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!/\.\.\.)\s+(?=\S)|(?<=[。！？!?；])|\n+")
"""A stop, then space: a sentence ends. Not after a path's ``/...`` (Go's ``./...``, said in prose once the code's
backticks are gone)."""
UNMARKED_QUESTION = re.compile(r"(?:吗|怎么办|怎么样|咋办|咋整|为什么|为啥|是不是|对不对|好不好|行不行)[。.!！~～\s]*$")
"""A Chinese question typed without its mark, as chat often is ("原来是这个。那怎么办", "这样可以吗")."""


@within_session
def split_sentences(text: str) -> list[str]:
    """Sentences of English or Chinese text; inline code and abbreviations never split one."""
    protected: list[str] = []

    def protect(match: re.Match) -> str:
        protected.append(match.group(0))
        return f"\x00{len(protected) - 1}\x00"

    masked = INLINE_CODE.sub(protect, text)
    for abbreviation in ABBREVIATIONS:
        masked = masked.replace(abbreviation, abbreviation.replace(".", "\x01"))
    sentences: list[str] = []
    carry = ""
    for piece in SENTENCE_END.split(masked):
        piece = re.sub(r"\x00(\d+)\x00", lambda m: protected[int(m.group(1))], piece).replace("\x01", ".").strip()
        if re.fullmatch(r"\d+[.)]|[-*•]", piece):
            carry = f"{carry}{piece} "
        elif piece:
            sentences.append(carry + piece)
            carry = ""
    return sentences


def is_question(sentence: str) -> bool:
    """A sentence that asks: its question mark, or a Chinese question word ending it without one."""
    plain = sentence.rstrip()
    return plain.endswith(("?", "？")) or UNMARKED_QUESTION.search(plain) is not None


def join_sentences(sentences: list[str]) -> str:
    """Sentences back into a paragraph: a space after English ones, none after Chinese punctuation."""
    text = ""
    for sentence in sentences:
        text += sentence if not text or text.endswith(("。", "！", "？", "；", "：")) else " " + sentence
    return text
