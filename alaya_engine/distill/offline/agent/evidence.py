"""What a card borrows from around it: the problem the user asked about and the error the tools showed."""

from __future__ import annotations

import re

from ....foundations.domain import Session
from ..cues import ERROR_LINE, GOTCHA_CUES, GOTCHA_HINTS, NO_ERRORS, PROBLEM_CUES, STRONG_ERROR
from ..text.cue_match import has_cue
from ..text.markdown import INLINE_CODE
from ..text.sentences import join_sentences, split_sentences
from ..text.titles import shorten
from .transcript import Transcript, Unit


def problem_asked(session: Session, opener: int | None) -> str:
    """What the user asked about: the episode's opener if it states a problem, else the session's first ask."""
    first_user = next((index for index, turn in enumerate(session.turns) if turn.role == "user"), None)
    for index in (opener, first_user):
        if index is None:
            continue
        text = session.turns[index].content
        if index == first_user or has_cue(text, GOTCHA_HINTS + GOTCHA_CUES + PROBLEM_CUES):
            sentences = split_sentences(text)
            return shorten(join_sentences(sentences[:2]), 260) if sentences else ""
    return ""


def error_line(session: Session, opener: int | None, last: int) -> str:
    """The most telling error line in tool output (or a backticked error the user pasted) before the card."""
    start = opener if opener is not None else 0
    lines: list[str] = []
    for turn in session.turns[start:last + 1]:
        if turn.role == "user":
            lines.extend(INLINE_CODE.findall(turn.content))
        elif turn.role == "tool":
            lines.extend(_strip_log_prefix(line.strip()) for line in turn.content.splitlines())
    score, _, line = max(((_error_score(line), -position, line) for position, line in enumerate(lines)),
                         default=(0, 0, ""))
    return shorten(re.sub(r"\s{2,}", " ", line), 160) if score > 0 else ""


def _error_score(line: str) -> int:
    """Error lines worth quoting have several words and, best, a specific failure phrase; a count of none
    (``failed=0``) is no failure."""
    line = NO_ERRORS.sub(" ", line)
    if not ERROR_LINE.search(line) or len(re.findall(r"[A-Za-z\u3400-\u9fff]+", line)) < 4:
        return 0
    return 1 + len(ERROR_LINE.findall(line)) + (2 if STRONG_ERROR.search(line) else 0)


def _strip_log_prefix(line: str) -> str:
    """Drop timestamps and host/process prefixes so the quote starts at the message."""
    line = re.sub(r"^\[?[\w\s:/.-]*\d{2}:\d{2}:\d{2}[.\d]*\]?\s*", "", line)
    return re.sub(r"^[\w.-]+ [\w.-]+\[\d+\]:\s*", "", line)


def evidence_turns(transcript: Transcript, units: list[Unit], opener: int | None) -> list[int]:
    """Tool turns with errors between the question and the card: the evidence the card relies on."""
    if opener is None:
        return []
    turns = transcript.session.turns
    return [index for index in range(opener + 1, units[-1].turn)
            if turns[index].role == "tool" and ERROR_LINE.search(NO_ERRORS.sub(" ", turns[index].content))][:3]
