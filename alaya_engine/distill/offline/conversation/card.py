"""One card per thread of facts: third-person statements, the question they answer, a dated title."""

from __future__ import annotations

import re
from datetime import date

from ....foundations.domain import Session, Turn
from ..candidate import TITLE_LIMIT, Candidate
from ..cues import ANAPHORA, DECIDED_CUES, UNDECIDED, ZH_INTERJECTION
from ..text.chinese import is_chinese, words_of
from ..text.cue_match import has_cue
from ..text.dates import chinese_long_date, compact_date, long_date, resolve_dates, strip_dates
from ..text.overlap import content_words
from ..text.sentences import join_sentences, split_sentences
from ..text.tags import keywords
from ..text.titles import shorten, title_width
from ..text.words import unique
from ..turns import ROLE_NAMES, chinese_name, is_role_name, named_in, other_than, speaker_name
from .facts import FACT_THRESHOLD, IMAGE, Fact, fact_score, without_interjection
from .third_person import third_person


def fact_card(thread: list[Fact], names: list[str], session: Session, today: date) -> Candidate:
    speaker = thread[0].speaker
    listener = other_than(names, speaker)
    chinese = is_chinese(" ".join(fact.sentence for fact in thread))
    statements = join_sentences([_capitalise(resolve_dates(third_person(fact.sentence, speaker), today)[0])
                                 for fact in thread])
    card_type = "decision" if any(has_cue(fact.sentence, DECIDED_CUES) and not UNDECIDED.search(fact.sentence)
                                  for fact in thread) else "concept"
    turns = [fact.turn for fact in thread] + [fact.asked_by for fact in thread if fact.asked_by is not None]
    return Candidate(
        type=card_type, title=_fact_title(thread, speaker, today, chinese),
        content=f"{question_context(thread[0], session, names)}{statements}\n\n"
                f"{said_when(speaker, listener, today, chinese)}",
        tags=_fact_tags(speaker, thread), importance=min(0.9, 0.3 + 0.1 * sum(fact.score for fact in thread)),
        turns=turns, order=(thread[0].turn, 0), words=content_words(" ".join(f.sentence for f in thread)),
        body=statements, chinese=chinese,
    )


def said_when(speaker: str, listener: str, today: date, chinese: bool) -> str:
    """Who said it, to whom and when: '(Ann, talking with Bob on 7 May 2023.)', '（孙悦，2023年4月27日与AI…）';
    someone known only by role: '(said by the user on 1 December 2025.)'."""
    speaker, listener = named_in(speaker, chinese), named_in(listener, chinese)
    if chinese:
        return f"（{speaker}，{chinese_long_date(today)}与{listener}聊天时说的。）" if listener else \
            f"（{speaker}，{chinese_long_date(today)}。）"
    if speaker in ROLE_NAMES:
        return f"(said by {speaker[:1].lower()}{speaker[1:]} on {long_date(today)}.)"
    return f"({speaker}, talking with {listener} on {long_date(today)}.)" if listener else \
        f"({speaker}, on {long_date(today)}.)"


def question_context(first: Fact, session: Session, names: list[str]) -> str:
    """The question a fact answers, when the fact leans on it ("It was…", "I started a few days ago")."""
    if first.asked_by is None or not (ANAPHORA.match(first.sentence) or title_width(first.sentence) < 60):
        return ""
    return quoted_question(session.turns[first.asked_by], names)


def quoted_question(asking: Turn, names: list[str]) -> str:
    """The last question of a turn, quoted with who asked it: 'Bob asked: “…?” ', 'AI问：“…？”'."""
    questions = [q for q in split_sentences(IMAGE.sub("", asking.content)) if q.endswith(("?", "？"))]
    if not questions:
        return ""
    question = without_interjection(questions[-1], names)
    if is_chinese(question):
        return f"{speaker_name(asking)}问：“{question}”"
    return f"{speaker_name(asking)} asked: “{question}” "


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fact_title(thread: list[Fact], speaker: str, today: date, chinese: bool) -> str:
    """The most telling statement, shortened, with a relative date moved to the end as an absolute one."""
    best = max(thread, key=lambda fact: fact.score - (1.5 if ANAPHORA.match(fact.sentence) else 0))
    statement = _capitalise(third_person(_best_clause(best.sentence), speaker))
    _, dates = resolve_dates(best.sentence, today)
    date_mark = compact_date(dates[0]) if dates else ""
    suffix = (f"（{date_mark}）" if chinese else f" ({date_mark})") if date_mark else ""
    limit = max(48, TITLE_LIMIT - title_width(suffix))
    core = shorten(_capitalise(strip_dates(statement)), limit)
    if speaker.lower() not in core.lower() and chinese_name(speaker) not in core:
        core = shorten(f"{speaker}：{core}" if chinese else f"{speaker}: {core}", limit)
    return core + suffix


def _best_clause(sentence: str) -> str:
    """'Life's been tough - my son hurt his ankle' → 'my son hurt his ankle': the clause that says most.

    A Chinese sentence runs on through commas (…，我跟朋友去看了一场电影，…), so its clauses are comma-separated.
    """
    breaks = r"[，,；;]" if is_chinese(sentence) else r"\s[-–—]\s|;\s"
    clauses = [clause for clause in re.split(breaks, sentence) if len(words_of(clause)) >= 4]
    scored = [(fact_score(clause), -index, clause) for index, clause in enumerate(clauses)]
    best = max(scored, default=(0.0, 0, sentence))
    return ZH_INTERJECTION.sub("", best[2]) if best[0] >= FACT_THRESHOLD else sentence


def _fact_tags(speaker: str, thread: list[Fact]) -> list[str]:
    text = strip_dates(" ".join(fact.sentence for fact in thread))
    return unique([*([] if is_role_name(speaker) else [speaker]), *keywords(text, 6)])[:6]
