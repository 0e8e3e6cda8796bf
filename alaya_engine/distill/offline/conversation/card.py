"""One card per thread of facts: third-person statements, the question they answer, a dated title."""

from __future__ import annotations

import re
from datetime import date

from ....domain import Session
from ..candidate import TITLE_LIMIT, Candidate
from ..cues import ANAPHORA, DECIDED_CUES
from ..text.cue_match import has_cue
from ..text.dates import compact_date, long_date, resolve_dates, strip_dates
from ..text.overlap import content_words
from ..text.sentences import split_sentences
from ..text.tags import english_keywords
from ..text.titles import shorten
from ..text.words import unique
from ..turns import speaker_name
from .facts import FACT_THRESHOLD, IMAGE, Fact, fact_score, without_interjection
from .third_person import third_person


def fact_card(thread: list[Fact], names: list[str], session: Session, today: date) -> Candidate:
    speaker = thread[0].speaker
    listener = next((name for name in names if name != speaker), "")
    statements = " ".join(_capitalise(resolve_dates(third_person(fact.sentence, speaker), today)[0])
                          for fact in thread)
    said = f"{speaker}, talking with {listener} on {long_date(today)}." if listener else \
        f"{speaker}, on {long_date(today)}."
    card_type = "decision" if any(has_cue(fact.sentence, DECIDED_CUES) for fact in thread) else "concept"
    turns = [fact.turn for fact in thread] + [fact.asked_by for fact in thread if fact.asked_by is not None]
    return Candidate(
        type=card_type, title=_fact_title(thread, speaker, today),
        content=f"{_question_context(thread[0], session, names)}{statements}\n\n({said})",
        tags=_fact_tags(speaker, thread), importance=min(0.9, 0.3 + 0.1 * sum(fact.score for fact in thread)),
        turns=turns, order=(thread[0].turn, 0), words=content_words(" ".join(f.sentence for f in thread)),
        body=statements,
    )


def _question_context(first: Fact, session: Session, names: list[str]) -> str:
    """The question a fact answers, when the fact leans on it ("It was…", "I started a few days ago")."""
    if first.asked_by is None or not (ANAPHORA.match(first.sentence) or len(first.sentence) < 60):
        return ""
    asking = session.turns[first.asked_by]
    questions = [q for q in split_sentences(IMAGE.sub("", asking.content)) if q.endswith("?")]
    if not questions:
        return ""
    return f"{speaker_name(asking)} asked: “{without_interjection(questions[-1], names)}” "


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fact_title(thread: list[Fact], speaker: str, today: date) -> str:
    """The most telling statement, shortened, with a relative date moved to the end as an absolute one."""
    best = max(thread, key=lambda fact: fact.score - (1.5 if ANAPHORA.match(fact.sentence) else 0))
    statement = _capitalise(third_person(_best_clause(best.sentence), speaker))
    _, dates = resolve_dates(statement, today)
    suffix = f" ({compact_date(dates[0])})" if dates else ""
    limit = max(48, TITLE_LIMIT - len(suffix))
    core = shorten(_capitalise(strip_dates(statement)), limit)
    if speaker not in core:
        core = shorten(f"{speaker}: {core}", limit)
    return core + suffix


def _best_clause(sentence: str) -> str:
    """'Life's been tough - my son hurt his ankle' → 'my son hurt his ankle': the clause that says most."""
    clauses = [clause for clause in re.split(r"\s[-–—]\s|;\s", sentence) if len(clause.split()) >= 4]
    scored = [(fact_score(clause), -index, clause) for index, clause in enumerate(clauses)]
    best = max(scored, default=(0.0, 0, sentence))
    return best[2] if best[0] >= FACT_THRESHOLD else sentence


def _fact_tags(speaker: str, thread: list[Fact]) -> list[str]:
    text = strip_dates(" ".join(fact.sentence for fact in thread))
    return unique([speaker, *english_keywords(text, 6)])[:6]
