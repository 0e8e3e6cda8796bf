"""What an AI assistant told the person in a conversation: recommendations, explanations and plans.

The person asks "what should I read?" and the assistant names three books: the books are worth keeping, the
"As an AI, I don't read" around them and the "Sounds wonderful!" are not. Each assistant turn is read sentence
by sentence; a sentence that recommends, explains or plans, and names something, makes the turn a card.
"""

from __future__ import annotations

import re
from datetime import date

from ....foundations.domain import Session
from ..candidate import TITLE_LIMIT, Candidate
from ..cues import (
    ADVICE_CUES,
    BOILERPLATE,
    EMPATHY_CUES,
    FIRST_PERSON,
    RECOMMEND_CUES,
    SECOND_PERSON,
    ZH_FIRST_PERSON,
)
from ..text.chinese import CJK, chinese_names, is_chinese, words_of
from ..text.cue_match import has_cue
from ..text.markdown import QUOTED_LINE
from ..text.overlap import content_words
from ..text.sentences import is_question, join_sentences, split_sentences
from ..text.tags import keywords, named_things, noun_phrases
from ..text.titles import shorten
from ..text.words import unique
from ..turns import is_ai, is_role_name, other_than, speaker_name
from .card import quoted_question, said_when
from .facts import IMAGE, MIN_WORDS, without_interjection
from .third_person import said_to

ADVICE_THRESHOLD = 1.3
"""Score one sentence of a turn needs for the turn to make a card: a cue and a named thing, or a long cue."""
KEEP_THRESHOLD = 0.5
"""Score the turn's other sentences need to go on the card with it."""
STEPS = re.compile(r"首先|其次|第一步|\bfirst(?:ly)?,|\bstep \d|^\s*\d+[.)、]", re.IGNORECASE | re.MULTILINE)


def advice_candidates(session: Session, names: list[str], today: date) -> list[Candidate]:
    """One card per assistant turn that recommends, explains or plans something that names things."""
    candidates = []
    for index, turn in enumerate(session.turns):
        if not is_ai(turn):
            continue
        text = QUOTED_LINE.sub("", IMAGE.sub("", turn.content))
        sentences = [without_interjection(sentence, names) for sentence in split_sentences(text)]
        scored = [(advice_score(sentence), sentence) for sentence in sentences]
        if max((score for score, _ in scored), default=0.0) >= ADVICE_THRESHOLD:
            kept = [(score, sentence) for score, sentence in scored if score >= KEEP_THRESHOLD]
            candidates.append(_advice_card(session, index, kept, names, today))
    return candidates


def advice_score(sentence: str) -> float:
    """How much knowledge a sentence passes on: a recommendation or explanation that names things, not warmth."""
    words = words_of(sentence)
    if len(words) < MIN_WORDS or is_question(sentence) or BOILERPLATE.search(sentence):
        return 0.0
    chinese = CJK.search(sentence) is not None
    lower = sentence.lower()
    named = unique(chinese_names(sentence) if chinese else named_things(sentence))
    if not named and _about_itself(sentence, chinese):
        return 0.0
    score = 1.0 if has_cue(lower, ADVICE_CUES) else 0.0
    score += min(1.0, 0.5 * len(named))
    score += 0.3 if len(words) >= 10 and (chinese or noun_phrases(sentence)) else 0.0
    score += 0.3 if len(words) >= 20 else 0.0
    score -= 1.0 if has_cue(lower, EMPATHY_CUES) and len(words) < 20 else 0.0
    return score


def _about_itself(sentence: str, chinese: bool) -> bool:
    """'下次我也试试', 'I'd love to see it too': the assistant about itself, naming nothing."""
    if chinese:
        return ZH_FIRST_PERSON.search(sentence) is not None and re.search(r"你|您", sentence) is None
    return FIRST_PERSON.search(sentence) is not None and SECOND_PERSON.search(sentence) is None


def _advice_card(session: Session, index: int, kept: list[tuple[float, str]], names: list[str],
                 today: date) -> Candidate:
    turn = session.turns[index]
    assistant = speaker_name(turn)
    asker = _person_before(session, index)
    person = speaker_name(session.turns[asker]) if asker is not None else \
        other_than(names, assistant)
    text = join_sentences([sentence for _, sentence in kept])
    chinese = is_chinese(text)
    statements = said_to(text, assistant, person)
    best = said_to(max(kept, key=lambda item: item[0])[1], assistant, person)
    title = shorten(best if best.startswith(assistant) else _lead(assistant, text, best, chinese) + best, TITLE_LIMIT)
    question = quoted_question(session.turns[asker], names) if asker is not None else ""
    turns = [index] + ([asker] if asker is not None else [])
    score = max(score for score, _ in kept)
    return Candidate(
        type="pattern" if STEPS.search(text) else "concept", title=title,
        content=f"{question}{statements}\n\n{said_when(assistant, person, today, chinese)}",
        tags=unique([*([] if is_role_name(assistant) else [assistant]), *keywords(text, 6)])[:6],
        importance=min(0.8, 0.3 + 0.1 * score * len(kept) ** 0.5),
        turns=turns, order=(index, 0), words=content_words(text), body=statements, chinese=chinese,
    )


def _lead(assistant: str, text: str, title: str, chinese: bool) -> str:
    """'AI建议：', 'AI explained: ': who passed the knowledge on, and how, for a title that does not say it (only
    who, when the title opens with the verb itself: '助手：一般建议：…', not '助手建议：一般建议：…')."""
    recommends = has_cue(text.lower(), RECOMMEND_CUES)
    verb = ("建议" if recommends else "说明") if chinese else ("suggested" if recommends else "explained")
    if verb[:4].lower() in title[:12].lower():
        return f"{assistant}：" if chinese else f"{assistant}: "
    return f"{assistant}{verb}：" if chinese else f"{assistant} {verb}: "


def _person_before(session: Session, index: int) -> int | None:
    """The person's turn this assistant turn answers."""
    before = index - 1
    return before if before >= 0 and session.turns[before].role == "user" else None

