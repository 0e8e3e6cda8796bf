"""Units: what a method returns for a question, each the set of turns it covers and the tokens it costs.

Tokens are ``alaya_engine.foundations.domain.estimate_tokens`` of the text an agent would receive: for a
baseline unit its turns as ``"speaker: content"`` lines, for an Alaya unit the node's ``content``. Windows are
the card-sized unit without distillation: ``WINDOW`` consecutive turns of one session, every ``STRIDE`` turns,
the tail included.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from alaya_engine.foundations.domain import estimate_tokens

from .records import Turn, TurnKey

WINDOW, STRIDE = 3, 2


@dataclass(frozen=True)
class Unit:
    turns: frozenset[TurnKey]
    tokens: int
    kind: str = "turns"
    """For Alaya's units, the node's kind (``card``, ``session_turns``); baselines return plain turns."""


def joined(turns: list[Turn]) -> str:
    return "\n".join(turn.text for turn in turns)


def unit_of(turns: list[Turn]) -> Unit:
    return Unit(frozenset(turn.key for turn in turns), estimate_tokens(joined(turns)))


def by_session(turns: list[Turn]) -> dict[str, list[Turn]]:
    """Session id → its turns in order."""
    sessions: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        sessions[turn.session_id].append(turn)
    return dict(sessions)


def windows(turns: list[Turn], size: int = WINDOW, stride: int = STRIDE) -> list[list[Turn]]:
    """Runs of ``size`` consecutive turns inside one session, every ``stride`` turns, the tail included; a session
    shorter than ``size`` is one window."""
    result = []
    for session_turns in by_session(turns).values():
        starts = list(range(0, max(1, len(session_turns) - size + 1), stride))
        if starts[-1] + size < len(session_turns):
            starts.append(len(session_turns) - size)
        result.extend(session_turns[start:start + size] for start in starts)
    return result
