"""Partition: a large table's coarse codes grouped into lists of near rows, so that a search scores the lists
nearest to its query instead of every row (an inverted file over the coarse stage of :mod:`.index`).

At a million cards the coarse stage scored every row: 13 ms a concept for 975k COLD cards and ~35 ms for the 2M
windows of raw turns, most of a 67 ms recall. Grouped, a concept scores the nearest lists holding a
:data:`PROBE_SHARE`-th of the rows, and the exact stage re-scores the best of those as before.

The lists come from spherical k-means on a sample, in two levels (:data:`TOP_LISTS` groups, each split in up to
:data:`SUB_LISTS`), so placing two million rows costs two small products per row instead of one with every list;
a search scores every list's centre (a thousand products). What the lists lose against scoring every row is
measured on real texts by ``python -m bench --only search_quality`` (docs/benchmarks.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

PARTITION_ROWS = 200_000
"""Tables of more rows than this are partitioned (the aged 100k store's 200k windows are not; a million cards'
975k COLD cards and 2M windows are)."""
TOP_LISTS = 32
SUB_LISTS = 32
PROBE_SHARE = 12
"""A concept's nearest lists are scored until they hold at least this fraction of the rows (1/12)."""
TRAIN_ROWS = 32_768
ITERATIONS = 8
ASSIGN_BLOCK = 65_536


class Partition:
    """``centres`` (lists × dimensions, unit rows), ``starts`` (where each list's rows begin in the grouped order,
    one more than there are lists) and ``order`` (the row number of each grouped row)."""

    def __init__(self, centres: "np.ndarray", starts: "np.ndarray", order: "np.ndarray"):
        self.centres, self.starts, self.order = centres, starts, order

    @classmethod
    def build(cls, rows: "Callable[[slice], np.ndarray]", count: int) -> "Partition":
        """Lists over ``count`` rows, ``rows(positions)`` giving float rows block by block."""
        import numpy as np

        rng = np.random.default_rng(0)
        sample = _unit(rows(np.sort(rng.choice(count, min(count, TRAIN_ROWS), replace=False))))
        top = _spherical_kmeans(sample, TOP_LISTS, rng)
        nearest_top = np.argmax(sample @ top.T, axis=1)
        subs = [_spherical_kmeans(sample[nearest_top == group], SUB_LISTS, rng) for group in range(len(top))]
        first_list = np.cumsum([0] + [len(sub) for sub in subs])
        lists = np.empty(count, dtype=np.int32)
        for start in range(0, count, ASSIGN_BLOCK):
            block = rows(slice(start, start + ASSIGN_BLOCK))
            groups = np.argmax(block @ top.T, axis=1)
            for group in np.unique(groups):
                members = np.flatnonzero(groups == group)
                lists[start + members] = first_list[group] + np.argmax(block[members] @ subs[group].T, axis=1)
        order = np.argsort(lists, kind="stable")
        starts = np.searchsorted(lists[order], np.arange(first_list[-1] + 1)).astype(np.int64)
        return cls(np.vstack(subs).astype(np.float32), starts, order)

    def ranges(self, queries: "np.ndarray") -> list[tuple[int, int]]:
        """The grouped rows to score for these queries (rows in the coarse space): for each, its nearest lists
        until they hold a :data:`PROBE_SHARE`-th of the rows; their union as ``(start, stop)`` ranges, adjacent
        lists joined."""
        import numpy as np

        sizes = np.diff(self.starts)
        wanted = max(1, int(self.starts[-1]) // PROBE_SHARE)
        chosen = np.zeros(len(sizes), dtype=bool)
        for scores in queries @ self.centres.T:
            nearest = np.argsort(-scores)
            enough = int(np.searchsorted(np.cumsum(sizes[nearest]), wanted)) + 1
            chosen[nearest[:enough]] = True
        ranges: list[tuple[int, int]] = []
        for number in np.flatnonzero(chosen).tolist():
            start, stop = int(self.starts[number]), int(self.starts[number + 1])
            if ranges and ranges[-1][1] == start:
                ranges[-1] = (ranges[-1][0], stop)
            elif stop > start:
                ranges.append((start, stop))
        return ranges


def _unit(rows: "np.ndarray") -> "np.ndarray":
    import numpy as np

    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def _spherical_kmeans(sample: "np.ndarray", lists: int, rng) -> "np.ndarray":
    """``lists`` unit centres (fewer for a small sample: at least eight rows each) of the unit rows ``sample``."""
    import numpy as np

    count = max(1, min(lists, len(sample) // 8))
    if not len(sample):
        return np.zeros((1, sample.shape[1]), dtype=np.float32)
    centres = sample[rng.choice(len(sample), count, replace=False)].copy()
    for _ in range(ITERATIONS):
        nearest = np.argmax(sample @ centres.T, axis=1)
        members = np.zeros((len(sample), count), dtype=np.float32)
        members[np.arange(len(sample)), nearest] = 1.0
        sums = members.T @ sample  # np.add.at took ~0.2 s an iteration at 32k rows
        lengths = np.linalg.norm(sums, axis=1)
        kept = lengths > 0  # an empty list keeps its centre
        centres[kept] = sums[kept] / lengths[kept, None]
    return centres
