"""IdTable: many ids read in place instead of made into a Python string and a dict entry each.

A million cards' owner server held 3M ids (2M windows, 975k COLD cards) as strings with a dict from id to row:
~350 MB, and ~1 s of a restart spent building them again. Here they stay as saved: one UTF-8 blob and where each
id ends, and a 64-bit digest of each, sorted, with its row. A recall names its few dozen hits by row
(:meth:`IdTable.__getitem__`) and finds the rows of a few hundred ids by their digests (:meth:`IdTable.get`, ~4 µs:
a binary search comparing the ids themselves took ~50 µs in Python, 7 ms of a recall's graph reads).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class IdTable(Sequence):
    def __init__(self, blob: "np.ndarray", ends: "np.ndarray", digests: "np.ndarray", order: "np.ndarray"):
        """``blob``: the ids' UTF-8 bytes one after the other (uint8); ``ends``: where each ends; ``digests``: their
        :func:`digest` sorted (uint64); ``order``: the row of each sorted digest."""
        self._blob, self._ends, self._digests, self._order = memoryview(blob), ends, digests, order

    @staticmethod
    def arrays_of(ids: Sequence[str]) -> "dict[str, np.ndarray]":
        """What :class:`IdTable` is made from, for these ids (an IdTable gives its own)."""
        import numpy as np

        if isinstance(ids, IdTable):
            return {"ids_blob": np.frombuffer(ids._blob, dtype=np.uint8), "ids_ends": ids._ends,
                    "ids_digests": ids._digests, "ids_order": ids._order}
        encoded = [identifier.encode("utf-8") for identifier in ids]
        digests = np.fromiter((digest(identifier) for identifier in encoded), dtype=np.uint64, count=len(encoded))
        order = np.argsort(digests, kind="stable")
        return {"ids_blob": np.frombuffer(b"".join(encoded), dtype=np.uint8),
                "ids_ends": np.cumsum([len(identifier) for identifier in encoded], dtype=np.int64),
                "ids_digests": digests[order], "ids_order": order.astype(np.int64)}

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

    @property
    def position(self) -> "Positions":
        """Row by id, as a dict of them would answer."""
        return Positions(self)

    def get(self, identifier: str, default=None) -> int | None:
        """The row of ``identifier``, or ``default``."""
        import numpy as np

        wanted = identifier.encode("utf-8")
        key = np.uint64(digest(wanted))
        place = int(np.searchsorted(self._digests, key))
        while place < len(self._digests) and self._digests[place] == key:  # another id of the same digest: rare
            row = int(self._order[place])
            if self._bytes(row) == wanted:
                return row
            place += 1
        return default

    def rows(self, identifiers: Sequence[str]) -> "np.ndarray":
        """The row of each of ``identifiers`` (-1: none), their digests searched together: a recall looks up a few
        hundred ids at once, and one search of them all costs what a few calls of :meth:`get` do."""
        import numpy as np

        rows = np.full(len(identifiers), -1, dtype=np.int64)
        if not len(self._digests):
            return rows
        wanted = [identifier.encode("utf-8") for identifier in identifiers]
        keys = np.fromiter((digest(identifier) for identifier in wanted), dtype=np.uint64, count=len(wanted))
        places = np.minimum(np.searchsorted(self._digests, keys), len(self._digests) - 1)
        for position in np.nonzero(self._digests[places] == keys)[0].tolist():
            row = int(self._order[places[position]])
            rows[position] = row if self._bytes(row) == wanted[position] else self.get(identifiers[position], -1)
        return rows

    def _bytes(self, row: int) -> bytes:
        start = int(self._ends[row - 1]) if row else 0
        return bytes(self._blob[start:int(self._ends[row])])


class Positions(Mapping):
    """An :class:`IdTable`'s rows by id (``get``, ``[id]``, ``in``), without a dict."""

    def __init__(self, table: IdTable):
        self._table = table

    def __getitem__(self, identifier: str) -> int:
        row = self._table.get(identifier) if isinstance(identifier, str) else None
        if row is None:
            raise KeyError(identifier)
        return row

    def get(self, identifier: str, default=None):
        return self._table.get(identifier, default) if isinstance(identifier, str) else default

    def __contains__(self, identifier) -> bool:
        return self.get(identifier) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


def digest(identifier: bytes) -> int:
    """A stable 64-bit digest (Python's own ``hash`` differs from process to process)."""
    from hashlib import blake2b

    return int.from_bytes(blake2b(identifier, digest_size=8).digest(), "little")
