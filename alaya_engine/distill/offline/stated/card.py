"""A statement as a card: in the third person, in the session's language, with who said it and when."""

from __future__ import annotations

from datetime import date

from ....foundations.domain import Session, Turn
from ..candidate import TITLE_LIMIT, Candidate
from ..conversation.card import said_when
from ..conversation.third_person import said_to
from ..text.dates import resolve_dates
from ..text.overlap import content_words
from ..text.sentences import join_sentences, split_sentences
from ..text.titles import shorten, title_width
from ..turns import speaker_name
from .kinds import CARD_TYPE, IMPORTANCE, LABELS
from .reading import Statement


def statement_card(statement: Statement, session: Session, today: date, chinese: bool) -> Candidate:
    """The statement in the third person (who said it is named, as the other readers name people), with the
    problem it answers (unless another card of the session states that problem), what the assistant added or
    proposed, and who said it when. Its tags are left to the distiller, for the cards it keeps: most statements
    are dropped as said already, and tags (jieba for Chinese) cost more than the rest of the card."""
    turns = session.turns
    voice = _Voice(session, today)
    label = LABELS[statement.kind][1 if chinese else 0]
    said = voice.say(statement.turn, statement.sentences)
    lines = []
    problem = voice.say(statement.problem_turn, statement.problem)
    if problem:
        heading = ("背景", "Context") if statement.kind == "decision" else ("问题", "Problem")
        lines.append(f"**{heading[0] if chinese else heading[1]}:** {problem}")
    found = voice.say(statement.found_turn, statement.found)
    if found:
        lines.append(f"**{'助手发现' if chinese else 'The assistant found'}:** {found}")
    lines.append(f"**{label}:** {said}" if said else "")
    if statement.reply:
        added = voice.say(statement.reply_turn, statement.reply)
        lines.append(f"**{'助手补充' if chinese else 'The assistant added'}:** {added}")
    if statement.accepted:
        proposed = voice.say(statement.proposal_turn, statement.accepted)
        lines.append(f"**{'助手的提议' if chinese else 'Proposed by the assistant'}:** {proposed}")
    lines.append(voice.attribution(turns[statement.turn], chinese))
    title_source = (said if said and title_width(statement.sentences[0]) >= 24
                    else voice.say(statement.proposal_turn, statement.accepted[:1]) or said)
    title = shorten(split_sentences(title_source)[0].strip(" ：:"), TITLE_LIMIT)
    body = " ".join(statement.sentences + statement.accepted + statement.reply + statement.found)
    card_turns = [statement.turn] + [turn for turn in (statement.proposal_turn, statement.problem_turn,
                                                       statement.reply_turn, statement.found_turn) if turn is not None]
    return Candidate(type=CARD_TYPE[statement.kind], title=title, content="\n\n".join(line for line in lines if line),
                     tags=[], importance=IMPORTANCE[statement.kind] + (0.05 if statement.accepted else 0.0),
                     turns=card_turns, order=(min(card_turns), 50), words=content_words(body), body=body)


class _Voice:
    """Sentences of a turn as knowledge that stands alone: 'I decided…' → 'The user decided…', '我喜欢…' →
    '李雷喜欢…', with relative dates made absolute."""

    def __init__(self, session: Session, today: date):
        self.turns = session.turns
        self.today = today

    def say(self, index: int | None, sentences: list[str]) -> str:
        if index is None or not sentences:
            return ""
        turn = self.turns[index]
        speaker, listener = speaker_name(turn), self._listener(turn)
        return join_sentences([resolve_dates(said_to(sentence, speaker, listener), self.today)[0]
                               for sentence in sentences])

    def attribution(self, turn: Turn, chinese: bool) -> str:
        """Who said it and when, worded as every card of the offline distiller words it."""
        return said_when(speaker_name(turn), self._listener(turn), self.today, chinese)

    def _listener(self, turn: Turn) -> str:
        other = next((t for t in self.turns if t.role in ("user", "assistant") and t.role != turn.role
                      and speaker_name(t) != speaker_name(turn)), None)
        return speaker_name(other) if other is not None else ""
