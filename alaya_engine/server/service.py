"""``alaya serve``: the resident owner of one store.

It holds the store lock for its whole life, keeps the graph open, the model
warm and the HOT/WARM vectors resident as a numpy matrix (this is what "HOT =
in memory" means here), and answers requests on ``<home>/alaya.sock``.
Requests run on threads; each engine call takes the engine's step lock, so
writes are serialised and long jobs let recalls in between their steps.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import socket
import socketserver
import stat
import threading
import time
from pathlib import Path

from .. import __version__
from ..api import call
from ..atomic import atomic_write_json
from ..config import ingest_limit
from ..engine import Engine
from ..errors import RUNTIME, AlayaError
from ..paths import Layout
from .protocol import PROTOCOL_VERSION, encode, frame_limit, read_message, render

log = logging.getLogger(__name__)
SERVER_METHODS = ("server.status", "server.stop")


class _Handler(socketserver.StreamRequestHandler):
    server: "_SocketServer"

    def handle(self) -> None:
        owner = self.server.owner
        try:
            request = read_message(self.rfile, frame_limit(ingest_limit(owner.engine.config)))
        except (ValueError, UnicodeDecodeError):
            self._send({"v": PROTOCOL_VERSION, "id": None, "error": _error(AlayaError(
                "bad_request", "request is not a JSON object on one line"))})
            return
        if request is None:
            return
        owner.begin()
        try:
            self._send(owner.answer(request, lambda done, total: self._send(
                {"v": PROTOCOL_VERSION, "id": request.get("id"), "progress": [done, total]})))
        finally:
            owner.end()

    def _send(self, message: dict) -> None:
        try:
            self.wfile.write(encode(message))
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            log.info("client went away before the answer was sent")


class _SocketServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = False
    block_on_close = True

    def __init__(self, path: str, owner: "OwnerServer"):
        self.owner = owner
        super().__init__(path, _Handler)


def _error(error: AlayaError) -> dict:
    return {"code": error.code, "message": error.message, "exit_code": error.exit_code}


class OwnerServer:
    def __init__(self, home: Path):
        self.layout = Layout(home)
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

    def answer(self, request: dict, progress) -> dict:
        """One request → one response document; a failure here never reaches the serving loop."""
        reply = {"v": PROTOCOL_VERSION, "id": request.get("id")}
        name = request.get("method")
        started = time.perf_counter()
        try:
            if name not in SERVER_METHODS and request.get("client_version") != __version__:
                raise AlayaError("version_mismatch", f"the server for {self.layout.home} runs Alaya {__version__}, "
                                                     f"this client is {request.get('client_version')}; "
                                                     "run: alaya server restart", RUNTIME)
            if name == "server.status":
                reply["result"] = self.status()
            elif name == "server.stop":
                self.stopping.set()
                reply["result"] = {"stopping": True, "pid": os.getpid()}
            else:
                reply["result"] = call(self.engine, str(name), request.get("params") or {}, progress)
            if request.get("as_text") is True:
                reply["text"] = render(reply.pop("result"))
        except AlayaError as error:
            reply["error"] = _error(error)
        except Exception as error:  # one request's bug must not take the server down
            log.exception("request %s failed", name)
            reply["error"] = _error(AlayaError("internal", f"unexpected {type(error).__name__}: {error}; "
                                                           f"see {self.layout.server_log}", RUNTIME))
        log.info("%s %s in %.1f ms", name, "failed" if "error" in reply else "ok",
                 (time.perf_counter() - started) * 1000)
        return reply

    def status(self) -> dict:
        return {
            "pid": os.getpid(),
            "home": str(self.layout.home),
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "uptime_s": round(time.time() - self.started, 1),
            "requests_served": self.requests,
            "active_requests": self.active - 1,
            "rss_mb": round(_rss_bytes() / 1e6, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1),
            "graph_snapshot": "fresh" if self.engine is not None and self.engine.graph_snapshot_fresh() else "stale",
        }

    def run(self) -> int:
        """Serve until idle, SIGTERM or ``server.stop``; returns the process exit code."""
        _refuse_shared_home(self.layout.home)
        self.engine = Engine.open(self.layout.home)
        self.engine.lock.command = f"alaya serve (owner server, pid {os.getpid()})"
        idle_timeout = self.engine.config["server"]["idle_timeout"]
        pid_written = False
        try:
            with self.engine.hold():
                server = self._bind()
                try:
                    self._warm_up()
                    atomic_write_json(self.layout.server_pid, {"pid": os.getpid(), "version": __version__,
                                                               "started": self.started})
                    pid_written = True
                    log.info("serving %s as pid %d", self.layout.home, os.getpid())
                    self._serve(server, idle_timeout)
                finally:
                    server.shutdown()
                    server.server_close()
                    self.layout.socket.unlink(missing_ok=True)
        except AlayaError as error:
            if error.code == "store_locked" and _answers(self.layout.socket):
                log.info("another server already owns %s; exiting", self.layout.home)
                return 0
            raise
        finally:
            if pid_written:
                # Only once the graph is closed and the lock released: whoever waits for this server to be
                # gone (``server stop``, ``rebuild``) may then take the store or remove its folder.
                self.layout.server_pid.unlink(missing_ok=True)
        log.info("server stopped after %d requests", self.requests)
        return 0

    def _bind(self) -> _SocketServer:
        """Replace any socket a killed server left behind: holding the lock proves it is stale."""
        path = self.layout.socket
        path.unlink(missing_ok=True)
        previous = os.umask(0o177)
        try:
            server = _SocketServer(str(path), self)
        finally:
            os.umask(previous)
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            server.server_close()
            raise AlayaError("unsafe_socket", f"{path} is accessible to others (mode {mode:o}); refusing to serve",
                             RUNTIME)
        return server

    def _warm_up(self) -> None:
        """Load the model and the resident vectors now, so the first recall is as fast as the rest; the graph
        snapshot is read in the background (recall asks the database until it is there)."""
        self.engine.embedder().embed(["warm up"])
        self.engine.card_index().refresh()
        self.engine.keep_resident()

    def _serve(self, server: _SocketServer, idle_timeout: float) -> None:
        thread = threading.Thread(target=server.serve_forever, name="alaya-serve", daemon=True)
        thread.start()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: self.stopping.set())
        while not self.stopping.wait(0.5):
            idle = time.monotonic() - self.last_activity
            if self.active == 0 and idle >= idle_timeout:
                log.info("idle for %.0f s; exiting", idle)
                break


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


def _refuse_shared_home(home: Path) -> None:
    mode = stat.S_IMODE(home.stat().st_mode)
    if mode & 0o022 or home.stat().st_uid != os.getuid():
        raise AlayaError("unsafe_home", f"{home} is writable by others (mode {mode:o}) or not yours; "
                                        f"run: chmod 700 {home}", RUNTIME)


def _rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
