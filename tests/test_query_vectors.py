"""A concept asked again is served from the vectors kept, with the vector the model gives it."""

from __future__ import annotations

import numpy as np

from alaya_engine.embedding.local import LocalEmbedder
from alaya_engine.recall.query_vectors import QueryVectors


class CountingEmbedder(LocalEmbedder):
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, cache_dir):
        super().__init__(cache_dir)
        self.asked: list[str] = []

    def embed_query(self, texts):
        self.asked.extend(texts)
        return super().embed_query(texts)


def test_concepts_asked_again_embed_nothing_and_get_the_same_vectors(tmp_path):
    embedder = CountingEmbedder(tmp_path)
    kept = QueryVectors(embedder, kept=3)
    first = kept.of(["nginx 502 after deploy", "nginx 502"])
    assert np.allclose(first, embedder.encode(["nginx 502 after deploy", "nginx 502"]), atol=1e-5)
    again = kept.of(["nginx 502", "nginx 502 after deploy"])
    assert np.array_equal(again, first[::-1]) and embedder.asked == ["nginx 502 after deploy", "nginx 502"]
    kept.of(["proxy_read_timeout", "nginx 502", "why did the deploy fail"])  # four kept at most three: one goes
    assert embedder.asked[2:] == ["proxy_read_timeout", "why did the deploy fail"]
    kept.of(["nginx 502 after deploy"])  # the least recently asked was dropped, so it is embedded again
    assert embedder.asked[-1] == "nginx 502 after deploy" and len(embedder.asked) == 5
    assert kept.of([]).shape == (0, embedder.dimension)
