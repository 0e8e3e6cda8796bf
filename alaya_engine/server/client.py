"""The thin client: find the store's server (starting one if allowed) and send it a request.

Imports nothing heavy (no numpy, LanceDB, graph database, model, rich or
Textual), so ``alaya recall --json`` against a warm server costs little more
than starting Python.

It never waits forever: connecting gives up after ``server.connect_timeout``, and a request after
``server.request_timeout`` without a word from the server (a live server sends progress or a heartbeat every
second while it works, so only a stopped or wedged one stays silent). A server that cannot start says why.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

from .. import __version__
from ..foundations.errors import RUNTIME, USAGE, AlayaError
from ..foundations.paths import Layout
from .protocol import (
    CONNECT_TIMEOUT,
    DEFAULT_MAX_SESSION_BYTES,
    PROTOCOL_VERSION,
    REQUEST_TIMEOUT,
    encode,
    frame_limit,
    read_message,
)

TYPE_CHECKING = False
"""Not ``typing.TYPE_CHECKING``: importing ``typing`` costs ~7 ms on every client start."""

if TYPE_CHECKING:
    from collections.abc import Callable

POLL_SECONDS = 0.05
STOP_TIMEOUT = 30.0
RESTART_CODES = ("version_mismatch", "server_stopping")
"""Errors after which the client starts a fresh server and asks again (nothing has run)."""


class ServerSettings:
    """The ``server`` section of config.json, read cheaply (no validation: a broken config is reported by the
    engine once a command runs; here it just means defaults)."""

    def __init__(self, home: Path):
        try:
            config = json.loads((home / "config.json").read_text(encoding="utf-8"))
            section = config.get("server", {})
            values = {key: section.get(key, default) for key, default in self.defaults().items()}
            self.autostart = bool(values.pop("autostart"))
            self.start_timeout, self.connect_timeout, self.request_timeout = (float(value) for value in values.values())
        except (OSError, ValueError, AttributeError, TypeError):
            config = {}
            self.autostart, self.start_timeout, self.connect_timeout, self.request_timeout = (
                self.defaults().values())
        try:
            self.max_request = frame_limit(int(float(config["ingest"]["max_file_mb"]) * 1_000_000))
        except (KeyError, ValueError, TypeError, AttributeError):
            self.max_request = frame_limit(DEFAULT_MAX_SESSION_BYTES)
        """The longest request the server reads (:func:`.protocol.frame_limit`)."""

    @staticmethod
    def defaults() -> dict:
        return {"autostart": True, "start_timeout": 30.0, "connect_timeout": CONNECT_TIMEOUT,
                "request_timeout": REQUEST_TIMEOUT}


def read_server_settings(home: Path) -> tuple[bool, float]:
    """(``server.autostart``, ``server.start_timeout``)."""
    settings = ServerSettings(home)
    return settings.autostart, settings.start_timeout


class ServerClient:
    def __init__(self, home: Path, settings: ServerSettings | None = None):
        self.home = home
        self.settings = settings or ServerSettings(home)
        self.socket_path = Layout(home).socket

    def call(self, method: str, params: dict | None = None,
             progress: Callable[[int, int], None] | None = None, request_timeout: float | None = None) -> dict:
        """Send one request; returns the result document or raises the server's error as AlayaError.

        A server at its connection cap is asked again for up to ``server.connect_timeout``."""
        deadline = time.monotonic() + self.settings.connect_timeout
        pause = POLL_SECONDS
        while True:
            try:
                return self._call_once(method, params, progress, request_timeout)
            except AlayaError as error:
                if error.code != "server_busy" or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)

    def _call_once(self, method: str, params: dict | None, progress: Callable[[int, int], None] | None,
                   request_timeout: float | None) -> dict:
        data = encode({"v": PROTOCOL_VERSION, "id": 1, "method": method, "params": params or {},
                       "client_version": __version__})
        if len(data) > self.settings.max_request:  # the server would hang up mid-way, the reason unread
            raise AlayaError("request_too_large", f"this request is {len(data) / 2 ** 20:.0f} MiB; the server for "
                                                  f"{self.home} reads requests of up to "
                                                  f"{self.settings.max_request / 2 ** 20:.0f} MiB: send less", USAGE)
        connection = self._connect()
        timeout = request_timeout or self.settings.request_timeout
        try:
            connection.settimeout(timeout)
            connection.sendall(data)
            with connection.makefile("rb") as stream:
                while True:
                    message = read_message(stream)
                    if message is None:
                        raise self._gone()
                    if "progress" in message:
                        if progress:
                            progress(*message["progress"])
                        continue
                    if message.get("working"):
                        continue
                    if "error" in message:
                        error = message["error"]
                        raise AlayaError(error["code"], error["message"], error.get("exit_code", RUNTIME))
                    return message["result"]
        except TimeoutError:
            raise unresponsive(self.home, timeout) from None
        except (ConnectionResetError, BrokenPipeError):
            raise self._gone() from None
        finally:
            connection.close()

    def _gone(self) -> AlayaError:
        return AlayaError("server_gone", f"the server for {self.home} closed the connection mid-request; "
                                         "see logs/server.log", RUNTIME)

    def answers(self) -> bool:
        """A server accepts connections (False when none listens; AlayaError when one is there but stuck)."""
        try:
            self._connect().close()
            return True
        except OSError:
            return False

    def _connect(self) -> socket.socket:
        """A connection within ``server.connect_timeout``; a full backlog (EAGAIN: a server is there but does not
        accept) is tried again until then."""
        deadline = time.monotonic() + self.settings.connect_timeout
        while True:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.settimeout(max(deadline - time.monotonic(), POLL_SECONDS))
            try:
                connection.connect(str(self.socket_path))
                return connection
            except (BlockingIOError, TimeoutError):
                connection.close()
                if time.monotonic() >= deadline:
                    break
                time.sleep(POLL_SECONDS)
            except OSError:
                connection.close()
                raise
        raise AlayaError("server_unresponsive", f"the server for {self.home} accepted no connection within "
                                                f"{self.settings.connect_timeout:g} s (overloaded, stopped or stuck); "
                                                "run: alaya server restart", RUNTIME)


def unresponsive(home: Path | str, seconds: float) -> AlayaError:
    """What a client says when the server fell silent: what happened, and the way out."""
    return AlayaError("server_unresponsive", f"the server for {home} sent nothing for {seconds:g} s (stopped or "
                                             "stuck); run: alaya server restart (or raise server.request_timeout "
                                             "in config.json)", RUNTIME)


def start_server(home: Path, timeout: float) -> ServerClient:
    """Start a detached server (own session, output to logs/server.log) and wait until it answers.

    The server tells through a pipe when it listens or why it cannot start, so a failure (a bad config, an
    unreachable embedding endpoint, a damaged table) is reported at once, with its own message and exit code.
    """
    import select
    import subprocess

    client = ServerClient(home)
    log_path = home / "logs" / "server.log"
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_file = open(log_path, "ab")
    except OSError as error:
        raise AlayaError("io_error", f"cannot start the Alaya server: cannot write {log_path} "
                                     f"({error.strerror}); check the store's permissions and free space",
                         RUNTIME) from None
    read_end, write_end = os.pipe()
    with log_file:
        process = subprocess.Popen([sys.executable, "-m", "alaya_engine.server", "--home", str(home),
                                    "--ready-fd", str(write_end)],
                                   stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                                   start_new_session=True, close_fds=True, pass_fds=(write_end,))
    os.close(write_end)
    told = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if client.answers():
                return client
            if read_end < 0:
                time.sleep(POLL_SECONDS)
                continue
            if not select.select([read_end], [], [], POLL_SECONDS)[0]:
                continue
            chunk = os.read(read_end, 1 << 16)
            told += chunk
            if told.startswith(b"{") and told.endswith(b"\n"):
                failure = json.loads(told)
                message = failure["message"]  # a server still stopping: that says it all
                if failure["code"] != "server_stopping_busy":
                    message = f"the Alaya server for {home} cannot start: {message}"
                raise AlayaError(failure["code"], message, failure.get("exit_code", RUNTIME))
            if not chunk:  # the pipe closed: it listens ("ready"), another server owns the store ("done"), or it died
                read_end = _closed(read_end)
                if not told and process.wait() != 0:
                    break
    finally:
        _closed(read_end)
    if client.answers():
        return client
    tail = _tail(log_path)
    what = (f"exited (code {process.returncode}) before serving" if process.poll() is not None
            else f"did not answer within {timeout:g} s")
    raise AlayaError("server_start_failed", f"the Alaya server for {home} {what}{': ' + tail if tail else ''}; "
                                            f"see {log_path}, or run with --no-server", RUNTIME)


def _closed(fd: int) -> int:
    if fd >= 0:
        os.close(fd)
    return -1


def connect(home: Path, autostart: bool, timeout: float) -> ServerClient | None:
    """A client for a live server, starting one when allowed; None when the caller should run in-process."""
    client = ServerClient(home)
    if client.answers():
        return client
    if not autostart:
        return None
    return start_server(home, timeout)


def call_with_restart(client: ServerClient, method: str, params: dict, progress, autostart: bool,
                      timeout: float) -> dict:
    """Call; if the server runs another version (or is stopping), let it finish and start a fresh one."""
    try:
        return client.call(method, params, progress)
    except AlayaError as error:
        if error.code not in RESTART_CODES or not autostart:
            raise
        if error.code == "version_mismatch":
            client.call("server.stop")
    wait_until_gone(client, timeout)
    return start_server(client.home, timeout).call(method, params, progress)


def owner_pid(home: Path) -> int | None:
    """The pid of the owner server holding the store, found through the lock (even if its socket is gone)."""
    from ..foundations.lock import held_by, is_owner_server

    holder = held_by(Layout(home).lock_file)
    if holder is None or not is_owner_server(holder) or not isinstance(holder.get("pid"), int):
        return None
    return holder["pid"]


def wait_until_gone(client: ServerClient, timeout: float = STOP_TIMEOUT, pid: int | None = None) -> bool:
    """Wait for a stopping server to finish its requests in flight, release the store and (given its pid) end;
    False if it did not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if owner_pid(client.home) is None and not _listening(client) and not (pid and _running(pid)):
            return True
        time.sleep(POLL_SECONDS)
    return False


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (a server started by this process stays one until reaped)."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except ProcessLookupError:
        return False
    except OSError:  # no /proc (macOS): the signal reached it
        return True


def _listening(client: ServerClient) -> bool:
    try:
        return client.answers()
    except AlayaError:
        return True


def stop_server(home: Path, timeout: float = STOP_TIMEOUT) -> int | None:
    """Stop the store's owner server; its pid, or None if none ran. Raises AlayaError if it is still alive.

    Asked over its socket when it answers there; otherwise (socket deleted, server stopped or stuck) the lock's
    holder gets SIGTERM, and SIGCONT so that a stopped process wakes up to handle it.
    """
    import signal

    client = ServerClient(home)
    pid = owner_pid(home)
    try:
        asked = client.answers() and client.call("server.stop", request_timeout=client.settings.connect_timeout)
    except AlayaError:
        asked = None
    if asked:
        pid = asked.get("pid", pid)
    elif pid is None:
        return None
    else:
        for signum in (signal.SIGTERM, signal.SIGCONT):
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                break
    if not wait_until_gone(client, timeout, pid):
        raise AlayaError("server_still_running", f"the server for {home} (pid {pid}) is still running "
                                                 f"{timeout:g} s after being asked to stop (a long request in "
                                                 f"flight?); see logs/server.log, or end it: kill -9 {pid}", RUNTIME)
    return pid


def _tail(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][-300:] if lines else ""
