"""Sentences of a turn as knowledge that stands alone, in the words every offline card uses."""

from __future__ import annotations

from datetime import date

from ...foundations.domain import Session, Turn
from .conversation.card import said_when
from .conversation.third_person import said_to
from .text.chinese import CJK
from .text.dates import resolve_dates
from .text.sentences import join_sentences
from .turns import speaker_name


class Voice:
    """Sentences of a turn as knowledge that stands alone: 'I decided…' → 'The user decided…', '我喜欢…' →
    '李雷喜欢…', with relative dates made absolute."""

    def __init__(self, session: Session, today: date):
        self.turns = session.turns
        self.today = today

    def say(self, index: int | None, sentences: list[str]) -> str:
        if index is None or not sentences:
            return ""
        turn = self.turns[index]
        said = []
        for sentence in sentences:  # a Chinese sentence names 用户 even in a turn mostly in English
            chinese = CJK.search(sentence) is not None
            speaker, listener = speaker_name(turn, chinese), self._listener(turn, chinese)
            said.append(resolve_dates(said_to(sentence, speaker, listener), self.today)[0])
        return join_sentences(said)

    def attribution(self, turn: Turn, chinese: bool) -> str:
        """Who said it and when, worded as every card of the offline distiller words it."""
        return said_when(speaker_name(turn, chinese), self._listener(turn, chinese), self.today, chinese)

    def _listener(self, turn: Turn, chinese: bool | None = None) -> str:
        other = next((t for t in self.turns if t.role in ("user", "assistant") and t.role != turn.role
                      and speaker_name(t) != speaker_name(turn)), None)
        return speaker_name(other, chinese) if other is not None else ""
