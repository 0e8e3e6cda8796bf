"""PackedRows: the rows of one batch of windows of raw turns, held compactly for the owner server's recalls.

A recall returns a few windows of the hundreds of thousands it searched, and reads their text from memory rather
than from LanceDB (reading five of 200k there took 4-6 ms of a recall). Held as Arrow strings, that text was
most of what the rows cost (121 of 134 MB at 200k windows). Consecutive windows of a session share turns (three
turns a window, two apart) and their speakers' names, so the text of :data:`BLOCK` consecutive rows compresses
well together: zlib at level 1 made the same text 20 MB (6×) in 0.6 s, and reading one row back inflates one block
(6 µs a row, against 9 µs for a slice of an Arrow batch). The short columns are numpy arrays, the session id an
index into the batch's sessions.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

BLOCK = 32
"""Rows whose texts are compressed together."""
LEVEL = 1
"""zlib's level: 6 made blocks 15% smaller and the load half again as long."""
NUMBERS = ("first", "last", "time")
"""The integer columns kept beside ``session_id`` and ``text``."""


class PackedRows:
    """One LanceDB batch's window rows (``id`` aside: the index holds the ids) with their texts in zlib blocks."""

    def __init__(self, batch: "pa.RecordBatch"):
        """``batch``: the columns ``session_id``, :data:`NUMBERS` and ``text``. Every column is copied: a slice of
        LanceDB's batch would keep the whole batch alive, its vectors included."""
        import numpy as np
        import pyarrow as pa

        self.num_rows = batch.num_rows
        sessions = pa.concat_arrays([batch.column("session_id")]).dictionary_encode()
        self._sessions: list[str] = sessions.dictionary.to_pylist()
        self._session_of = sessions.indices.to_numpy(zero_copy_only=False).copy()
        self._numbers = {name: batch.column(name).to_numpy(zero_copy_only=False).copy() for name in NUMBERS}
        texts = batch.column("text").to_pylist()
        self._ends = np.empty(self.num_rows, dtype=np.int32)
        """Where each row's text ends in its block's inflated bytes."""
        self._blocks: list[bytes] = []
        for start in range(0, len(texts), BLOCK):
            encoded = [text.encode("utf-8") for text in texts[start:start + BLOCK]]
            self._ends[start:start + len(encoded)] = np.cumsum([len(text) for text in encoded])
            self._blocks.append(zlib.compress(b"".join(encoded), LEVEL))

    def row(self, index: int) -> dict[str, Any]:
        """Row ``index`` of the batch: its columns and its text."""
        block, place = divmod(index, BLOCK)
        start = int(self._ends[index - 1]) if place else 0
        text = zlib.decompress(self._blocks[block])[start:int(self._ends[index])].decode("utf-8")
        return {"session_id": self._sessions[self._session_of[index]],
                **{name: int(column[index]) for name, column in self._numbers.items()}, "text": text}
