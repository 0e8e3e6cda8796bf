"""The seed search over resident vectors: exact below ``EXACT_SEARCH_ROWS``, two stages above it."""

from __future__ import annotations

import numpy as np

from alaya_engine.engine import Engine
from alaya_engine.recall import index as card_index
from alaya_engine.recall.index import ResidentIndex, ResidentVectors, best_similarity


def clustered(rows: int, dimension: int = 512, seed: int = 3) -> np.ndarray:
    """Unit vectors around 200 centres with most variance in a few dozen directions, like sentence embeddings."""
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(48, dimension))
    centres = rng.normal(size=(200, 48)) @ mixing
    matrix = centres[rng.integers(0, 200, rows)] + rng.normal(size=(rows, 48)) @ mixing * 0.4 \
        + rng.normal(scale=0.6, size=(rows, dimension))
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


def loaded(matrix: np.ndarray) -> ResidentIndex:
    index = ResidentIndex(vectors=None)
    index.resident = ResidentVectors([f"card-{row}" for row in range(len(matrix))], matrix)
    return index


def test_best_similarity_is_the_maximum_over_concepts_in_every_block():
    matrix = clustered(2500, 64)
    queries = clustered(3, 64, seed=9)
    assert np.allclose(best_similarity(matrix, queries), (matrix @ queries.T).max(axis=1), atol=1e-6)
    assert np.allclose(best_similarity(matrix, queries[:1]), matrix @ queries[0], atol=1e-6)


def test_small_stores_are_searched_exactly():
    index = loaded(clustered(3000))
    assert index.resident.coarse is None
    query = clustered(1, seed=11)
    expected = [f"card-{row}" for row in np.argsort(-(index.resident.matrix @ query[0]))[:20]]
    assert index.vector_search(query, 20, -1.0) == expected


def test_two_stages_find_what_the_exact_search_finds(monkeypatch):
    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 10_000)
    matrix = clustered(6000)
    queries = [clustered(1, seed=seed) for seed in range(100, 140)] + [matrix[[42]], matrix[[7, 4000]]]
    exact = [loaded(matrix).vector_search(query, 20, -1.0) for query in queries]
    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
    monkeypatch.setattr(card_index, "MIN_CANDIDATES", 0)
    index = loaded(matrix)
    assert index.resident.coarse is not None and index.resident.coarse.codes.shape == (6000, 128)
    approximate = [index.vector_search(query, 20, -1.0) for query in queries]
    overlap = [len(set(a) & set(b)) / 20 for a, b in zip(exact, approximate)]
    assert np.mean(overlap) >= 0.98, overlap
    assert all(found[0] == wanted[0] for found, wanted in zip(approximate, exact))
    assert approximate[-2][0] == "card-42" and set(approximate[-1][:2]) == {"card-7", "card-4000"}
    assert index.vector_search(queries[0], 20, 0.99) == []


def test_int8_codes_find_what_the_floats_find_with_and_without_the_coarse_stage(monkeypatch):
    """Windows and COLD cards are held as int8 codes with a scale per row: the same top 20 as the float matrix,
    small (integer products choose, dequantised rows score) and large (the coarse stage built from the codes)."""
    from alaya_engine.vectors.store import quantise_rows

    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 10_000)
    matrix = clustered(6000)
    queries = [clustered(1, seed=seed) for seed in range(200, 230)] + [matrix[[42]], matrix[[7, 4000]]]
    exact = [loaded(matrix).resident.scored_search(query, 20, -1.0) for query in queries]
    ids = [f"card-{row}" for row in range(len(matrix))]
    codes, scales = quantise_rows(matrix)
    for coarse in (False, True):
        if coarse:
            monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
            monkeypatch.setattr(card_index, "MIN_CANDIDATES", 0)
        quantised = ResidentVectors(ids, codes, scales)
        assert (quantised.coarse is not None) == coarse and quantised.matrix.dtype == np.int8
        found = [quantised.scored_search(query, 20, -1.0) for query in queries]
        overlap = [len({a for a, _ in one} & {b for b, _ in other}) / 20 for one, other in zip(exact, found)]
        assert np.mean(overlap) >= 0.98, (coarse, overlap)
        assert all(abs(dict(one).get(card, score) - score) < 3e-3 for one, other in zip(exact, found)
                   for card, score in other)
        assert found[-2][0][0] == "card-42" and {card for card, _ in found[-1][:2]} == {"card-7", "card-4000"}
        assert np.allclose(quantised.vector_of("card-42"), matrix[42], atol=3e-3)


def test_candidates_hold_the_best_rows_even_when_the_threshold_sample_misleads(monkeypatch):
    """The candidates pass a threshold read off a sample of the scores; when the sample sets it too high (here
    only sampled rows score at all), the partition of every row takes over."""
    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
    coarse = loaded(clustered(40000, 128)).resident.coarse
    rng = np.random.default_rng(5)
    typical = rng.normal(size=40000).astype(np.float32)
    misleading = np.zeros(40000, np.float32)
    misleading[coarse._sample] = rng.random(len(coarse._sample)) + 1.0
    for scores in (typical, misleading):
        rows = coarse._best_rows(scores, 1000)
        assert set(np.argsort(-scores)[:1000].tolist()) <= set(rows.tolist())
        assert np.all(np.diff(rows) > 0)
    assert 1000 <= len(coarse._best_rows(typical, 1000)) < 1600
    assert len(coarse._best_rows(misleading, 1000)) == 1000


def test_the_residual_allowance_keeps_cards_that_lie_outside_the_principal_directions(monkeypatch):
    """A card with nothing on the principal directions scores 0 on them whatever the query: the allowance (the
    coarse stage's last column) is what lets the exact stage see it when a query is about it."""
    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
    monkeypatch.setattr(card_index, "MIN_CANDIDATES", 0)
    spread = np.random.default_rng(8).normal(size=(6000, 256))
    common = np.hstack([spread / np.linalg.norm(spread, axis=1, keepdims=True), np.zeros((6000, 256))])
    outside = np.zeros(512)
    outside[-1] = 1.0
    matrix = np.vstack([common, outside]).astype(np.float32)
    index = loaded(matrix)
    coarse = index.resident.coarse
    lengths = np.sqrt(np.maximum(0.0, 1.0 - ((matrix @ coarse.basis) ** 2).sum(axis=1)))
    assert np.allclose(coarse.codes[:, -1] * coarse.scales[-1], lengths, atol=coarse.scales[-1])
    assert coarse.codes[-1, -1] == 127
    query = outside + 0.3 * matrix[0]
    query = (query / np.linalg.norm(query)).astype(np.float32)[None, :]
    assert index.vector_search(query, 20, -1.0)[:2] == ["card-6000", "card-0"]
    monkeypatch.setattr(card_index, "RESIDUAL_ALLOWANCE", 0.0)
    assert "card-6000" not in index.vector_search(query, 20, -1.0)


def test_narrow_vectors_stay_exact_however_many(monkeypatch):
    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 10)
    assert loaded(clustered(500, 64)).resident.coarse is None


def test_recall_hybrid_false_leaves_full_text_out(demo_home):
    """``proxy_next_upstream`` is in several demo cards. With full-text search their words count in their distance
    (the lexical share takes part of it off); without it, what is left is the cosine distance alone."""
    engine = Engine.open(demo_home)

    def cards_naming_it() -> dict[str, float]:
        return {node.card_id: node.concept_distance for node in engine.recall({"text": "proxy_next_upstream"}).nodes
                if node.kind == "card" and "proxy_next_upstream" in node.content}

    with_full_text = cards_naming_it()
    engine.config["recall"]["hybrid"] = False
    without = cards_naming_it()
    assert len(with_full_text) >= 3 and set(without) <= set(with_full_text)
    assert all(with_full_text[card_id] < distance for card_id, distance in without.items())


def test_the_coarse_codes_hold_the_projection_to_half_a_step(monkeypatch):
    """Each coordinate is scaled to -127..127 by its largest magnitude: rounding moves a value by at most half a
    step (plus float16's rounding of the projection while it is built), and the largest one lands on ±127 (no
    coordinate overflows int8)."""
    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
    matrix = clustered(3000)
    coarse = loaded(matrix).resident.coarse
    projected = matrix @ coarse.basis
    error = np.abs(coarse.codes[:, :-1] * coarse.scales[:-1] - projected)
    assert np.all(error <= coarse.scales[:-1] / 2 + np.abs(projected) * 2.0 ** -11 + 1e-6)
    assert np.all(np.abs(coarse.codes).max(axis=0) == 127)


def test_the_coarse_stage_of_codes_is_the_same_whatever_rows_it_projects_at_a_time(monkeypatch):
    """The projection is built block by block, so the dequantised rows are never held whole: the block size is
    memory only, never a different code or a different ranking."""
    from alaya_engine.vectors.store import quantise_rows

    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
    codes, scales = quantise_rows(clustered(3000))
    ids = [f"window-{row}" for row in range(len(codes))]
    queries = clustered(2, seed=11)
    built = []
    for block in (3000, 700, 128):
        monkeypatch.setattr(card_index, "PROJECTION_BLOCK", block)
        vectors = ResidentVectors(ids, codes, scales)
        built.append((vectors.coarse.codes, vectors.coarse.scales, vectors.scored_search(queries, 20, 0.0)))
    for other in built[1:]:
        assert np.array_equal(built[0][0], other[0]) and np.array_equal(built[0][1], other[1])
        assert built[0][2] == other[2]
    assert np.array_equal(vectors.vectors_at(slice(5, 9)), codes[5:9].astype(np.float32) * scales[5:9, None])


def test_integer_products_in_blocks_equal_one_product(monkeypatch):
    """Several queries are scored a block of codes at a time (the last block short): the same products as one
    SimSIMD call over every row."""
    import simsimd

    monkeypatch.setattr(card_index, "INTEGER_BLOCK_ROWS", 1000)
    rng = np.random.default_rng(3)
    codes = rng.integers(-127, 128, size=(4321, 64), dtype=np.int8)
    queries = rng.integers(-127, 128, size=(3, 64), dtype=np.int8)
    whole = np.asarray(simsimd.cdist(queries, codes, metric="dot", out_dtype="float32"))
    assert np.array_equal(card_index.integer_products(queries, codes), whole)
    assert np.array_equal(card_index.integer_products(queries[:1], codes), whole[:1])


def test_lists_of_near_rows_find_what_scoring_every_row_finds(monkeypatch, tmp_path):
    """Above ``PARTITION_ROWS`` the coarse stage scores only the lists nearest to each concept: the same best row
    for every query, nearly all the exact top 20, a twelfth to a quarter of the rows scored, and the lists saved
    and mapped back with the load."""
    from alaya_engine.recall import partition
    from alaya_engine.recall.saved_loads import SavedLoads, SavedTable

    monkeypatch.setattr(card_index, "EXACT_SEARCH_ROWS", 1000)
    monkeypatch.setattr(card_index, "MIN_CANDIDATES", 0)
    monkeypatch.setattr(partition, "PARTITION_ROWS", 5000)
    matrix = clustered(12_000)
    queries = [clustered(1, seed=seed) for seed in range(200, 240)] + [matrix[[42]], matrix[[7, 9000]]]
    exact = [[f"card-{row}" for row in np.argsort(-best_similarity(matrix, query))[:20]] for query in queries]
    index = loaded(matrix)
    lists = index.resident.coarse.partition
    assert lists is not None and len(lists.centres) >= 100  # 32 groups of up to 32 lists of 8 sample rows or more
    assert sorted(lists.order.tolist()) == list(range(12_000))
    for query in queries:
        ranges = lists.ranges(query @ index.resident.coarse.basis)
        scored = sum(stop - start for start, stop in ranges)
        assert 12_000 // partition.PROBE_SHARE <= scored <= 12_000 // 4
        assert all(first[1] < second[0] for first, second in zip(ranges, ranges[1:]))
    approximate = [index.vector_search(query, 20, -1.0) for query in queries]
    overlap = [len(set(a) & set(b)) / 20 for a, b in zip(exact, approximate)]
    assert np.mean(overlap) >= 0.95, overlap
    assert all(found[0] == wanted[0] for found, wanted in zip(approximate, exact))
    assert approximate[-2][0] == "card-42" and set(approximate[-1][:2]) == {"card-7", "card-9000"}

    table = SavedTable(SavedLoads(tmp_path), "cards", lambda: (1, "1-key"), ResidentVectors.of_arrays)
    assert table.save(index.resident, 1)
    restored = table.restore(1)
    assert restored.coarse.partition is not None
    assert [restored.vector_search(query, 20, -1.0) for query in queries] == approximate
