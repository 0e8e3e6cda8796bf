"""The baselines: the same session files ranked without Alaya, by BM25 and by the store's own embedder.

- ``raw BM25`` / ``raw dense``: a unit is one turn;
- ``window BM25`` / ``window dense``: a unit is a window of turns (see :mod:`.units`), indexed as its lines;
- dense ranks by cosine between the question and the unit embedded by ``engine.embedder()``.

Every ranking is kept ``DEEP`` units deep, enough for any token budget the harness cuts at. Embeddings are
cached by text for the life of the process (:data:`VECTORS`): a dataset's texts are embedded once per run, and
the cross-lingual stores reuse the monolingual ones' turns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .lexical import BM25
from .records import Turn
from .scoring import Scored
from .units import Unit, joined, unit_of, windows

DEEP = 200
METHODS = ("raw BM25", "window BM25", "raw dense", "window dense")


class VectorCache:
    """Text → unit vector, per embedder name; ``embed`` embeds only the texts it has not seen."""

    def __init__(self):
        self.vectors: dict[tuple[str, str], np.ndarray] = {}
        self.embedded = 0
        self.seconds = 0.0

    def embed(self, embedder, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(text for text in texts if (embedder.name, text) not in self.vectors))
        if missing:
            started = time.perf_counter()
            for text, vector in zip(missing, embedder.embed(missing)):
                self.vectors[embedder.name, text] = vector
            self.seconds += time.perf_counter() - started
            self.embedded += len(missing)
        if not texts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.stack([self.vectors[embedder.name, text] for text in texts])


VECTORS = VectorCache()


def _ranked(scores: np.ndarray, units: list[Unit]) -> list[Unit]:
    return [units[i] for i in np.argsort(-scores, kind="stable")[:DEEP]]


@dataclass
class Baselines:
    """The four baselines over one haystack's turns, ready to rank questions."""

    turn_units: list[Unit]
    window_units: list[Unit]
    turn_bm25: BM25
    window_bm25: BM25
    turn_vectors: np.ndarray
    window_vectors: np.ndarray

    @classmethod
    def build(cls, turns: list[Turn], embedder) -> "Baselines":
        spans = windows(turns)
        turn_texts = [turn.text for turn in turns]
        window_texts = [joined(span) for span in spans]
        return cls([unit_of([turn]) for turn in turns], [unit_of(span) for span in spans],
                   BM25(turn_texts), BM25(window_texts),
                   VECTORS.embed(embedder, turn_texts), VECTORS.embed(embedder, window_texts))

    def rank(self, question, question_vector: np.ndarray) -> dict[str, Scored]:
        return {
            "raw BM25": Scored(question, _ranked(self.turn_bm25.scores(question.text), self.turn_units)),
            "window BM25": Scored(question, _ranked(self.window_bm25.scores(question.text), self.window_units)),
            "raw dense": Scored(question, _ranked(self.turn_vectors @ question_vector, self.turn_units)),
            "window dense": Scored(question, _ranked(self.window_vectors @ question_vector, self.window_units)),
        }
