"""What both readers (agent, conversation) propose: a card with what selection and linking need."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...foundations.domain import Fact
from ..base import CardDraft

TITLE_LIMIT = 70
"""Title width: 70 Latin characters, or about 30 Chinese ones (see ``text.titles.title_width``)."""


def attribution(content: str) -> str:
    """The content's closing "(who said it, when)" paragraph, or "" when it has none."""
    head, _, last = content.rpartition("\n\n")
    return last if head and last.startswith(("(", "（")) and last.endswith((")", "）")) else ""


@dataclass
class Candidate:
    """A card before near-duplicates are merged, the set is cut to size and titles are made unique."""

    type: str
    title: str
    content: str
    tags: list[str]
    importance: float
    turns: list[int]
    order: tuple[int, int]
    """(turn, position in turn): session order."""
    words: set[str]
    body: str
    """What the card itself says, without borrowed context (the problem asked, the error seen)."""
    facts: list[Fact] = field(default_factory=list)
    chinese: bool = False
    """Whether its labels (and what the distiller adds later: details, the problem it answers) are Chinese."""

    def draft(self) -> CardDraft:
        return CardDraft(title=self.title, content=self.content, type=self.type, tags=self.tags,
                         importance=round(min(1.0, max(0.0, self.importance)), 2), turns=sorted(set(self.turns)),
                         facts=self.facts)
