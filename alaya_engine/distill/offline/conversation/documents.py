"""Documents a person pasted into a conversation: an article, notes, a letter, kept as they were written.

A pasted text is not about its sender, so the fact reader finds little in it, yet it is exactly what the person
will ask about later. A long turn of several sentences or paragraphs, mostly not in the first person, is taken
for a document and kept whole (up to ``CONTENT_LIMIT``), titled by its first line.
"""

from __future__ import annotations

from datetime import date

from ....foundations.domain import Session
from ..candidate import TITLE_LIMIT, Candidate
from ..cues import FIRST_PERSON, ZH_FIRST_PERSON
from ..text.chinese import is_chinese
from ..text.markdown import strip_markdown
from ..text.overlap import content_words
from ..text.sentences import split_sentences
from ..text.tags import keywords
from ..text.titles import shorten, title_width
from ..text.words import unique
from ..turns import is_ai, other_than, speaker_name
from .card import said_when

MIN_WIDTH = 400
"""Width (``title_width``: a CJK character counts 7/3) from which a turn may be a pasted document."""
MIN_SENTENCES = 5
FIRST_PERSON_SHARE = 0.3
"""A long turn with more first-person sentences than this is someone telling their story: the fact reader's."""
CONTENT_LIMIT = 1400


def document_candidates(session: Session, names: list[str], today: date) -> list[Candidate]:
    candidates = []
    for index, turn in enumerate(session.turns):
        if turn.role not in ("user", "assistant") or is_ai(turn) or not is_document(turn.content):
            continue
        sender = speaker_name(turn)
        listener = other_than(names, sender)
        text = turn.content.strip()
        chinese = is_chinese(text)
        heading = shorten(_first_line(text), TITLE_LIMIT - title_width(sender) - 10)
        title = f"{sender}分享的资料：{heading}" if chinese else f"{sender} shared: {heading}"
        candidates.append(Candidate(
            type="concept", title=title,
            content=f"{text[:CONTENT_LIMIT].rstrip()}\n\n{said_when(sender, listener, today, chinese)}",
            tags=unique([sender, *keywords(text, 6)])[:6], importance=0.6, turns=[index], order=(index, 0),
            words=content_words(text), body=text, chinese=chinese))
    return candidates


def _first_line(text: str) -> str:
    """The document's own first line, past an introduction such as "Here are my notes:"."""
    lines = [strip_markdown(line) for line in text.splitlines() if line.strip()]
    return next((line for line in lines if not line.endswith((":", "："))), lines[0])


def is_document(text: str) -> bool:
    """Long, several sentences or paragraphs, and mostly not about the sender."""
    if title_width(text) < MIN_WIDTH:
        return False
    sentences = split_sentences(strip_markdown(text))
    if len(sentences) < MIN_SENTENCES and text.count("\n\n") < 2:
        return False
    personal = sum(1 for sentence in sentences if FIRST_PERSON.search(sentence) or ZH_FIRST_PERSON.search(sentence))
    return personal / max(1, len(sentences)) <= FIRST_PERSON_SHARE
