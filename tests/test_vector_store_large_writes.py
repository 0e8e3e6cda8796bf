"""Writes of many cards at once stay within LanceDB's memory pool: a merge is given its input slice by slice.

A merge on ``id`` holds its input's join in a pool that cannot spill (300 MB by default); the first cool-down of a
million-card store rewrote every card's heat in one merge and failed. Here the pool is made small
(``LANCE_MEM_POOL_SIZE``, read by a fresh process) so 20,000 cards overflow it the same way: the writes must
succeed in slices (cards written again too: known ids are merged), and the same writes in one merge must fail
(the test would otherwise prove nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import json, sys
import numpy as np
from alaya_engine.foundations.domain import Card
from alaya_engine.vectors import store as vector_store

folder, merge_bytes, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
vector_store.MERGE_BYTES = merge_bytes
vectors = vector_store.VectorStore(vector_store.Path(folder), 16)
vectors.create_tables()
cards = [Card(id=f"card-{n:016x}", title=f"card {n}", content=f"point {n}", type="concept", tags=[], importance=0.5,
              source_sessions=["s"], created_at=1, updated_at=1) for n in range(count)]
rng = np.random.default_rng(0)
matrix = rng.standard_normal((count, 16)).astype(np.float32)
matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
vectors.upsert_cards(cards, matrix)
vectors.refresh_full_text_index()  # and the ids' index, through which a merge on id matches its rows
ids = [card.id for card in cards]
for card in cards:
    card.title = "again " + card.title
try:
    vectors.upsert_cards(cards, matrix)  # known ids: merged
    vectors.update_heat_columns({"id": ids, "last_accessed": [7] * count, "access_count": [3] * count,
                                 "relevance": [0.25] * count, "temperature": [0.1] * count, "tier": ["COLD"] * count})
    vectors.archive_vectors(ids[: count // 2])
    vectors.set_vector_tiers({card_id: "WARM" for card_id in ids[count // 2:]})
except RuntimeError as error:
    print(json.dumps({"failed": str(error)[:200]}))
    sys.exit(0)
heat = vectors.heat_columns()
titles = vectors.table(vector_store.CARD_META).to_arrow().column("title").to_pylist()
cold_ids, codes, scales = vectors.cold_vectors()
row = {card_id: n for n, card_id in enumerate(ids)}
worst = np.abs(codes * scales[:, None] - matrix[[row[card_id] for card_id in cold_ids]]).max()
print(json.dumps({"retitled": sum(title.startswith("again ") for title in titles),
                  "tiers": sorted(set(heat["tier"])), "counts": sorted(set(heat["access_count"])),
                  "cold": len(cold_ids), "codes_err_below_0.01": bool(worst < 0.01),
                  "vector_tiers": sorted(set(vectors.vector_tiers().values())),
                  "vector_rows": len(vectors.vector_rows()[0])}))
"""

COUNT = 20_000
POOL = str(4 << 20)


def _write(folder, merge_bytes: int) -> dict:
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), str(merge_bytes), str(COUNT)],
                         capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[1],
                         env={**os.environ, "LANCE_MEM_POOL_SIZE": POOL})
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_heat_tiers_and_archived_vectors_of_many_cards_are_written_in_slices(tmp_path):
    written = _write(tmp_path / "sliced", 256 << 10)
    assert written == {"retitled": COUNT, "tiers": ["COLD"], "counts": [3], "cold": COUNT // 2,
                       "codes_err_below_0.01": True, "vector_tiers": ["WARM"], "vector_rows": COUNT // 2}
    whole = _write(tmp_path / "whole", 1 << 40)
    assert "Resources exhausted" in whole["failed"]
