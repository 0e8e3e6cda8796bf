"""A statement as a card: in the third person, in the session's language, with who said it and when."""

from __future__ import annotations

import re
from datetime import date

from ....foundations.domain import Session
from ..candidate import TITLE_LIMIT, Candidate
from ..text.chinese import is_chinese, written_in_chinese
from ..text.label_echo import without_echo
from ..text.overlap import content_words
from ..text.sentences import split_sentences
from ..text.titles import shorten, title_width
from ..voice import Voice
from .kinds import CARD_TYPE, IMPORTANCE, LABELS
from .reading import Statement
from .sentences import APPROVAL_LEAD, named_rule


def statement_card(statement: Statement, session: Session, today: date, chinese: bool) -> Candidate:
    """The statement in the third person (who said it is named, as the other readers name people), with the
    problem it answers (unless another card of the session states that problem; for a decision, with the question
    the user's message there answered), what the assistant added or
    proposed, and who said it when. Its tags are left to the distiller, for the cards it keeps: most statements
    are dropped as said already, and tags (jieba for Chinese) cost more than the rest of the card."""
    turns = session.turns
    chinese = written_in_chinese(chinese, " ".join(statement.sentences))
    voice = Voice(session, today)
    label = LABELS[statement.kind][1 if chinese else 0]
    said = voice.say(statement.turn, statement.sentences)
    lines = []
    problem = " ".join(filter(None, (voice.say(statement.asked_turn, statement.asked),
                                     voice.say(statement.problem_turn, statement.problem))))
    if problem:
        heading = ("背景", "Context") if statement.kind == "decision" else ("问题", "Problem")
        lines.append(f"**{heading[0] if chinese else heading[1]}:** {problem}")
    found = voice.say(statement.found_turn, statement.found)
    if found:
        lines.append(f"**{'助手发现' if chinese else 'The assistant found'}:** {found}")
    lines.append(f"**{label}:** {without_echo(label, said)}" if said else "")
    if statement.reply:
        added = voice.say(statement.reply_turn, statement.reply)
        lines.append(f"**{'助手补充' if chinese else 'The assistant added'}:** {added}")
    if statement.accepted:
        proposed = voice.say(statement.proposal_turn, statement.accepted)
        lines.append(f"**{'助手的提议' if chinese else 'Proposed by the assistant'}:** {proposed}")
    lines.append(voice.attribution(turns[statement.turn], chinese))
    stating = [sentence for sentence in split_sentences(said) if not approval_only(sentence)]
    title_source = (stating[0] if stating else _named_choice(said) or _offered_action(
        split_sentences(_decided(voice.say(statement.proposal_turn, statement.accepted[:1])) or said)[0]))
    title = shorten(named_rule(_without_tables(title_source) or title_source).strip(" ：:"), TITLE_LIMIT)
    body = " ".join(statement.sentences + statement.accepted + statement.reply + statement.found)
    card_turns = [statement.turn] + [turn for turn in (statement.proposal_turn, statement.problem_turn,
                                                       statement.reply_turn, statement.found_turn,
                                                       statement.asked_turn) if turn is not None]
    return Candidate(type=CARD_TYPE[statement.kind], title=title, content="\n\n".join(line for line in lines if line),
                     tags=[], importance=IMPORTANCE[statement.kind] + (0.05 if statement.accepted else 0.0),
                     turns=card_turns, order=(min(card_turns), 50), words=content_words(body), body=body,
                     chinese=chinese)


def approval_only(sentence: str) -> bool:
    """Whether little is left of the sentence without the go-ahead it opens with ("有道理，就用 X" → "X"): then the
    proposal it accepts makes the better title."""
    return title_width(APPROVAL_LEAD.sub("", sentence)) < 24


TABLE = re.compile(r"(?:\|[^|\n]*)+\|")
"""A markdown table, flattened into one line ("| option | tests | p50 | |---|---|---| | a | pass | 14.8 ms |")."""
DECISION_LABEL = re.compile(r"(?:\bdecision|决定|结论)\s*[:：]\s*", re.IGNORECASE)
"""Where a proposal names what it decides ("…compared the two fixes: | … | Decision: we'll use …")."""


def _decided(proposal: str) -> str:
    """What a proposal says it decides, from its last "Decision:" on when it labels one (and something follows)."""
    labelled = list(DECISION_LABEL.finditer(proposal))
    return (proposal[labelled[-1].end():].strip() if labelled else "") or proposal


def _without_tables(text: str) -> str:
    """``text`` without markdown tables: a row of cells is no title ("I compared the two fixes: | option | …")."""
    return re.sub(r"\s{2,}", " ", TABLE.sub(" ", text)).strip()


OFFERED = re.compile(r"^(?:(?:shall|should|can|may) (?:the assistant|we)|(?:does|would) the user (?:want|like) the "
                     r"assistant to|want the assistant to) (?P<action>.+?)\s*\?$"
                     r"|^(?:要不要|需不需要|需要)助手(?:帮用户)?(?P<zh>.+?)吗?[？?]$", re.IGNORECASE)
"""An offer put as a question, as the card tells it ("Shall the assistant draft an email to book a check-up?",
"要不要助手帮用户订酒店？"): taken, its action is the decision."""


def _offered_action(sentence: str) -> str:
    """The action an accepted offer names ("Draft an email to book a check-up"), else the sentence."""
    match = OFFERED.match(sentence.strip())
    if not match:
        return sentence
    action = match["action"] or match["zh"]
    return action[:1].upper() + action[1:]


def _named_choice(said: str) -> str | None:
    """What a go-ahead alone says it chose, when that names an action and its object in English ("sounds good,
    switch to hatchling" → "switch to hatchling"): the decision said shortest, where the proposal's first sentence
    may only lead into it ("The switch is small for this project: …")."""
    rests = (APPROVAL_LEAD.sub("", sentence).strip() for sentence in split_sentences(said))
    chosen = next((rest for rest in rests if not is_chinese(rest) and len(content_words(rest)) >= 2), None)
    return chosen[:1].upper() + chosen[1:] if chosen else None
