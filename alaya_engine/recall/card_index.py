"""CardIndex: the cards' seeds and vectors — HOT/WARM as resident floats, COLD as 8-bit codes.

A COLD card keeps its vector in ``cold_vectors`` as int8 codes with a scale per row (a quarter of the float
bytes; 46 MB at 90k COLD cards of 512 dimensions). Held here, a COLD card reached through the graph or found by
full-text search is scored on its own vector instead of a guess, nothing is embedded at query time, and the
vector search reaches COLD cards too (integer products choose, dequantised rows score; see
:class:`.index.ResidentVectors`): a year-old store is ~90% COLD, and a memory that forgets what it cannot
find by meaning is only a smaller one (docs/architecture.md, measured in docs/benchmarks.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..foundations.memory import release_freed_memory
from .index import ResidentIndex, ResidentVectors, vectors_in
from .saved_loads import SavedTable

if TYPE_CHECKING:
    import numpy as np

    from ..vectors.store import VectorStore
    from .saved_loads import SavedLoads


class CardIndex(ResidentIndex):
    def __init__(self, vectors: "VectorStore", background_above: int | None = None,
                 saved: "SavedLoads | None" = None):
        """``background_above``: see :class:`.index.ResidentIndex` (the owner server's engine gives it: a recall
        during an ingest into a large store reloaded every HOT and WARM vector after each distill step, 1.7-2.4 s
        a recall at a million cards). ``saved``: where both tables' loads are saved (:mod:`.saved_loads`)."""
        from ..vectors.store import CARD_VECTORS, COLD_VECTORS

        super().__init__(vectors, background_above, saved and SavedTable(
            saved, CARD_VECTORS, lambda: vectors.identity(CARD_VECTORS), ResidentVectors.of_arrays))
        vectors.keep_written()
        self.cold = ResidentVectors([], None)
        self._cold_version: int | None = None
        self._saved_cold = saved and SavedTable(saved, COLD_VECTORS, lambda: vectors.identity(COLD_VECTORS),
                                                ResidentVectors.of_arrays)

    def refresh(self) -> None:
        """Reload what changed: the resident matrix, the COLD codes, or both."""
        super().refresh()
        version = self.store.cold_version()
        if version != self._cold_version:
            with self._loading:
                if version != self._cold_version:
                    restored = self._saved_cold and self._saved_cold.restore(version)
                    self.cold = restored or ResidentVectors(*self.store.cold_vectors())
                    self._cold_version = version
                    release_freed_memory()

    def _load_version(self, version: int) -> None:
        super()._load_version(version)
        self.store.loaded_through(version)

    def save(self) -> bool:
        """Save both loads (see :meth:`.index.ResidentIndex.save`); True if either was written."""
        cold = self._saved_cold is not None and self._saved_cold.save(self.cold, self._cold_version)
        return super().save() or cold

    def vector_of(self, card_id: str) -> "np.ndarray | None":
        return self.vectors_of([card_id])[0]

    def vectors_of(self, card_ids: list[str]) -> "list[np.ndarray | None]":
        """Per card, the vector this process wrote since the last load (newer than any the load holds: a card
        distilled again); else its resident vector; else its COLD codes'; else None. Each tier is asked for all the
        cards at once."""
        return vectors_in([self.store.written_vector(card_id) for card_id in card_ids], card_ids,
                          (self.resident, self.cold))

    def vector_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> list[str]:
        """The ``top_k`` nearest cards of any tier, one ranking by similarity."""
        hits = self.resident.scored_search(queries, top_k, min_similarity) \
            + self.cold.scored_search(queries, top_k, min_similarity)
        hits.sort(key=lambda hit: -hit[1])
        return [card_id for card_id, _ in hits[:top_k]]
