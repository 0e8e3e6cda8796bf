"""Where a method runs: in the store's owner server when there is (or may be) one, else in-process.

Both backends expose ``call(method, params, progress)`` and return the same JSON documents (:mod:`..api`), so
the explorer, the MCP server and the commands never care which one they got.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..foundations.paths import Layout, resolve_home
from .bare_client import server_disabled
from .client import ServerClient, call_with_restart, connect, read_server_settings

Progress = Callable[[int, int], None] | None


class Backend(Protocol):
    home: Path

    def call(self, method: str, params: dict | None = None, progress: Progress = None) -> dict: ...


class LocalBackend:
    """Runs the engine in this process, under the store lock (``--no-server``); in the owner server, its engine."""

    def __init__(self, home: Path, engine=None):
        self.home = home
        self._engine = engine

    @property
    def engine(self):
        if self._engine is None:
            from ..engine import Engine

            self._engine = Engine.open(self.home)
        return self._engine

    def call(self, method: str, params: dict | None = None, progress: Progress = None) -> dict:
        from ..api import call

        return call(self.engine, method, params or {}, progress)


class RemoteBackend:
    """Sends requests to the owner server; restarts it once if it runs another Alaya version."""

    def __init__(self, client: ServerClient, start_timeout: float):
        self.home = client.home
        self.client = client
        self.start_timeout = start_timeout

    def call(self, method: str, params: dict | None = None, progress: Progress = None) -> dict:
        return call_with_restart(self.client, method, params or {}, progress, autostart=True,
                                 timeout=self.start_timeout)


def open_backend(home: str | Path | None, no_server: bool = False) -> Backend:
    layout = Layout(resolve_home(home))
    layout.require_initialised()
    if no_server or server_disabled():
        return LocalBackend(layout.home)
    autostart, start_timeout = read_server_settings(layout.home)
    client = connect(layout.home, autostart=autostart, timeout=start_timeout)
    return RemoteBackend(client, start_timeout) if client else LocalBackend(layout.home)
