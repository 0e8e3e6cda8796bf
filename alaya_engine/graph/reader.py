"""The graph questions recall asks, answered alike by the live database and by a snapshot in memory."""

from __future__ import annotations

from typing import Any, Protocol


class GraphReader(Protocol):
    """Served by :class:`~.store.GraphStore` (a query per call) and :class:`~.snapshot.GraphSnapshot` (read
    once, answered from memory in well under a millisecond): recall takes whichever is fresh."""

    def card_count(self) -> int: ...

    def cards(self, card_ids: list[str], content: bool = True) -> dict[str, dict[str, Any]]:
        """The cards with these ids (unknown ids absent), by id. Without ``content`` every field but the content:
        a snapshot does not hold it (most of a card's bytes) and reads it from the database, so a caller that
        looks at many cards' other fields asks without it."""

    def card_types(self, card_ids: list[str]) -> dict[str, str]:
        """The type of each known card."""

    def neighbours(self, card_ids: list[str]) -> list[tuple[str, str, str, float]]:
        """Card-to-card edges around ``card_ids`` as (from, relation, to, weight)."""

    def card_entities(self, card_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The entities each card mentions (id, name, kind, aliases) by name, by card id; cards without absent."""

    def supersessions(self) -> dict[str, tuple[tuple[str, ...], list[str]]]:
        """Every superseded card → (the sessions it came from, the cards that replaced it)."""

    def session_times(self, session_ids: list[str]) -> dict[str, int]:
        """When each known session took place, ms since the epoch (unknown ids absent)."""
