"""QueryVectors: the vectors of the concepts recalls asked lately, kept so that asking again embeds nothing.

An agent's next request is often its last one again: recall's ``next_request`` advises reading further down with
the same text and more results, the explorer asks again as its user moves, an agent loop repeats its goal. Each
embedding of a query is most of what a recall computes outside its searches (~3 ms of the local model; a remote
provider's round trip), and the same concept always gets the same vector from one embedder.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from ..embedding.base import Embedder

KEPT = 512
"""Concepts whose vectors are kept, the least recently asked dropped first (2 KB each at 512 dimensions)."""


class QueryVectors:
    def __init__(self, embedder: "Embedder", kept: int = KEPT):
        self.embedder = embedder
        self._kept = kept
        self._vectors: OrderedDict[str, "np.ndarray"] = OrderedDict()
        self._lock = threading.Lock()
        """The owner server recalls on several threads at once."""

    def of(self, concepts: list[str]) -> "np.ndarray":
        """One row per concept, as ``embedder.embed_query(concepts)`` gives; only the concepts not kept are
        embedded, together."""
        import numpy as np

        with self._lock:
            known = {concept: self._vectors[concept] for concept in concepts if concept in self._vectors}
            for concept in known:
                self._vectors.move_to_end(concept)
        missing = list(dict.fromkeys(concept for concept in concepts if concept not in known))
        if missing:
            known.update(zip(missing, self.embedder.embed_query(missing)))
            with self._lock:
                for concept in missing:
                    self._vectors[concept] = known[concept]
                while len(self._vectors) > self._kept:
                    self._vectors.popitem(last=False)
        if not concepts:
            return np.zeros((0, self.embedder.dimension), np.float32)
        return np.vstack([known[concept] for concept in concepts])
