"""Sentences that say something about their speaker, scored: events and dates count most, small talk nothing.

English and Chinese sentences are scored the same way with their own cue lists. Chinese needs two things
English does not: words come from jieba (an unspaced sentence is many words, not one), and a sentence may
drop its subject ("上周末去了云台山"), so a statement with no other person as subject counts as the speaker's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....foundations.domain import Session
from ..cues import (
    EVENT_CUES,
    FACT_ANAPHORA,
    FIRST_PERSON,
    INTERJECTION,
    PERSONAL_CUES,
    PLAN_CUES,
    PREFERENCE_CUES,
    SECOND_PERSON,
    SMALL_TALK,
    STATE_CUES,
    ZH_EVENT_CUES,
    ZH_FIRST_PERSON,
    ZH_INTERJECTION,
    ZH_OTHER_SUBJECT,
    ZH_PERSONAL_CUES,
    ZH_PLAN_CUES,
    ZH_PREFERENCE_CUES,
    ZH_SMALL_TALK,
    ZH_STATE_CUES,
)
from ..text.chinese import CJK, chinese_names, words_of
from ..text.cue_match import find_cues, has_cue
from ..text.dates import RELATIVE_DATE, ZH_RELATIVE_DATE
from ..text.sentences import is_question, split_sentences
from ..text.tags import named_things, noun_phrases
from ..turns import asks, is_ai, speaker_name

FACT_THRESHOLD = 0.8
"""Score a sentence needs to start a card: see ``fact_score``."""
DETAIL_THRESHOLD = 0.3
"""Score a sentence needs to join a card already started on the same topic ("The group made me feel…")."""
MIN_WORDS = 5
IMAGE = re.compile(r"\s*\[shared image:[^\]]*\]")


@dataclass(frozen=True)
class FactCues:
    """One language's cue groups and their weight in ``fact_score``, and its small talk."""

    groups: tuple[tuple[tuple[str, ...], float], ...]
    small_talk: tuple[str, ...]
    small_talk_words: int
    """Below this many words a sentence with small talk in it is small talk (jieba words are shorter)."""
    relative_date: re.Pattern


ENGLISH = FactCues(((EVENT_CUES, 1.0), (PLAN_CUES, 0.8), (PREFERENCE_CUES, 0.6), (PERSONAL_CUES, 0.6),
                    (STATE_CUES, 0.5)), SMALL_TALK, 12, RELATIVE_DATE)
CHINESE = FactCues(((ZH_EVENT_CUES, 1.0), (ZH_PLAN_CUES, 0.8), (ZH_PREFERENCE_CUES, 0.6), (ZH_PERSONAL_CUES, 0.6),
                    (ZH_STATE_CUES, 0.5)), ZH_SMALL_TALK, 16, ZH_RELATIVE_DATE)


@dataclass
class Fact:
    """A sentence that says something about its speaker."""

    turn: int
    speaker: str
    sentence: str
    score: float
    asked_by: int | None
    """The turn before, when it asked a question this sentence may answer."""


def find_facts(session: Session, names: list[str]) -> list[Fact]:
    """First-person statements that say something about a person's life (an AI assistant's are not)."""
    facts = []
    for index, turn in enumerate(session.turns):
        if turn.role not in ("user", "assistant") or is_ai(turn):
            continue
        speaker = speaker_name(turn)
        asked_by = index - 1 if index and asks(session.turns[index - 1].content) else None
        for sentence in split_sentences(IMAGE.sub("", turn.content)):
            sentence = without_interjection(sentence, names)
            score = fact_score(sentence)
            if score >= DETAIL_THRESHOLD:
                facts.append(Fact(index, speaker, sentence, score, asked_by))
    return facts


def without_interjection(sentence: str, names: list[str]) -> str:
    """'Oh, I went…' → 'I went…'; 'Hey Maria, since…' → 'since…'; '嗯，我们…' → '我们…'."""
    text = ZH_INTERJECTION.sub("", INTERJECTION.sub("", sentence).strip())
    for name in names:
        text = re.sub(rf"^{re.escape(name)}[,!，！]\s*", "", text)
    return text


def fact_score(sentence: str) -> float:
    """How much a sentence tells about its speaker: events and dates count most, small talk nothing."""
    chinese = CJK.search(sentence) is not None
    cues = CHINESE if chinese else ENGLISH
    lower = sentence.lower()
    words = words_of(sentence)
    if len(words) < MIN_WORDS or is_question(sentence) or not _about_speaker(sentence, chinese):
        return 0.0
    cue_points = sum(weight for group, weight in cues.groups if has_cue(lower, group))
    if chinese and not cue_points and not ZH_FIRST_PERSON.search(sentence):
        return 0.0
    names = chinese_names(sentence) if chinese else named_things(sentence)
    score = 0.3 if chinese or noun_phrases(sentence) else 0.0
    score += cue_points
    score += 1.0 if cues.relative_date.search(sentence) else 0.0
    score += min(1.0, 0.5 * len(names))
    score += 0.3 if re.search(r"\d", sentence) else 0.0
    small_talk = len(find_cues(lower, cues.small_talk))
    score -= 1.5 if small_talk >= 2 or (small_talk and len(words) < cues.small_talk_words) else 0.0
    score -= 0.8 if _addresses_listener(sentence, chinese) else 0.0
    score -= 0.5 if FACT_ANAPHORA.match(sentence) else 0.0
    return score


def _about_speaker(sentence: str, chinese: bool) -> bool:
    """'I…/my…', '我…/我们…', or a Chinese statement with no one else as its subject (it needs a cue, above)."""
    if not chinese:
        return FIRST_PERSON.search(sentence) is not None
    return ZH_FIRST_PERSON.search(sentence) is not None or not ZH_OTHER_SUBJECT.search(sentence)


def _addresses_listener(sentence: str, chinese: bool) -> bool:
    """About 'you' rather than the speaker."""
    if not chinese:
        return SECOND_PERSON.search(sentence) is not None
    return re.search(r"你|您", sentence) is not None and not ZH_FIRST_PERSON.search(sentence)
