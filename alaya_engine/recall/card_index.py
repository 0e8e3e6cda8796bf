"""CardIndex: the cards' seeds and vectors — HOT/WARM as resident floats, COLD as 8-bit codes.

A COLD card keeps its vector in ``cold_vectors`` as int8 codes with a scale per row (a quarter of the float
bytes; 46 MB at 90k COLD cards of 512 dimensions). Held here, a COLD card reached through the graph or found by
full-text search is scored on its own vector instead of a guess, nothing is embedded at query time, and the
vector search reaches COLD cards too: a year-old store is ~90% COLD, and a memory that forgets what it cannot
find by meaning is only a smaller one (docs/architecture.md, measured in docs/benchmarks.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .index import ResidentIndex

if TYPE_CHECKING:
    import numpy as np

    from ..vectors.store import VectorStore

RESCORED_SHARE = 4
"""The integer search keeps this many times ``top_k`` COLD rows, re-scored on their dequantised vectors."""


class CardIndex(ResidentIndex):
    def __init__(self, vectors: "VectorStore"):
        super().__init__(vectors)
        self.cold = ColdCodes([], None, None)
        self._cold_version: int | None = None

    def refresh(self) -> None:
        """Reload what changed: the resident matrix, the COLD codes, or both."""
        super().refresh()
        version = self.store.cold_version()
        if version != self._cold_version:
            with self._loading:
                if version != self._cold_version:
                    self.cold = ColdCodes(*self.store.cold_vectors())
                    self._cold_version = version

    def vector_of(self, card_id: str) -> "np.ndarray | None":
        vector = self.resident.vector_of(card_id)
        return self.cold.vector_of(card_id) if vector is None else vector

    def vector_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> list[str]:
        """The ``top_k`` nearest cards of any tier, one ranking by similarity."""
        hits = self.resident.scored_search(queries, top_k, min_similarity) \
            + self.cold.scored_search(queries, top_k, min_similarity)
        hits.sort(key=lambda hit: -hit[1])
        return [card_id for card_id, _ in hits[:top_k]]


class ColdCodes:
    """One load of the COLD vectors: ids, int8 codes and their scales (a vector is ``code * scale``)."""

    def __init__(self, ids: list[str], codes: "np.ndarray | None", scales: "np.ndarray | None"):
        self.ids, self.codes, self.scales = ids, codes, scales
        self.position = {card_id: index for index, card_id in enumerate(ids)}

    def vector_of(self, card_id: str) -> "np.ndarray | None":
        import numpy as np

        index = self.position.get(card_id)
        return None if index is None else self.codes[index].astype(np.float32) * self.scales[index]

    def scored_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> list[tuple[str, float]]:
        """(id, similarity) of the ``top_k`` rows nearest any query, best first: integer products (SimSIMD) choose
        ``RESCORED_SHARE`` times as many, their dequantised vectors give the similarities."""
        import numpy as np
        import simsimd

        if not self.ids or not len(queries):
            return []
        queries = np.asarray(queries, dtype=np.float32)
        query_scales = (np.maximum(np.abs(queries).max(axis=1), 1e-12) / 127.0).astype(np.float32)
        query_codes = np.rint(queries / query_scales[:, None]).astype(np.int8)
        scores = np.asarray(simsimd.cdist(query_codes, self.codes, metric="dot", out_dtype="float32"))
        best = (scores * query_scales[:, None]).max(axis=0) * self.scales
        count = min(len(best), RESCORED_SHARE * top_k)
        rows = np.argpartition(-best, count - 1)[:count]
        exact = ((self.codes[rows].astype(np.float32) * self.scales[rows, None]) @ queries.T).max(axis=1)
        order = np.argsort(-exact)[:top_k]
        return [(self.ids[rows[index]], float(exact[index])) for index in order if exact[index] >= min_similarity]
