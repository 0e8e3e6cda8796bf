"""Sentences that say something about their speaker, scored: events and dates count most, small talk nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....domain import Session
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
)
from ..text.cue_match import has_cue
from ..text.dates import RELATIVE_DATE
from ..text.sentences import split_sentences
from ..text.tags import named_things, noun_phrases
from ..turns import asks, speaker_name

FACT_THRESHOLD = 0.8
"""Score a sentence needs to start a card: see ``fact_score``."""
DETAIL_THRESHOLD = 0.3
"""Score a sentence needs to join a card already started on the same topic ("The group made me feel…")."""
IMAGE = re.compile(r"\s*\[shared image:[^\]]*\]")


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
    """First-person statements that say something about the speaker's life."""
    facts = []
    for index, turn in enumerate(session.turns):
        if turn.role not in ("user", "assistant"):
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
    """'Oh, I went…' → 'I went…'; 'Hey Maria, since…' → 'since…'; 'Dave, I had…' → 'I had…'."""
    text = INTERJECTION.sub("", sentence).strip()
    for name in names:
        text = re.sub(rf"^{re.escape(name)}[,!]\s+", "", text)
    return text


def fact_score(sentence: str) -> float:
    """How much a sentence tells about its speaker: events and dates count most, small talk nothing."""
    lower = sentence.lower()
    words = re.findall(r"[\w'’]+", sentence)
    if len(words) < 5 or sentence.rstrip().endswith("?") or not FIRST_PERSON.search(sentence):
        return 0.0
    score = 0.3 if noun_phrases(sentence) else 0.0
    score += 1.0 if has_cue(lower, EVENT_CUES) else 0.0
    score += 0.8 if has_cue(lower, PLAN_CUES) else 0.0
    score += 0.6 if has_cue(lower, PREFERENCE_CUES) else 0.0
    score += 0.6 if has_cue(lower, PERSONAL_CUES) else 0.0
    score += 0.5 if has_cue(lower, STATE_CUES) else 0.0
    score += 1.0 if RELATIVE_DATE.search(sentence) else 0.0
    score += min(1.0, 0.5 * len(named_things(sentence)))
    score += 0.3 if re.search(r"\d", sentence) else 0.0
    score -= 1.5 if has_cue(lower, SMALL_TALK) and len(words) < 12 else 0.0
    score -= 0.8 if SECOND_PERSON.search(sentence) else 0.0
    score -= 0.5 if FACT_ANAPHORA.match(sentence) else 0.0
    return score
