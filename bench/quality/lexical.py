"""BM25, the lexical baseline, with one tokenizer for every dataset, Chinese or English.

``tokenize``: runs of CJK ideographs are split into words by jieba's search mode (a compound and its parts:
百年孤独 → 百年 孤独 百年孤独), everything else into lower-case ``[a-z0-9]+`` runs; no stop words, no stemming.
It is the harness's own, not the engine's (``alaya_engine.foundations.terms``), so the yardstick does not move when the
engine's full-text search changes.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter, defaultdict
from functools import lru_cache

import numpy as np

_RUNS = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[a-z0-9]+")


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    for run in _RUNS.findall(text.lower()):
        if run[0].isascii():
            tokens.append(run)
        else:
            tokens.extend(_jieba().lcut_for_search(run))
    return tokens


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75) over a small fixed corpus; ``scores`` returns one score per document."""

    def __init__(self, documents: list[str], k1: float = 1.2, b: float = 0.75):
        tokenized = [tokenize(document) for document in documents]
        self.k1 = k1
        self.size = len(tokenized)
        lengths = np.array([len(tokens) for tokens in tokenized], dtype=np.float64)
        average = lengths.mean() if self.size and lengths.mean() > 0 else 1.0
        self.norm = k1 * (1 - b + b * lengths / average)
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for doc, tokens in enumerate(tokenized):
            for term, count in Counter(tokens).items():
                self.postings[term].append((doc, count))
        self.idf = {term: math.log(1 + (self.size - len(posts) + 0.5) / (len(posts) + 0.5))
                    for term, posts in self.postings.items()}

    def scores(self, query: str) -> np.ndarray:
        scores = np.zeros(self.size, dtype=np.float64)
        for term in set(tokenize(query)):
            posts = self.postings.get(term)
            if not posts:
                continue
            docs = np.fromiter((doc for doc, _ in posts), dtype=np.int64, count=len(posts))
            tf = np.fromiter((count for _, count in posts), dtype=np.float64, count=len(posts))
            scores[docs] += self.idf[term] * tf * (self.k1 + 1) / (tf + self.norm[docs])
        return scores
