"""Cards from agent sessions (tools, code): gotchas, decisions, patterns and concepts.

Headers such as "Root cause:" or "规则：", numbered lists, cue phrases
("decided", "because", 导致, 每次…) and error lines in tool output type the
assistant's paragraphs. The steps, one module each:

- ``transcript``: read the session once into units (paragraphs, list items, typed lists);
- ``classify``: give units a card type and group neighbours of the same type;
- ``card``: write one card per group, with ``evidence`` (the problem asked, the error seen);
- ``titles``: pick the most specific phrase as the card's title.
"""

from __future__ import annotations

from ....foundations.domain import Session
from ..candidate import Candidate
from .card import agent_card
from .classify import typed_groups
from .transcript import Transcript


def agent_candidates(session: Session) -> list[Candidate]:
    transcript = Transcript.read(session)
    told: set[str] = set()
    candidates = (agent_card(transcript, units, card_type, told) for units, card_type in typed_groups(transcript))
    return [candidate for candidate in candidates if candidate]
