"""The store's exclusive lock: one process at a time may open the graph database.

LadybugDB/Kuzu refuse a second read-write opener outright and have no wait
option, so every process takes this ``fcntl`` lock first, waits a bounded time,
and names the holder when the wait runs out.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from .errors import RUNTIME, AlayaError

POLL_SECONDS = 0.05
GIVE_UP_CHECK_SECONDS = 0.5
"""How often a waiter asks its ``give_up`` whether to stop waiting (an owner server: whether another one answers)."""
OWNER_SERVER = "alaya serve (owner server"
"""How the owner server names itself as the lock's holder: ``alaya serve (owner server, pid 1234)``."""


class StoreLock:
    """A re-entrant (within one process) exclusive lock on ``lock_file``.

    ``give_up``, when set, is asked while waiting whether the wait has become pointless; an owner server waiting
    for its store sets it to "another server answers on the socket": otherwise, started beside that one by a second
    client, it would wait on and take the store over once the first stopped, a server nobody asked for undoing an
    ``alaya server stop`` and racing ``rebuild`` or ``restore`` for the lock."""

    def __init__(self, lock_file: Path, wait_seconds: float, command: str | None = None):
        self.lock_file = lock_file
        self.wait_seconds = wait_seconds
        self.command = command or " ".join(["alaya", *sys.argv[1:]])[:200]
        self.give_up: Callable[[], bool] | None = None
        self._fd: int | None = None
        self._depth = 0

    def acquire(self) -> None:
        if self._depth:
            self._depth += 1
            return
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.wait_seconds
        next_check = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pointless = False
                if self.give_up is not None and time.monotonic() >= next_check:
                    pointless = self.give_up()
                    next_check = time.monotonic() + GIVE_UP_CHECK_SECONDS
                if pointless or time.monotonic() >= deadline:
                    holder = self._read_holder(fd)
                    os.close(fd)
                    code = "server_stopping_busy" if _stopping(holder) else "store_locked"
                    raise AlayaError(code, self._busy_message(holder), RUNTIME) from None
                time.sleep(POLL_SECONDS)
        self._write_holder(fd)
        self._fd = fd
        self._depth = 1

    def release(self) -> None:
        if not self._depth:
            return
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "StoreLock":
        self.acquire()
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def _write_holder(self, fd: int, **extra) -> None:
        holder = {
            "pid": os.getpid(),
            "command": self.command,
            "since": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            **extra,
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)

    def mark_stopping(self) -> None:
        """Say in the lock file that the holder is stopping (an owner server finishing its last jobs), so that a
        command waiting for the store is told that, not advised to stop a server that is already stopping."""
        if self._fd is not None:
            try:
                self._write_holder(self._fd, stopping_since=time.time())
            except OSError:  # a full disk: the message falls back to the plain one
                pass

    @staticmethod
    def _read_holder(fd: int) -> dict:
        try:
            return json.loads(os.pread(fd, 4096, 0) or b"{}")
        except (OSError, ValueError):
            return {}

    def _busy_message(self, holder: dict) -> str:
        who = (f"pid {holder.get('pid', '?')} ('{holder.get('command', 'unknown command')}', "
               f"since {holder.get('since', '?')})")
        home = self.lock_file.parent
        if _stopping(holder):
            stopping = max(0.0, time.time() - holder["stopping_since"])
            return (f"the server for {home} (pid {holder.get('pid', '?')}) is stopping: it has been finishing the "
                    f"jobs it had started for {stopping:.0f} s; run the command again once it has stopped "
                    f"(see: alaya --home {home} server status)")
        if is_owner_server(holder):
            remedy = ("run the command without --no-server (the server runs it), or stop the server first: "
                      f"alaya --home {home} server stop")
        else:
            remedy = "try again when it finishes, or raise lock.wait_seconds in config.json for long jobs"
        return f"store {home} is busy: {who} holds it; waited {self.wait_seconds:g} s. {remedy}"


def is_owner_server(holder: dict) -> bool:
    return str(holder.get("command", "")).startswith(OWNER_SERVER)


def _stopping(holder: dict) -> bool:
    return is_owner_server(holder) and isinstance(holder.get("stopping_since"), (int, float))


def held_by(lock_file: Path) -> dict | None:
    """Who holds the store's lock now (its pid, command and since), or None when nobody does.

    The lock, not a pid file, is the proof: a pid file outlives a killed process and its pid may be reused.
    """
    try:
        fd = os.open(lock_file, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return StoreLock._read_holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
