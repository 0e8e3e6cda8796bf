"""Relation names as vectors: how well an edge's relation answers the relations an agent asked for."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from ..foundations.errors import AlayaError

if TYPE_CHECKING:
    import numpy as np


class RelationSpace:
    def __init__(self, names: list[str], vectors: "np.ndarray"):
        self.names = list(names)
        self.position = {name: index for index, name in enumerate(self.names)}
        self.vectors = vectors

    def check_known(self, requested: list[str]) -> None:
        """Unknown names are refused with the nearest known ones, so an agent can correct itself."""
        for name in requested:
            if name not in self.position:
                close = difflib.get_close_matches(name, self.names, n=3, cutoff=0.4)
                hint = f"; did you mean {', '.join(close)}?" if close else "; list them with: alaya schema --relations"
                raise AlayaError("unknown_relation", f"unknown relation '{name}'{hint}")

    def similarity(self, relation: str, requested: list[str]) -> float:
        """1.0 for an exact match, else the best cosine to any requested relation (1.0 when none requested)."""
        if not requested or relation in requested:
            return 1.0
        if relation not in self.position:
            return 0.0
        vector = self.vectors[self.position[relation]]
        return max(float(self.vectors[self.position[name]] @ vector) for name in requested)

    def similarity_to_vectors(self, relation: str, queries: "np.ndarray") -> float:
        """How close a relation is to the query's concepts, for ``explorable`` when no relation was asked."""
        if relation not in self.position or not len(queries):
            return 0.0
        return float((queries @ self.vectors[self.position[relation]]).max())
