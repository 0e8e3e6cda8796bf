"""Crash-safe file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via temp file + fsync + rename, then fsync the folder."""
    atomic_write_files({path: data})


def atomic_write_files(files: dict[Path, bytes]) -> None:
    """Write each file as :func:`atomic_write_bytes` does, then fsync each folder once, not once per file: a
    distilled session's context files are many small files in one folder."""
    folders = set()
    for path, data in files.items():
        if path.parent not in folders:
            path.parent.mkdir(parents=True, exist_ok=True)
            folders.add(path.parent)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp_name, path)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
    for folder in folders:
        _fsync_dir(folder)


def json_bytes(document: object) -> bytes:
    """How L3 stores a JSON document: indented, UTF-8, one newline at the end."""
    return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, document: object) -> None:
    atomic_write_bytes(path, json_bytes(document))


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX needs the directory entry flushed)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

