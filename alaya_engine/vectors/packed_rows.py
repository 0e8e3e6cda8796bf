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
    import numpy as np
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
        self.sessions: list[str] = sessions.dictionary.to_pylist()
        self.session_of = sessions.indices.to_numpy(zero_copy_only=False).copy()
        self.numbers = {name: batch.column(name).to_numpy(zero_copy_only=False).copy() for name in NUMBERS}
        texts = batch.column("text").to_pylist()
        self.ends = np.empty(self.num_rows, dtype=np.int32)
        """Where each row's text ends in its block's inflated bytes."""
        blocks = []
        for start in range(0, len(texts), BLOCK):
            encoded = [text.encode("utf-8") for text in texts[start:start + BLOCK]]
            self.ends[start:start + len(encoded)] = np.cumsum([len(text) for text in encoded])
            blocks.append(zlib.compress(b"".join(encoded), LEVEL))
        self.blob = b"".join(blocks)
        """Every block's compressed bytes, one after the other: one object, and what a saved load maps back."""
        self.block_ends = np.cumsum([len(block) for block in blocks], dtype=np.int64)

    @classmethod
    def of_parts(cls, num_rows: int, sessions: list[str], session_of: "np.ndarray", numbers: dict,
                 ends: "np.ndarray", blob, block_ends: "np.ndarray") -> "PackedRows":
        """Rows packed before (a saved load, :mod:`alaya_engine.recall.saved_loads`): its arrays as they were,
        ``blob`` any bytes-like object (a slice of a mapped file)."""
        rows = cls.__new__(cls)
        rows.num_rows, rows.sessions, rows.session_of, rows.numbers = num_rows, sessions, session_of, numbers
        rows.ends, rows.blob, rows.block_ends = ends, blob, block_ends
        return rows

    def row(self, index: int) -> dict[str, Any]:
        """Row ``index`` of the batch: its columns and its text."""
        block, place = divmod(index, BLOCK)
        start, end = int(self.ends[index - 1]) if place else 0, int(self.ends[index])
        block_start = int(self.block_ends[block - 1]) if block else 0
        # inflated only up to the row's end: half the block on average (a demo window 57 -> 35 µs)
        inflated = zlib.decompressobj().decompress(self.blob[block_start:int(self.block_ends[block])], end)
        return {"session_id": self.sessions[self.session_of[index]],
                **{name: int(column[index]) for name, column in self.numbers.items()},
                "text": inflated[start:end].decode("utf-8")}


def pack_batches(batches: list[PackedRows]) -> "tuple[dict[str, np.ndarray], list[str]]":
    """Several batches' rows as flat arrays (each batch's as it holds them, one after the other) and their session
    ids in one list, which :func:`unpack_batches` splits back into the same batches."""
    import numpy as np

    blobs = [batch.blob for batch in batches]
    arrays = {
        "counts": np.array([batch.num_rows for batch in batches], dtype=np.int64),
        "session_counts": np.array([len(batch.sessions) for batch in batches], dtype=np.int64),
        "block_counts": np.array([len(batch.block_ends) for batch in batches], dtype=np.int64),
        "blob_ends": np.cumsum([len(blob) for blob in blobs], dtype=np.int64),
        "blob": np.frombuffer(b"".join(blobs), dtype=np.uint8),
        "session_of": _joined([batch.session_of for batch in batches], np.int32),
        "ends": _joined([batch.ends for batch in batches], np.int32),
        "block_ends": _joined([batch.block_ends for batch in batches], np.int64),
        **{name: _joined([batch.numbers[name] for batch in batches], np.int64) for name in NUMBERS},
    }
    return arrays, [session for batch in batches for session in batch.sessions]


def unpack_batches(arrays: "dict[str, np.ndarray]", sessions: list[str]) -> list[PackedRows]:
    """The batches :func:`pack_batches` flattened, each a view of the arrays (which may be mapped files)."""
    batches = []
    row = session = block = blob_start = 0
    blob = memoryview(arrays["blob"])
    for count, session_count, block_count, blob_end in zip(
            arrays["counts"].tolist(), arrays["session_counts"].tolist(), arrays["block_counts"].tolist(),
            arrays["blob_ends"].tolist()):
        batches.append(PackedRows.of_parts(
            count, sessions[session:session + session_count], arrays["session_of"][row:row + count],
            {name: arrays[name][row:row + count] for name in NUMBERS}, arrays["ends"][row:row + count],
            blob[blob_start:blob_end], arrays["block_ends"][block:block + block_count]))
        row, session, block, blob_start = row + count, session + session_count, block + block_count, blob_end
    return batches


def _joined(arrays: list, dtype) -> "np.ndarray":
    import numpy as np

    return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)
