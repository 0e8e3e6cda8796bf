"""``alaya serve``: the resident owner of one store.

It holds the store lock for its whole life, keeps the graph open, the model
warm and the HOT/WARM vectors resident as a numpy matrix (this is what "HOT =
in memory" means here), and answers requests on its socket (:attr:`Layout.socket`).
Requests run on a bounded set of threads (:mod:`.dispatch`); each engine call takes the engine's step lock, so
writes are serialised and long jobs let recalls in between their steps.

It never outlives its purpose: a failed start-up exits at once (the socket only listens once the store is
loaded), and a server whose socket or home folder was deleted or replaced exits instead of holding a lock
nobody can reach.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import socket
import stat
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import Protocol

from .. import __version__
from ..api import WRITES, call
from ..engine import Engine
from ..foundations.atomic import atomic_write_json
from ..foundations.config import ingest_limit
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.lock import OWNER_SERVER
from ..foundations.paths import Layout
from ..foundations.socket_address import short_socket_dir
from .dispatch import LISTEN_BACKLOG, Dispatcher, Route
from .protocol import PROTOCOL_VERSION, error_reply, frame_limit, request_id

log = logging.getLogger(__name__)
SERVER_METHODS = ("server.status", "server.stop")
WATCH_SECONDS = 0.5


class ServerMethod(Protocol):
    """A method a face adds to the server (the command line's ``cli``), found through the
    ``alaya.server_methods`` entry point group: the server knows no face by name."""

    def route(self, params: dict) -> Route: ...

    def run(self, engine: Engine, params: dict, send: Callable[[dict], bool]) -> dict: ...


def load_server_methods() -> dict[str, ServerMethod]:
    from importlib.metadata import entry_points

    return {point.name: point.load()() for point in entry_points(group="alaya.server_methods")}


class OwnerServer:
    def __init__(self, home: Path, on_ready: Callable[[], None] = lambda: None):
        self.layout = Layout(home)
        self.on_ready = on_ready
        self.extensions = load_server_methods()
        self.engine: Engine | None = None
        self.started = time.time()
        self.requests = 0
        self.active = 0
        self.last_activity = time.monotonic()
        self._counter = threading.Lock()
        self.stopping = threading.Event()

    def begin(self) -> None:
        with self._counter:
            self.active += 1
            self.requests += 1
            self.last_activity = time.monotonic()

    def end(self) -> None:
        with self._counter:
            self.active -= 1
            self.last_activity = time.monotonic()

    def route(self, request: dict) -> Route:
        """Server methods (and requests without a method name, refused at once) run inline."""
        name = request.get("method")
        if not isinstance(name, str) or name in SERVER_METHODS:
            return "inline"
        if name in self.extensions:
            params = request.get("params")
            return self.extensions[name].route(params if isinstance(params, dict) else {})
        return "write" if name in WRITES else "read"

    def answer(self, request: dict, send: Callable[[dict], bool], route: Route) -> dict:
        """One request → one response document; a failure here never reaches the serving loop. ``route``: where
        :meth:`route` sent it (a write runs as one of the engine's jobs)."""
        identifier = request_id(request)
        name = request.get("method")
        started = time.perf_counter()
        self.begin()
        try:
            with self.engine.job() if route == "write" else nullcontext():
                reply = {"v": PROTOCOL_VERSION, "id": identifier, "result": self._run(request, identifier, send)}
        except AlayaError as error:
            reply = error_reply(identifier, error)
        except Exception as error:  # one request's bug must not take the server down
            log.exception("request %s failed", name)
            reply = error_reply(identifier, AlayaError("internal", f"unexpected {type(error).__name__}: {error}; "
                                                                   f"see {self.layout.server_log}", RUNTIME))
        finally:
            self.end()
        log.info("%s %s in %.1f ms", name, "failed" if "error" in reply else "ok",
                 (time.perf_counter() - started) * 1000)
        return reply

    def _run(self, request: dict, identifier, send: Callable[[dict], bool]) -> dict:
        name = request.get("method")
        if not isinstance(name, str):
            raise AlayaError("bad_request", "a request needs a method name")
        if name not in SERVER_METHODS and request.get("client_version") != __version__:
            raise AlayaError("version_mismatch", f"the server for {self.layout.home} runs Alaya {__version__}, "
                                                 f"this client is {request.get('client_version')}; "
                                                 "run: alaya server restart", RUNTIME)
        if name == "server.status":
            return self.status()
        if name == "server.stop":
            self.stopping.set()
            return {"stopping": True, "pid": os.getpid()}
        if name in self.extensions:
            return self.extensions[name].run(self.engine, request.get("params") or {},
                                             lambda message: send({"v": PROTOCOL_VERSION, "id": identifier, **message}))
        return call(self.engine, name, request.get("params") or {}, lambda done, total: send(
            {"v": PROTOCOL_VERSION, "id": identifier, "progress": [done, total]}))

    def status(self) -> dict:
        rss = _rss_bytes()
        return {
            "pid": os.getpid(),
            "home": str(self.layout.home),
            "socket": str(self.layout.socket),
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "uptime_s": round(time.time() - self.started, 1),
            "requests_served": self.requests,
            "active_requests": self.active - 1,
            "rss_mb": round(rss / 1e6, 1),
            "peak_rss_mb": round(max(rss, _peak_rss_bytes()) / 1e6, 1),
            "graph_snapshot": "fresh" if self.engine is not None and self.engine.graph_snapshot_fresh() else "stale",
        }

    def run(self) -> int:
        """Serve until idle, SIGTERM, ``server.stop`` or the loss of its socket or home; returns the exit code."""
        home_identity = _identity(self.layout.home)
        self.engine = Engine.open(self.layout.home)
        self.engine.lock.command = f"{OWNER_SERVER}, pid {os.getpid()})"
        self.engine.lock.give_up = lambda: _answers(self.layout.socket)
        idle_timeout = self.engine.config["server"]["idle_timeout"]
        pid_written = False
        try:
            with self.engine.hold():
                listener, socket_identity = self._bind()
                try:
                    self._warm_up()
                    listener.listen(LISTEN_BACKLOG)
                    atomic_write_json(self.layout.server_pid, {"pid": os.getpid(), "version": __version__,
                                                               "started": self.started,
                                                               "socket": str(self.layout.socket)})
                    pid_written = True
                    log.info("serving %s as pid %d on %s", self.layout.home, os.getpid(), self.layout.socket)
                    self.on_ready()
                    self._serve(listener, idle_timeout, {self.layout.socket: socket_identity,
                                                         self.layout.home: home_identity})
                    if _identity(self.layout.home) == home_identity:  # not into a home deleted or replaced
                        self._save_resident()
                finally:
                    self._close(listener, socket_identity)
        except AlayaError as error:
            if error.code in ("store_locked", "server_stopping_busy") and _answers(self.layout.socket):
                log.info("another server already owns %s; exiting", self.layout.home)
                return 0
            raise
        finally:
            if pid_written and _identity(self.layout.home) == home_identity:
                # Only once the graph is closed and the lock released: whoever waits for this server to be
                # gone (``server stop``, ``rebuild``) may then take the store or remove its folder. (A home that
                # was replaced holds another store's file, if any.)
                self.layout.server_pid.unlink(missing_ok=True)
        log.info("server stopped after %d requests", self.requests)
        return 0

    def _bind(self) -> tuple[socket.socket, tuple[int, int] | None]:
        """Bind without listening: until the store is loaded, clients are refused rather than left waiting.

        Any socket a killed server left behind is replaced: holding the lock proves it is stale.
        """
        path = self.layout.socket
        if str(path.parent) == short_socket_dir():
            _private_folder(path.parent)
        path.unlink(missing_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        previous = os.umask(0o177)
        try:
            listener.bind(str(path))
        except OSError as error:
            listener.close()
            raise AlayaError("io_error", f"cannot create the server's socket {path}: {error.strerror}",
                             RUNTIME) from None
        finally:
            os.umask(previous)
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            listener.close()
            raise AlayaError("unsafe_socket", f"{path} is accessible to others (mode {mode:o}); refusing to serve",
                             RUNTIME)
        return listener, _identity(path)

    def _warm_up(self) -> None:
        """Load the model and the resident card vectors now, so the first recall is as fast as the rest; the graph
        snapshot and the windows of raw turns are read in the background (~3 s at 200k windows: the server
        answers meanwhile, and a recall that needs the windows waits for that load instead of starting its own)."""
        self.engine.embedder().embed(["warm up"])
        self.engine.card_index().refresh()
        self.engine.keep_resident()
        threading.Thread(target=self._load_windows, name="alaya-warm-windows", daemon=True).start()

    def _save_resident(self) -> None:
        """What this server loaded, for its successor to map in a moment instead of loading again (the socket is
        gone: clients meanwhile start that successor, which waits for the store lock)."""
        started = time.perf_counter()
        try:
            saved = self.engine.save_resident()
        except Exception:  # a cache: a failure costs the next start its load, never this stop
            log.exception("saving the resident loads failed")
            return
        if saved:
            log.info("saved the resident %s in %.1f s", " and ".join(saved), time.perf_counter() - started)

    def _load_windows(self) -> None:
        try:
            self.engine.refreshed_turn_index()
        except Exception:  # the first recall that needs them loads them again
            log.exception("loading the windows of raw turns failed")

    def _serve(self, listener: socket.socket, idle_timeout: float, watched: dict[Path, tuple[int, int] | None]) -> None:
        dispatcher = Dispatcher(listener, self.route, self.answer, f"the server for {self.layout.home}",
                                frame_limit(ingest_limit(self.engine.config)))
        dispatcher.start()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.stopping.set())
        while not self.stopping.wait(WATCH_SECONDS):
            lost = next((path for path, identity in watched.items() if _identity(path) != identity), None)
            if lost is not None:
                log.warning("%s was deleted or replaced; exiting so that the store is not held unreachable", lost)
                break
            idle = time.monotonic() - self.last_activity
            if self.active == 0 and idle >= idle_timeout:
                log.info("idle for %.0f s; exiting", idle)
                break
        self.engine.lock.mark_stopping()
        dispatcher.stop_accepting()
        self._close(listener, watched[self.layout.socket])
        dispatcher.drain()

    def _close(self, listener: socket.socket, identity: tuple[int, int] | None) -> None:
        """Stop listening and remove the socket (if it is still this server's): new clients start a new server,
        which takes the store once this one has finished its requests in flight."""
        listener.close()
        if _identity(self.layout.socket) == identity:
            self.layout.socket.unlink(missing_ok=True)


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file ``path`` is now (device, inode), or None when it is gone."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def _private_folder(folder: Path) -> None:
    """The per-user socket folder of long homes: created 0700, and refused if anyone else could use it."""
    folder.mkdir(mode=0o700, exist_ok=True)
    status = folder.lstat()
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid() or stat.S_IMODE(status.st_mode) & 0o077:
        raise AlayaError("unsafe_socket", f"{folder} is not a private folder of yours; remove it and retry", RUNTIME)


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss_bytes() -> int:
    """The high-water mark: ``ru_maxrss`` counts KiB on Linux (bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if os.uname().sysname == "Darwin" else peak * 1024
