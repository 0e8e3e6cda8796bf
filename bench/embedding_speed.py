"""Embedding throughput of the default model on realistic card texts, at a few batch sizes.

The texts are what the store embeds for a card (``title\\ncontent``), taken from the synthetic generator
(:mod:`bench.synthetic`): 200–1200 characters, about a third of them Chinese. Every batch size embeds the
same texts, after one warm-up call, with the store's own embedder (``engine.embedder()``).
"""

from __future__ import annotations

import statistics
import time

from alaya_engine.engine import Engine

from .plan import Plan
from .report import Row
from .synthetic import generate, is_chinese

NAME = "embedding_speed"


def run(plan: Plan) -> list[Row]:
    count, batch_sizes = plan.pick((16, (1, 16)), (256, (1, 8, 32, 128)))
    cards = generate(count, seed=11)["cards"]
    texts = [card.embedding_text() for card in cards]
    chinese = sum(is_chinese(card.title) for card in cards)
    characters = statistics.mean(len(text) for text in texts)
    with plan.stores.empty() as home:
        embedder = Engine.open(home).embedder()
        embedder.embed(texts[:1])
        rows = []
        for size in batch_sizes:
            batches = [texts[start:start + size] for start in range(0, count, size)]
            per_batch = []
            for batch in batches:
                started = time.perf_counter()
                embedder.embed(batch)
                per_batch.append(time.perf_counter() - started)
            rows.append(Row(NAME, f"{embedder.name}, batch {size}", count / sum(per_batch), "texts/s",
                            f"{count} card texts ({chinese} Chinese, mean {characters:.0f} chars), "
                            f"{statistics.median(per_batch) * 1000:.0f} ms per batch p50"))
    return rows
