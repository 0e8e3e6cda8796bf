"""IdTable: the ids of a saved load, read in place instead of made into a Python string and a dict entry each.

A million cards' owner server held 3M ids (2M windows, 975k COLD cards) as strings with a dict from id to row:
~350 MB, and ~1 s of a restart spent building them again. Here they stay as saved: one UTF-8 blob, where each id
ends, and the rows in id order; a recall names its few dozen hits by row (:meth:`IdTable.__getitem__`) and finds
the rows of a few ids by binary search (:meth:`IdTable.get`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class IdTable(Sequence):
    def __init__(self, blob: "np.ndarray", ends: "np.ndarray", order: "np.ndarray"):
        """``blob``: the ids' UTF-8 bytes one after the other (uint8); ``ends``: where each ends; ``order``: the rows
        sorted by id (by their bytes, which for UTF-8 is the order of the strings)."""
        self._blob, self._ends, self._order = memoryview(blob), ends, order

    @staticmethod
    def arrays_of(ids: Sequence[str]) -> "dict[str, np.ndarray]":
        """What :class:`IdTable` is made from, for these ids (an IdTable gives its own)."""
        import numpy as np

        if isinstance(ids, IdTable):
            return {"ids_blob": np.frombuffer(ids._blob, dtype=np.uint8), "ids_ends": ids._ends,
                    "ids_order": ids._order}
        encoded = [identifier.encode("utf-8") for identifier in ids]
        return {"ids_blob": np.frombuffer(b"".join(encoded), dtype=np.uint8),
                "ids_ends": np.cumsum([len(identifier) for identifier in encoded], dtype=np.int64),
                "ids_order": np.array(sorted(range(len(encoded)), key=encoded.__getitem__), dtype=np.int64)}

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, row) -> str:
        if isinstance(row, slice):
            return [self[index] for index in range(*row.indices(len(self)))]
        return self._bytes(int(row)).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return (self[row] for row in range(len(self)))

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None

    def get(self, identifier: str, default=None) -> int | None:
        """The row of ``identifier``, or ``default``."""
        wanted = identifier.encode("utf-8")
        order = self._order
        place = bisect_left(range(len(order)), wanted, key=lambda index: self._bytes(int(order[index])))
        if place < len(order) and self._bytes(int(order[place])) == wanted:
            return int(order[place])
        return default

    def _bytes(self, row: int) -> bytes:
        start = int(self._ends[row - 1]) if row else 0
        return bytes(self._blob[start:int(self._ends[row])])
