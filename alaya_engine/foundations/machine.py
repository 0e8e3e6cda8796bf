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

from .atomic import json_bytes

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def machine_id(home: Path) -> str:
    """The id of the store at ``home``, created on first use."""
    path = home / "machine.json"
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["id"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    host = _UNSAFE.sub("-", socket.gethostname()).strip("-.")[:40] or "machine"
    draft = path.with_name(f".machine.{secrets.token_hex(4)}.tmp")
    draft.write_bytes(json_bytes({"id": f"{host}-{secrets.token_hex(4)}"}))
    try:
        os.link(draft, path)  # the first process to get here names the machine; the others read its id
    except FileExistsError:
        pass
    finally:
        draft.unlink(missing_ok=True)
    return str(json.loads(path.read_text(encoding="utf-8"))["id"])
