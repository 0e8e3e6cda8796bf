"""The session's opening report is the context of the point that answers it, not a card of its own.

A session often opens with what went wrong or what is wanted ("orders-api 5xx at 14% since 07:58", 搜索挂了一半,
"I need to sort out a dentist appointment"). Read alone it made a card that states no cause, fix or decision (of
the agentset cards holding no labelled knowledge, one in four; docs/benchmarks.md), while the cause card answering
it lacked its symptom. So when the session's first card comes from its opening user turn and says no kind of its
own (a concept: what the session is about), it opens the first cause (else decision) after it that speaks of
the same things (``SHARED_WORDS``), as its problem, and that card takes its turns. Asking for a problem word or a
question mark as well left most openers standing ("orders-api 5xx on the ALB is at 14%", "geo-router 的内存一直在涨")
for no gain.
"""

from __future__ import annotations

from ...foundations.domain import Session
from .candidate import Candidate

ANSWERS = ("gotcha", "decision")
"""What answers a reported problem or request, in order of preference: a cause, else a decision (the dentist
booked, the timeout raised). A fix or rule (a pattern) stays general, so that the same rule said in another
session remains a near-duplicate to merge (with the symptom on it, the demo's lost its merge)."""
SHARED_WORDS = 2


def fold_opener(cards: list[Candidate], session: Session) -> list[Candidate]:
    """``cards`` without the opening report, folded into the card that answers it (when one does)."""
    ordered = sorted(cards, key=lambda card: card.order)
    opening = opening_turn(session)
    if not ordered or opening is None or ordered[0].type != "concept" or min(ordered[0].turns) != opening:
        return cards
    report = ordered[0]
    related = [card for card in ordered[1:] if card.type in ANSWERS and len(card.words & report.words) >= SHARED_WORDS]
    answer = min(related, key=lambda card: ANSWERS.index(card.type), default=None)
    if answer is None:
        return cards
    if opening not in answer.turns:
        answer.content = _with_problem(answer, _statement(report.content), _additions(report.content, answer))
    answer.turns = sorted(set(answer.turns) | set(report.turns))
    answer.importance = max(answer.importance, report.importance)
    answer.words |= report.words
    answer.body = f"{report.body} {answer.body}"
    return [card for card in cards if card is not report]


def opening_turn(session: Session) -> int | None:
    """The session's first user turn that says something: the report or request its first point answers."""
    return next((index for index, turn in enumerate(session.turns) if turn.role == "user" and turn.content.strip()),
                None)


def _statement(content: str) -> str:
    """The report's own statement: its first paragraph, without its label."""
    first = content.split("\n\n", 1)[0]
    return first.split(":** ", 1)[1] if first.startswith("**") and ":** " in first else first


def _additions(content: str, answer: Candidate) -> list[str]:
    """The report card's other labelled paragraphs ("The assistant added: the default is 60 s") that the answer
    does not say: the first reading of the problem, often its cause."""
    return [paragraph for paragraph in content.split("\n\n")[1:]
            if paragraph.startswith("**") and paragraph not in answer.content]


def _with_problem(answer: Candidate, report: str, additions: list[str]) -> str:
    """The answer's content opening with the report (inside its problem paragraph if it has one) and what was
    added to the report."""
    for label in ("问题", "Problem"):
        heading = f"**{label}:** "
        if answer.content.startswith(heading):
            problem, _, rest = answer.content[len(heading):].partition("\n\n")
            return "\n\n".join([f"{heading}{report} {problem}", *additions, *([rest] if rest else [])])
    return "\n\n".join([f"**{'问题' if answer.chinese else 'Problem'}:** {report}", *additions, answer.content])
