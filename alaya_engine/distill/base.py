"""What every distiller returns, and the interface the pipeline calls.

A distiller only reads a session and proposes cards and links between them
(by title). Everything that touches the store — ids, ``EXTRACTED_FROM`` edges,
``SIMILAR_TO`` edges to cards of other sessions, embeddings, the L3 record —
belongs to the pipeline, so both distillers get it identically.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Protocol

from ..foundations.domain import Fact, Session


@dataclass
class CardDraft:
    title: str
    content: str
    """Self-contained Markdown: readable without the session."""
    type: str
    tags: list[str]
    importance: float
    """0.0–1.0; decides which cards survive ``distill.max_cards_per_session``."""
    turns: list[int] = field(default_factory=list)
    """Indices into ``session.turns`` this card came from (its context)."""
    facts: list[Fact] = field(default_factory=list)
    """The attributes the card states, as data (see :class:`~alaya_engine.foundations.domain.Fact`)."""

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class LinkDraft:
    from_title: str
    to_title: str
    relation: str
    """Normalised UPPER_SNAKE_CASE; core names go to their own table, others to CUSTOM."""
    reason: str = ""
    weight: float = 1.0

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Distillation:
    cards: list[CardDraft]
    links: list[LinkDraft]
    dropped_links: int = 0
    """Links the distiller proposed whose titles matched no card."""
    skipped_reason: str | None = None
    """Why a session produced no cards (e.g. too short), for the report."""


class Distiller(Protocol):
    name: str
    """Identifies the distiller and its version; recorded in L3 with its output."""

    def distill(self, session: Session) -> Distillation:
        """Propose cards and links for one session; raises ``AlayaError`` when it cannot."""
        ...
