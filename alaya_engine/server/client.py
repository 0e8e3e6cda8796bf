"""The thin client: find the store's server (starting one if allowed) and send it a request.

Imports nothing heavy (no numpy, LanceDB, graph database, model, rich or
Textual), so ``alaya recall --json`` against a warm server costs little more
than starting Python.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path

from .. import __version__
from ..errors import RUNTIME, AlayaError
from .protocol import PROTOCOL_VERSION, encode, read_message

TYPE_CHECKING = False
"""Not ``typing.TYPE_CHECKING``: importing ``typing`` costs ~7 ms on every client start."""

if TYPE_CHECKING:
    from collections.abc import Callable

POLL_SECONDS = 0.05


class ServerClient:
    def __init__(self, home: Path):
        self.home = home
        self.socket_path = home / "alaya.sock"

    def call(self, method: str, params: dict | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict:
        """Send one request; returns the result document or raises the server's error as AlayaError."""
        connection = self._connect()
        try:
            connection.sendall(encode({"v": PROTOCOL_VERSION, "id": 1, "method": method, "params": params or {},
                                       "client_version": __version__}))
            with connection.makefile("rb") as stream:
                while True:
                    message = read_message(stream)
                    if message is None:
                        raise AlayaError("server_gone", f"the server for {self.home} closed the connection "
                                                        "mid-request; see logs/server.log", RUNTIME)
                    if "progress" in message:
                        if progress:
                            progress(*message["progress"])
                        continue
                    if "error" in message:
                        error = message["error"]
                        raise AlayaError(error["code"], error["message"], error.get("exit_code", RUNTIME))
                    return message["result"]
        finally:
            connection.close()

    def answers(self) -> bool:
        try:
            self._connect().close()
            return True
        except OSError:
            return False

    def _connect(self) -> socket.socket:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(str(self.socket_path))
        except OSError:
            connection.close()
            raise
        return connection


def read_server_settings(home: Path) -> tuple[bool, float]:
    """(``server.autostart``, ``server.start_timeout``) from config.json, read cheaply for the fast path.

    A broken config is reported by the engine itself once a command runs; here it just means defaults.
    """
    try:
        settings = json.loads((home / "config.json").read_text(encoding="utf-8")).get("server", {})
        return bool(settings.get("autostart", True)), float(settings.get("start_timeout", 30.0))
    except (OSError, ValueError, AttributeError, TypeError):
        return True, 30.0


def start_server(home: Path, timeout: float) -> ServerClient:
    """Start a detached server (own session, output to logs/server.log) and wait until it answers."""
    import subprocess

    client = ServerClient(home)
    log_path = home / "logs" / "server.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log_file:
        process = subprocess.Popen([sys.executable, "-m", "alaya_engine.server", "--home", str(home)],
                                   stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                                   start_new_session=True, close_fds=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.answers():
            return client
        if process.poll() not in (None, 0):
            break
        time.sleep(POLL_SECONDS)
    if client.answers():
        return client
    tail = _tail(log_path)
    raise AlayaError("server_start_failed", f"could not start the Alaya server for {home} within {timeout:g} s"
                                            f"{': ' + tail if tail else ''}; see {log_path}, or run with --no-server",
                     RUNTIME)


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
    """Call; if the server runs another version, ask it to stop when idle and start a matching one."""
    try:
        return client.call(method, params, progress)
    except AlayaError as error:
        if error.code != "version_mismatch" or not autostart:
            raise
    client.call("server.stop")
    wait_until_gone(client, timeout)
    return start_server(client.home, timeout).call(method, params, progress)


def wait_until_gone(client: ServerClient, timeout: float = 30.0) -> None:
    """Wait for a stopping server to finish its requests in flight and release the store."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (client.answers() or (client.home / "server.pid").exists()):
        time.sleep(POLL_SECONDS)


def _tail(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][-300:] if lines else ""
