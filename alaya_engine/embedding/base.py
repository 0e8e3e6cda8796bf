"""The embedding provider interface.

Every provider turns a list of texts into an ``(n, dimension)`` float32 matrix
of L2-normalised rows, so cosine similarity is a plain dot product everywhere
else in the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


class Embedder(Protocol):
    """What the engine needs from an embedding model."""

    name: str
    """Identifies the model; stored with the store so it cannot silently change."""

    dimension: int

    def embed(self, texts: list[str]) -> "np.ndarray":
        """Embed documents (cards, windows of turns, relation names); float32 ``(len(texts), dimension)``, rows
        L2-normalised."""
        ...

    def embed_each(self, lists: list[list[str]]) -> list["np.ndarray"]:
        """:meth:`embed` of each list (the same rows as a call of its own), in one call: a distill step embeds its
        sessions' cards together, where a session's few cards alone would leave a core idle."""
        ...

    def embed_query(self, texts: list[str]) -> "np.ndarray":
        """Embed what a recall asks: the same as :meth:`embed` for symmetric models (the default USE); asymmetric
        ones (e5: ``query: `` / ``passage: ``) mark the two sides differently."""
        ...


def normalise_rows(matrix: "np.ndarray") -> "np.ndarray":
    """Return ``matrix`` as float32 with unit-length rows (zero rows stay zero)."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
