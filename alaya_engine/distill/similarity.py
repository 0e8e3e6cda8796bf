"""The cards a new card may be ``SIMILAR_TO``: every active card vector, plus those a distill run adds."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

MAX_SIMILAR_PER_CARD = 3


class SimilarityIndex:
    """Every active card vector, plus the cards this run adds, for ``SIMILAR_TO`` across sessions."""

    def __init__(self, ids: list[str], matrix: "np.ndarray", session_of: dict[str, str]):
        self.ids = list(ids)
        self.matrix = matrix
        self.session_of = dict(session_of)
        self._pending: list["np.ndarray"] = []

    def add(self, session_id: str, ids: list[str], vectors: "np.ndarray") -> None:
        self.ids.extend(ids)
        self._pending.append(vectors)
        self.session_of.update(dict.fromkeys(ids, session_id))

    def similar(self, session_id: str, vector: "np.ndarray", threshold: float) -> list[tuple[str, float]]:
        """Up to ``MAX_SIMILAR_PER_CARD`` cards of *other* sessions at or above ``threshold`` cosine."""
        import numpy as np

        if self._pending:
            self.matrix = np.vstack([self.matrix, *self._pending])
            self._pending = []
        if not self.ids:
            return []
        scores = self.matrix @ vector
        found: list[tuple[str, float]] = []
        for index in np.argsort(-scores):
            if scores[index] < threshold or len(found) == MAX_SIMILAR_PER_CARD:
                break
            other = self.ids[index]
            if self.session_of.get(other) != session_id and other not in dict(found):
                found.append((other, float(scores[index])))
        return found
