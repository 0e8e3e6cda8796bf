"""StaleView: the edges and entities recall asks for, from a snapshot some writes old, while a job's step writes.

While a long job writes (an ingest, a distillation), the snapshot is never fresh and recall read the database for
everything. The edges around its cards and their entities were most of that: at the aged 100k store, recalls
during an ingest spent a quarter of their time in those queries, against a writer (docs/benchmarks.md). While a
step holds the graph, the snapshot read before the job answers them for the cards it holds, and the database for
the cards written since. An edge the job adds to an older card is seen once the step is over (the next recall reads
the database) or the snapshot is read again; a card it forgets is left out, since every card's fields are read
from the database as before, and so are session times. Which cards replace which is the snapshot's too: a recall
beside introspect's steps read every ``SUPERSEDES`` link and every card's sessions from the database (55 ms a recall
at the aged 100k store); a replacement the job links is seen once its step is over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .snapshot import GraphSnapshot
    from .store import GraphStore


class StaleView:
    """A :class:`~.reader.GraphReader`: ``snapshot`` for the edges and entities of the cards it holds, ``database``
    for the rest."""

    def __init__(self, snapshot: "GraphSnapshot", database: "GraphStore"):
        self._snapshot, self._database = snapshot, database

    def card_count(self) -> int:
        return self._database.card_count()

    def cards(self, card_ids: list[str], content: bool = True) -> dict[str, dict[str, Any]]:
        return self._database.cards(card_ids, content)

    def card_types(self, card_ids: list[str]) -> dict[str, str]:
        return self._database.card_types(card_ids)

    def supersessions(self) -> dict[str, tuple[tuple[str, ...], list[str]]]:
        return self._snapshot.supersessions()

    def session_times(self, session_ids: list[str]) -> dict[str, int]:
        return self._database.session_times(session_ids)

    def neighbours(self, card_ids: list[str]) -> list[tuple[str, str, str, float]]:
        held, written = self._split(card_ids)
        return self._snapshot.neighbours(held) + (self._database.neighbours(written) if written else [])

    def card_entities(self, card_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        held, written = self._split(card_ids)
        return {**self._snapshot.card_entities(held), **(self._database.card_entities(written) if written else {})}

    def _split(self, card_ids: list[str]) -> tuple[list[str], list[str]]:
        """The cards the snapshot holds, and those written since."""
        position = self._snapshot.position
        return [card_id for card_id in card_ids if card_id in position], \
            [card_id for card_id in card_ids if card_id not in position]
