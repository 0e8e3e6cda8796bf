"""QueryVectors: the vectors of the concepts recalls asked lately, kept so that asking again embeds nothing.

An agent's next request is often its last one again: recall's ``next_request`` advises reading further down with
the same text and more results, the explorer asks again as its user moves, an agent loop repeats its goal. Each
embedding of a query is most of what a recall computes outside its searches (~3 ms of the local model; a remote
provider's round trip), and the same concept always gets the same vector from one embedder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..foundations.last_used import LastUsed

if TYPE_CHECKING:
    import numpy as np

    from ..embedding.base import Embedder

KEPT = 512
"""Concepts whose vectors are kept, the least recently asked dropped first: 2 KB a vector at 512 dimensions, and a
request's concept is at most 4,000 characters (:data:`.query.MAX_TEXT_CHARS`), so ~3 MB at worst."""


class QueryVectors:
    def __init__(self, embedder: "Embedder", kept: int = KEPT):
        self.embedder = embedder
        self._vectors: LastUsed[str, "np.ndarray"] = LastUsed(kept)
        """Shared by the owner server's recalls, on several threads at once."""

    def of(self, concepts: list[str]) -> "np.ndarray":
        """One row per concept, as ``embedder.embed_query(concepts)`` gives; only the concepts not kept are
        embedded, together."""
        import numpy as np

        if not concepts:
            return np.zeros((0, self.embedder.dimension), np.float32)
        known = {concept: vector for concept in concepts if (vector := self._vectors.get(concept)) is not None}
        missing = list(dict.fromkeys(concept for concept in concepts if concept not in known))
        if missing:
            known.update(zip(missing, self.embedder.embed_query(missing)))
            for concept in missing:
                self._vectors.put(concept, known[concept])
        return np.vstack([known[concept] for concept in concepts])
