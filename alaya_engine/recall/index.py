"""ResidentIndex: the seeds of a recall — cards, or windows of raw turns — from exact vector search fused with
full-text search.

The HOT/WARM vectors are held as one numpy matrix and searched exactly (a
matmul is 10x faster than LanceDB's flat search at 100k rows); the matrix is
reloaded only when the vector table's version changes, so a long-lived
process keeps it resident. Full-text search is LanceDB's native index over
title, tags and content with the ``icu`` tokenizer (Chinese and English), so
identifiers like ``plugins.allow`` are found where embeddings miss them. The
two rankings are fused by reciprocal rank: ``score = Σ 1 / (60 + rank)``.

Above ``EXACT_SEARCH_ROWS`` resident vectors the exact product is the
largest part of a recall (13 ms of memory traffic per concept at 100k×512 on
this machine, ~2 ms at 14k), so the search runs in two stages: every card is
scored on its first principal components (a quarter of its dimensions, as
8-bit integers: a sixteenth of the traffic) plus an allowance for what those
leave out, and the best two-hundredth per concept is re-scored exactly. The
measured agreement with the exact search is in docs/benchmarks.md.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..foundations.background import run_in_background
from ..foundations.id_table import IdTable
from ..foundations.memory import release_freed_memory
from . import partition

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future

    import numpy as np

    from ..vectors.store import VectorStore
    from .saved_loads import SavedTable

RRF_K = 60
EXACT_SEARCH_ROWS = 5_000
"""Measured on an aged 100k-card store (14k HOT/WARM vectors): the two stages took recall from 22.9 to 17.9 ms
p50 with the same top 20 for every query; at 5k rows the exact product is ~1 ms a concept."""
BACKGROUND_RELOAD_ROWS = EXACT_SEARCH_ROWS
"""A table of more resident rows than this is reloaded beside recalls, not in one (:class:`ResidentIndex`): from
here on a load builds the coarse projection too, which the aged 100k store's 14k HOT and WARM cards made a recall
pay after every distill step of an ingest (recall p95 through the owner server during an ingest of 100 sessions
425-437 ms at 20,000, 197-203 ms at 5,000). Until the load, a card just written is scored on the vector its step
wrote (:meth:`~alaya_engine.vectors.store.VectorStore.written_vector`) and found by full-text search."""
COARSE_SHARE = 4
"""The coarse stage scores a card on this fraction of its dimensions (128 of the default model's 512)."""
MIN_COARSE_DIMENSIONS = 32
CANDIDATE_SHARE = 200
"""The coarse stage keeps one row in this many per concept (at least ``MIN_CANDIDATES``) for exact scoring."""
RESIDUAL_ALLOWANCE = 0.5
"""Weight of ``|q_rest|·|x_rest|`` in a coarse score (the parts of query and card outside the principal
directions). Without it, a card whose meaning lies mostly outside them ranks too low: on 100k real texts
(LoCoMo texts, Python comments; 600 LoCoMo questions, one or three concepts) the best two-hundredth held
98.9-99.4% of the exact top-20 members without the allowance and 100% with it, where the best hundredth
without it held 99.7-99.9%: half the rows to re-score, and no loss."""
MIN_CANDIDATES = 500
SAMPLE_ROWS = 20_000
"""Rows the principal components are computed from (every n-th resident vector)."""
THRESHOLD_SAMPLE = 8192
"""Rows (a fixed random choice) whose coarse scores set the threshold for the candidates."""
THRESHOLD_MARGIN = 1.25
"""The threshold lets this many times the wanted candidates pass, so the sample's error rarely leaves too few."""
BLOCK_ROWS = 1024
"""Rows scored against every concept before the next block, so a block is read from memory once."""
INTEGER_BLOCK_ROWS = 4096
"""Rows of int8 codes scored against every query before the next block (:func:`integer_products`)."""
RESCORED_SHARE = 4
"""Searching int8 codes without a coarse stage, this many times ``top_k`` rows are re-scored on their dequantised
vectors."""
PROJECTION_BLOCK = 8192
"""Rows projected at a time when the coarse stage is built (codes are dequantised a block at a time): 16 MB of
floats at 512 dimensions. 65,536 rows (128 MB a block, 256 MB while it was dequantised) set most of the owner
server's peak RSS; the codes come out the same whatever the block."""
RELOAD_PAUSE = 10
"""A background reload waits this many times the last one's duration before the next (a tenth of a core)."""
log = logging.getLogger(__name__)


class ResidentIndex:
    """The resident vectors of one L1 table (cards, or windows of raw turns), reloaded when it changes.

    A load is swapped in as one :class:`ResidentVectors`, so a recall on another thread of the owner server
    always sees ids, matrix and projection of the same load; :meth:`refresh` runs outside the store's step lock,
    so a reload (~1 s at 100k cards) never holds up a long job's next step.

    With ``background_above`` (the windows; the cards), a table of more rows than that is reloaded on a thread of
    its own, at most once per ``RELOAD_PAUSE`` times the last load's duration, while recalls go on with the
    previous load: an ingest commits windows session by session, and reloading 200k windows in every recall during
    one took recalls from 60 ms to 2 s. Rows added meanwhile are still found by full-text search (a card reached
    that way, or through the graph, is scored on its title until the reload: the one case a recall embeds more than
    the query); rows gone are skipped when read.
    """

    def __init__(self, vectors: "VectorStore", background_above: int | None = None,
                 saved: "SavedTable | None" = None):
        """``saved``: where this table's loads are saved by :meth:`save` and found again by a later process
        (:mod:`.saved_loads`)."""
        import threading

        self.store = vectors
        self.saved = saved
        self.resident = ResidentVectors([], None)
        self._version: int | None = None
        self._loading = threading.Lock()
        self._background_above = background_above
        self._next_background = 0.0

    @property
    def ids(self) -> list[str]:
        return self.resident.ids

    def refresh(self) -> None:
        """Reload the matrix if the vector table changed since the last load."""
        import threading
        import time

        version = self.store.vectors_version()
        if version == self._version:
            return
        if self._background_above is not None and len(self.resident.ids) > self._background_above:
            if time.monotonic() >= self._next_background and self._loading.acquire(blocking=False):
                threading.Thread(target=self._reload_in_background, args=(version,), name="alaya-reload",
                                 daemon=True).start()
            return
        with self._loading:
            if version != self._version:
                self._load_version(version)

    def _load_version(self, version: int) -> None:
        self.resident = self._restored(version) or self._read(version)
        self._version = version
        release_freed_memory()

    def _restored(self, version: int) -> "ResidentVectors | None":
        """The load of ``version`` a process saved before, if there is one."""
        return self.saved.restore(version) if self.saved is not None else None

    def _read(self, version: int) -> "ResidentVectors":
        """One load of the table at ``version``."""
        return ResidentVectors(*self.store.active_vectors())

    def save(self) -> bool:
        """Save the load held now for the next process, if it is of the table's current version and not saved yet
        (the owner server, as it stops)."""
        return self.saved is not None and self.saved.save(self.resident, self._version)

    def _reload_in_background(self, version: int) -> None:
        import time

        run_in_background()
        started = time.monotonic()
        try:
            self._load_version(version)
        except Exception:  # the previous load stays in use; the next refresh tries again
            log.exception("reloading resident vectors failed")
        finally:
            self._next_background = time.monotonic() + RELOAD_PAUSE * (time.monotonic() - started)
            self._loading.release()

    def vector_of(self, card_id: str) -> "np.ndarray | None":
        return self.resident.vector_of(card_id)

    def vectors_of(self, ids: list[str]) -> "list[np.ndarray | None]":
        """The vector of each of ``ids`` (None: not in the load), looked up together: a recall scores a few hundred
        cards and windows, and one by one each was a digest, a search and a one-row dequantisation."""
        return vectors_in([None] * len(ids), ids, (self.resident,))

    def vector_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> list[str]:
        return self.resident.vector_search(queries, top_k, min_similarity)

    def seeds(self, queries: "np.ndarray", full_text: "Future[dict[str, float]] | None", top_k: int,
              min_similarity: float) -> list[str]:
        """Vector hits fused with the full-text hits (a search the caller started on another thread, so it ran
        beside the query embedding); a full-text hit needs no minimum similarity."""
        ranked = [self.vector_search(queries, top_k, min_similarity)]
        if full_text is not None:
            ranked.append(full_text.result())
        fused: dict[str, float] = {}
        for ranking in ranked:
            for rank, card_id in enumerate(ranking, start=1):
                fused[card_id] = fused.get(card_id, 0.0) + 1.0 / (RRF_K + rank)
        return sorted(fused, key=lambda card_id: -fused[card_id])[:top_k]


def vectors_in(vectors: "list[np.ndarray | None]", ids: list[str],
               loads: "tuple[ResidentVectors, ...]") -> "list[np.ndarray | None]":
    """``vectors`` with each None filled from the first of ``loads`` that holds its id."""
    import numpy as np

    for load in loads:
        wanted = [position for position, vector in enumerate(vectors) if vector is None]
        if not wanted or not load.ids:
            continue
        rows = load.rows_of([ids[position] for position in wanted])
        held = rows >= 0
        for position, vector in zip(np.asarray(wanted)[held].tolist(), load.vectors_at(rows[held])):
            vectors[position] = vector
    return vectors


class ResidentVectors:
    """One load of resident vectors: ids, the matrix, and its coarse projection when there are many.

    The matrix is float32 rows, or — with ``scales`` — int8 codes, one scale per row (a vector is ``code *
    scale``): a quarter of the memory, for the tables that grow without bound (COLD cards, windows of raw turns).
    Codes are searched with SimSIMD's integer products and the best candidates re-scored on their dequantised
    rows, so a similarity is off by the codes' rounding only (~1e-3)."""

    def __init__(self, ids: list[str], matrix: "np.ndarray | None", scales: "np.ndarray | None" = None):
        self.ids, self.matrix, self.scales = ids, matrix, scales
        self.position = dict(zip(ids, range(len(ids))))
        coarse_dimensions = 0 if matrix is None else matrix.shape[1] // COARSE_SHARE
        many = len(ids) > EXACT_SEARCH_ROWS and coarse_dimensions >= MIN_COARSE_DIMENSIONS
        self.coarse = CoarseProjection(self.vectors_at, len(ids), coarse_dimensions) if many else None

    def arrays(self) -> "tuple[dict[str, np.ndarray], dict[str, list[str]]]":
        """What :meth:`of_arrays` makes this load again from: its arrays (the ids too, as an
        :class:`~alaya_engine.foundations.id_table.IdTable`) and lists of strings (none here); :mod:`.saved_loads`
        writes and maps them."""
        arrays = {"matrix": self.matrix, **IdTable.arrays_of(self.ids)}
        if self.scales is not None:
            arrays["scales"] = self.scales
        if self.coarse is not None:
            arrays.update({f"coarse_{name}": array for name, array in self.coarse.arrays().items()})
        return arrays, {}

    @classmethod
    def of_arrays(cls, arrays: "dict[str, np.ndarray]", texts: dict[str, list[str]]) -> "ResidentVectors":
        """The load :meth:`arrays` gave, as it was: nothing is computed again (its arrays may be mapped files),
        its ids read in place (an :class:`~alaya_engine.foundations.id_table.IdTable` and its ``position``)."""
        load = cls.__new__(cls)
        load.matrix, load.scales = arrays["matrix"], arrays.get("scales")
        load.ids = IdTable(arrays["ids_blob"], arrays["ids_ends"], arrays["ids_digests"], arrays["ids_order"])
        load.position = load.ids.position
        coarse = {name.removeprefix("coarse_"): array for name, array in arrays.items() if name.startswith("coarse_")}
        load.coarse = CoarseProjection.of_arrays(coarse) if coarse else None
        rows = {len(load.ids), len(load.matrix), *([len(load.scales)] if load.scales is not None else []),
                *([len(load.coarse.codes)] if load.coarse is not None else [])}
        if len(rows) > 1:
            raise ValueError(f"its arrays disagree on the number of rows ({sorted(rows)})")
        return load

    def vectors_at(self, positions) -> "np.ndarray":
        """Float rows of the matrix (``positions``: an index array or a slice), dequantised when it holds codes."""
        import numpy as np

        if self.scales is None:
            return self.matrix[positions]
        rows = self.matrix[positions].astype(np.float32)
        rows *= self.scales[positions, None]  # in place: a second float temporary doubled a block's memory
        return rows

    def vector_of(self, card_id: str) -> "np.ndarray | None":
        index = self.position.get(card_id)
        return None if index is None else self.vectors_at(slice(index, index + 1))[0]

    def rows_of(self, ids: list[str]) -> "np.ndarray":
        """The row of each of ``ids`` in this load (-1: none)."""
        import numpy as np

        if isinstance(self.ids, IdTable):
            return self.ids.rows(ids)
        return np.fromiter((self.position.get(row_id, -1) for row_id in ids), dtype=np.int64, count=len(ids))

    def vector_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> list[str]:
        return [row_id for row_id, _ in self.scored_search(queries, top_k, min_similarity)]

    def scored_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> list[tuple[str, float]]:
        """(id, similarity) of the ``top_k`` rows nearest to any query vector (at least ``min_similarity``), best
        first. Above ``EXACT_SEARCH_ROWS`` only the coarse stage's candidates are scored exactly.
        """
        import numpy as np

        if not self.ids or not len(queries):
            return []
        if self.coarse is not None:
            rows = self.coarse.candidates(queries, max(MIN_CANDIDATES, len(self.ids) // CANDIDATE_SHARE) * len(queries))
            if self.scales is not None and len(rows) > RESCORED_SHARE * top_k:
                # codes: their integer products choose among the candidates, as below; dequantising every
                # candidate (~10k rows a concept at 2M windows) took a third of a recall at a million cards
                rows = rows[_integer_candidates(self.matrix[rows], self.scales[rows], queries, RESCORED_SHARE * top_k)]
            best = best_similarity(self.vectors_at(rows), queries)
        elif self.scales is not None:
            rows = _integer_candidates(self.matrix, self.scales, queries, RESCORED_SHARE * top_k)
            best = best_similarity(self.vectors_at(rows), queries)
        else:
            rows, best = None, best_similarity(self.matrix, queries)
        count = min(top_k, len(best))
        top = np.argpartition(-best, count - 1)[:count]
        top = top[np.argsort(-best[top])]
        positions = top if rows is None else rows[top]
        return [(self.ids[position], float(score)) for position, score in zip(positions, best[top])
                if score >= min_similarity]


class CoarseProjection:
    """Every resident vector on the ``dimensions - 1`` directions that carry most of the dot products, plus the
    length of what those directions miss, held as 8-bit integers.

    The directions are the top eigenvectors of the (uncentred) second-moment matrix of a sample, so a
    projected dot product approximates the full one. The last coordinate holds each card's residual length and
    the query's last coordinate is :data:`RESIDUAL_ALLOWANCE` times its own: the one product then adds the
    allowance for free. Each coordinate is scaled by its largest magnitude to -127..127; a query is weighted by
    those scales and quantised with one scale of its own, so its integer products with the codes, times its
    scale, approximate the projected products. The codes are a sixteenth of the matrix's bytes and SimSIMD
    scores them with the CPU's integer dot-product instructions: 0.7-1.2 ms a concept at 100k cards against
    2-3 ms for the same 128 columns in float32 with numpy, the search's measured agreement unchanged
    (docs/benchmarks.md). Built in ~0.3 s at 100k cards, 13 MB beside the 200 MB matrix. While it is built the
    projection is held as float16 (its values are products of unit vectors, within ±1, where float16 keeps
    three decimals and a code step is 1/127 of the column's largest): half the float32 bytes, 512 MB less at
    2M windows of raw turns, at the moment the owner server's memory peaks.
    """

    def __init__(self, rows: "Callable[[slice], np.ndarray]", count: int, dimensions: int):
        """``rows(positions)``: float rows of the ``count`` vectors (read block by block: a matrix of codes is
        never dequantised whole)."""
        import numpy as np

        self.basis = _principal_directions(rows(slice(None, None, max(1, count // SAMPLE_ROWS))), dimensions - 1)
        projected = np.empty((count, dimensions), dtype=np.float16)  # until every column's largest value is known
        largest = np.zeros(dimensions, dtype=np.float32)
        for start in range(0, count, PROJECTION_BLOCK):
            block = rows(slice(start, start + PROJECTION_BLOCK))
            out = np.empty((len(block), dimensions), dtype=np.float32)
            np.matmul(block, self.basis, out=out[:, :-1])
            out[:, -1] = _residual_lengths(block, out[:, :-1])
            np.maximum(largest, np.abs(out).max(axis=0), out=largest)
            projected[start:start + len(block)] = out
        self.scales = (np.maximum(largest, 1e-12) / 127.0).astype(np.float32)
        self.codes = np.empty((count, dimensions), dtype=np.int8)
        for start in range(0, count, PROJECTION_BLOCK):
            self.codes[start:start + PROJECTION_BLOCK] = _quantised(
                projected[start:start + PROJECTION_BLOCK].astype(np.float32), self.scales)
        del projected
        self._sample = np.random.default_rng(0).choice(count, min(count, THRESHOLD_SAMPLE), replace=False)
        self.partition = None
        if count > partition.PARTITION_ROWS:
            self.partition = partition.Partition.build(self._projected_rows, count)
            self.codes = self.codes[self.partition.order]  # each list's rows together

    def _projected_rows(self, positions) -> "np.ndarray":
        """Rows of the projection (the residual's coordinate left out), from their codes."""
        import numpy as np

        return self.codes[positions, :-1].astype(np.float32) * self.scales[:-1]

    def arrays(self) -> "dict[str, np.ndarray]":
        arrays = {"basis": self.basis, "scales": self.scales, "codes": self.codes, "sample": self._sample}
        if self.partition is not None:
            arrays.update({"centres": self.partition.centres, "starts": self.partition.starts,
                           "order": self.partition.order})
        return arrays

    @classmethod
    def of_arrays(cls, arrays: "dict[str, np.ndarray]") -> "CoarseProjection":
        projection = cls.__new__(cls)
        projection.basis, projection.scales = arrays["basis"], arrays["scales"]
        projection.codes, projection._sample = arrays["codes"], arrays["sample"]
        projection.partition = partition.Partition(arrays["centres"], arrays["starts"], arrays["order"]) \
            if "centres" in arrays else None
        return projection

    def candidates(self, queries: "np.ndarray", count: int) -> "np.ndarray":
        """Row numbers, ascending, of at least ``count`` rows whose approximate similarity to any query is
        highest (a few more when the threshold below lets them in)."""
        import numpy as np

        queries = np.asarray(queries, dtype=np.float32)
        weighted = np.empty((len(queries), len(self.scales)), dtype=np.float32)
        np.matmul(queries, self.basis, out=weighted[:, :-1])
        weighted[:, -1] = RESIDUAL_ALLOWANCE * _residual_lengths(queries, weighted[:, :-1])
        ranges = None if self.partition is None else self.partition.ranges(weighted[:, :-1])
        weighted *= self.scales
        query_scales = (np.maximum(np.abs(weighted).max(axis=1), 1e-12) / 127.0).astype(np.float32)
        query_codes = _quantised(weighted, query_scales[:, None])
        if ranges is None:
            scores = integer_products(query_codes, self.codes)
            scores *= query_scales[:, None]
            return self._best_rows(scores.max(axis=0), count)
        grouped = np.concatenate([np.arange(start, stop) for start, stop in ranges])
        scores = np.concatenate([integer_products(query_codes, self.codes[start:stop]) for start, stop in ranges],
                                axis=1)
        scores *= query_scales[:, None]
        best = scores.max(axis=0)
        if count < len(best):
            grouped = grouped[np.argpartition(-best, count - 1)[:count]]
        return np.sort(self.partition.order[grouped])

    def _best_rows(self, scores: "np.ndarray", count: int) -> "np.ndarray":
        """Rows scoring at least a threshold read off a fixed random sample, set so that ~1.25x ``count`` rows
        pass: one comparison instead of a partition of every row (0.2 ms against 0.9 ms at 100k); the rare
        threshold that lets too few pass falls back to the partition."""
        import numpy as np

        if count >= len(scores):
            return np.arange(len(scores))
        sample = scores[self._sample]
        passing = min(len(sample), int(THRESHOLD_MARGIN * count * len(sample) / len(scores)) + 1)
        threshold = np.partition(sample, len(sample) - passing)[len(sample) - passing]
        rows = np.flatnonzero(scores >= threshold)
        if len(rows) >= count:
            return rows
        return np.sort(np.argpartition(scores, len(scores) - count)[len(scores) - count:])


def _principal_directions(sample: "np.ndarray", count: int) -> "np.ndarray":
    """The ``count`` directions that carry most of the sample's dot products, as columns. A function of its own so
    the sample (40 MB of floats at 200k windows) is freed before the projection is allocated."""
    import numpy as np

    _, directions = np.linalg.eigh(sample.T @ sample)
    return np.ascontiguousarray(directions[:, ::-1][:, :count], dtype=np.float32)


def _integer_candidates(codes: "np.ndarray", scales: "np.ndarray", queries: "np.ndarray", count: int) -> "np.ndarray":
    """Row numbers of the ``count`` rows of ``codes`` whose integer product with any query (quantised with a scale
    of its own), times their scales, is highest."""
    import numpy as np

    queries = np.asarray(queries, dtype=np.float32)
    query_scales = (np.maximum(np.abs(queries).max(axis=1), 1e-12) / 127.0).astype(np.float32)
    query_codes = np.rint(queries / query_scales[:, None]).astype(np.int8)
    scores = integer_products(query_codes, codes)
    best = (scores * query_scales[:, None]).max(axis=0) * scales
    if count >= len(best):
        return np.arange(len(best))
    return np.sort(np.argpartition(-best, count - 1)[:count])


def integer_products(queries: "np.ndarray", codes: "np.ndarray") -> "np.ndarray":
    """The int8 dot product of every query with every row of ``codes``, as float32 ``(queries, rows)``.

    Several queries go over the codes a block at a time, so a block is read from memory once for all of them:
    at 856k rows of 128 codes two concepts took 33 ms as one SimSIMD call and 24 ms in blocks of 4,096 rows."""
    import numpy as np
    import simsimd

    if len(queries) == 1:
        return np.asarray(simsimd.cdist(queries, codes, metric="dot", out_dtype="float32"))
    scores = np.empty((len(queries), len(codes)), dtype=np.float32)
    for start in range(0, len(codes), INTEGER_BLOCK_ROWS):
        scores[:, start:start + INTEGER_BLOCK_ROWS] = simsimd.cdist(
            queries, codes[start:start + INTEGER_BLOCK_ROWS], metric="dot", out_dtype="float32")
    return scores


def _quantised(values: "np.ndarray", scales: "np.ndarray") -> "np.ndarray":
    """``values / scales`` rounded to int8 (the scales put every value within -127..127); ``values`` is
    overwritten, so no second float temporary of the projection's size is made."""
    import numpy as np

    np.divide(values, scales, out=values)
    return np.rint(values, out=values).astype(np.int8)


def _residual_lengths(vectors: "np.ndarray", projected: "np.ndarray") -> "np.ndarray":
    """Length of each vector's part outside the projection (``einsum``: no temporary of the matrix's size)."""
    import numpy as np

    missing = np.einsum("ij,ij->i", vectors, vectors) - np.einsum("ij,ij->i", projected, projected)
    return np.sqrt(np.maximum(missing, 0.0)).astype(np.float32)


def best_similarity(matrix: "np.ndarray", queries: "np.ndarray") -> "np.ndarray":
    """Each row's highest dot product with any query.

    Block by block, so a block is still in cache for the second concept: at 100k×512 two concepts took
    22 ms this way, 28 ms as two whole products and 42 ms as one two-column product (OpenBLAS).
    """
    import numpy as np

    queries = np.asarray(queries, dtype=matrix.dtype)
    if len(queries) == 1:
        return matrix @ queries[0]
    best = np.empty(len(matrix), dtype=np.float32)
    for start in range(0, len(matrix), BLOCK_ROWS):
        block, out = matrix[start:start + BLOCK_ROWS], best[start:start + BLOCK_ROWS]
        np.dot(block, queries[0], out=out)
        for query in queries[1:]:
            np.maximum(out, block @ query, out=out)
    return best
