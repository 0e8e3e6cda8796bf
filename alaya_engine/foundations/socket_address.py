"""Where a store's owner server listens: ``<home>/alaya.sock``, or a short path when that one is too long.

A Unix socket's path is limited to 108 bytes (``sun_path``), so a deep home would break every command. A home
whose socket path fits keeps it beside the store; any other gets ``/tmp/alaya-<uid>/<hash of the home>.sock``
(the folder private to the user). The rule depends on nothing but the home's real path — not on the environment
— so a cron job, an agent and a terminal all find the same server. Imports only C modules: the recall fast path
(:mod:`alaya_engine.server.bare_client`) uses it too.
"""

from __future__ import annotations

import os

SOCKET_NAME = "alaya.sock"
MAX_SOCKET_PATH = 100
"""Bytes: below the kernel's 108 with room to spare."""


def socket_path(home: str) -> str:
    """The socket of the store at ``home`` (any spelling of it: symlinks and ``..`` resolve alike)."""
    real = os.path.realpath(home)
    beside = os.path.join(real, SOCKET_NAME)
    if len(os.fsencode(beside)) <= MAX_SOCKET_PATH:
        return beside
    try:
        from _sha256 import sha256
    except ImportError:  # Python 3.12 renamed the module
        from _sha2 import sha256
    return os.path.join(short_socket_dir(), sha256(os.fsencode(real)).hexdigest()[:24] + ".sock")


def short_socket_dir() -> str:
    """The per-user folder of the sockets of long homes (the server creates it, mode 0700)."""
    return f"/tmp/alaya-{os.getuid()}"
