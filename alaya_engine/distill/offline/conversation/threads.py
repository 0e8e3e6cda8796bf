"""A speaker's facts about one thing: same turn, a follow-up answer, or the same topic later."""

from __future__ import annotations

import re

from ....foundations.domain import Session
from ..text.overlap import content_words, overlap, shared_weight
from ..text.sentences import split_sentences
from .facts import FACT_THRESHOLD, IMAGE, Fact


def fact_threads(facts: list[Fact], session: Session) -> list[list[Fact]]:
    """A speaker's facts about one thing, up to four: same turn, a follow-up answer, or the same topic later.

    Only a clear fact starts a card; a weaker sentence may only add detail to one.
    """
    threads: list[list[Fact]] = []
    for fact in facts:
        thread = _thread_for(fact, threads, session)
        if thread is None and fact.score >= FACT_THRESHOLD:
            threads.append([fact])
        elif thread is not None and len(thread) < 4:
            thread.append(fact)
    return threads


def _thread_for(fact: Fact, threads: list[list[Fact]], session: Session) -> list[Fact] | None:
    words = content_words(fact.sentence) - {fact.speaker.lower()}
    for thread in reversed(threads):
        if thread[0].speaker != fact.speaker:
            continue
        last = thread[-1]
        if fact.turn == last.turn or (fact.turn - last.turn == 2 and _follow_up(session, last)):
            return thread
        topic = content_words(" ".join(f.sentence for f in thread)) - {fact.speaker.lower()}
        if shared_weight(words, topic) >= 2 or overlap(words, topic) >= 0.34:
            return thread
    return None


def _follow_up(session: Session, last: Fact) -> bool:
    """The other person's reply after ``last`` asks about it ("What happened there?", "Did it…?")."""
    reply = IMAGE.sub("", session.turns[last.turn + 1].content)
    questions = " ".join(sentence for sentence in split_sentences(reply) if sentence.endswith(("?", "？")))
    if not questions:
        return False
    refers = re.search(r"\b(it|this|there|them|those|these)\b|它|这|那", questions.lower()) is not None
    return refers or bool(content_words(questions) & content_words(last.sentence))
