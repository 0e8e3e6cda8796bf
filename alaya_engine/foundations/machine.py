"""This store's machine id: who wrote a journal event or pushed a session, when several machines share one memory.

Made once per home (``<home>/machine.json``: host name and a random part, so two stores on one host differ) and
kept outside ``raw/``, so a backup restored on another machine starts a history of its own.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
from pathlib import Path

from .atomic import atomic_write_bytes, json_bytes

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def machine_id(home: Path) -> str:
    """The id of the store at ``home``, created on first use. An unreadable ``machine.json`` (damaged) is replaced
    by a new id rather than failing every journal write."""
    path = home / "machine.json"
    found = _read(path)
    if found is not None:
        return found
    draft = path.with_name(f".machine.{secrets.token_hex(4)}.tmp")
    with open(draft, "wb") as handle:
        handle.write(json_bytes({"id": _new_id()}))
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(draft, path)  # the first process to get here names the machine; the others read its id
    except FileExistsError:
        pass
    finally:
        draft.unlink(missing_ok=True)
    found = _read(path)
    if found is None:
        found = _new_id()
        atomic_write_bytes(path, json_bytes({"id": found}))
    return found


def _new_id() -> str:
    host = _UNSAFE.sub("-", socket.gethostname()).strip("-.")[:40] or "machine"
    return f"{host}-{secrets.token_hex(4)}"


def _read(path: Path) -> str | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))["id"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if isinstance(found, str) and found else None
