"""The owner server's connections: one I/O thread, two bounded pools of workers, a cap, heartbeats.

A thread per connection let 150-200 clients at once call OpenBLAS from as many threads, which crashed the
server (``BLAS : Bad memory unallocation!``); and a client that never finished its line held a thread that
shutdown then waited for. So one thread accepts connections and reads their request lines without blocking
(an unfinished line holds no worker, and is dropped at shutdown or after :data:`REQUEST_LINE_SECONDS`), and a
fixed set of threads runs the requests — writes in a pool of their own, so recalls are answered while jobs
queue for the engine's step lock. Past :data:`MAX_CONNECTIONS` open connections a newcomer is told
``server_busy`` at once. Every request queued or running gets a heartbeat (see :mod:`.protocol`). What is sent
never blocks on a client that stops reading (:mod:`.connection`); a request whose client hung up while it waited
in the queue is not run.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ..foundations.background import run_in_background
from ..foundations.errors import RUNTIME, AlayaError
from .connection import Connection, Writer
from .protocol import HEARTBEAT_SECONDS, MAX_LINE, PROTOCOL_VERSION, decode, error_reply, request_id

log = logging.getLogger(__name__)

READ_WORKERS = 4
WRITE_WORKERS = 2
MAX_CONNECTIONS = 128
LISTEN_BACKLOG = 1024
"""Connections the kernel queues before the I/O thread accepts them (a full queue fails connect at once)."""
REQUEST_LINE_SECONDS = 30.0

Route = str
"""Where a request runs: ``"inline"`` (on the I/O thread: cheap server methods), ``"read"`` or ``"write"``."""


class Dispatcher:
    """Serves ``listener`` (bound and listening) until :meth:`stop`."""

    def __init__(self, listener: socket.socket, route: Callable[[dict], Route],
                 answer: Callable[[dict, Callable[[dict], bool], Route], dict], describe: str,
                 max_line: int = MAX_LINE):
        """``answer(request, send, route)`` runs a request where ``route(request)`` sent it. ``max_line``: the
        longest request line taken (an ingest's stdin travels inside one)."""
        self.listener = listener
        self.max_line = max_line
        self.route = route
        self.answer = answer
        self.describe = describe
        self._pools = {"read": ThreadPoolExecutor(READ_WORKERS, thread_name_prefix="alaya-read"),
                       "write": ThreadPoolExecutor(WRITE_WORKERS, thread_name_prefix="alaya-write",
                                                   initializer=run_in_background)}
        self._open: set[Connection] = set()
        self._pending: set[Connection] = set()
        """Dispatched and not yet answered: these get heartbeats."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._drained = threading.Event()
        self._writer = Writer()
        self._threads = [threading.Thread(target=self._io_loop, name="alaya-io", daemon=True),
                         threading.Thread(target=self._heartbeats, name="alaya-heartbeat", daemon=True)]

    def start(self) -> None:
        self.listener.setblocking(False)
        self._writer.start()
        for thread in self._threads:
            thread.start()

    def stop_accepting(self) -> None:
        """Accept no more connections and refuse those that have not sent their request yet."""
        self._stopping.set()
        self._threads[0].join()

    def drain(self) -> None:
        """Finish the requests in flight (and queued)."""
        self._writer.hurry()
        for pool in self._pools.values():
            pool.shutdown(wait=True)
        self._drained.set()
        self._threads[1].join()
        self._writer.stop()

    def _io_loop(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self.listener, selectors.EVENT_READ)
        try:
            while not self._stopping.is_set():
                for key, _ in selector.select(timeout=0.2):
                    if key.data is None:
                        self._accept(selector)
                        continue
                    try:
                        self._read(selector, key.data)
                    except Exception:  # a bug met by one client must not leave the server deaf to the others
                        log.exception("serving a connection failed")
                        if key.fileobj in selector.get_map():
                            selector.unregister(key.fileobj)
                        self._refuse(key.data, AlayaError("internal", "the server failed to read this request; "
                                                                      "see logs/server.log", RUNTIME))
                self._drop_slow(selector, time.monotonic() - REQUEST_LINE_SECONDS)
        finally:
            for key in list(selector.get_map().values()):
                if key.data is not None:
                    self._refuse(key.data, AlayaError("server_stopping", f"{self.describe} is stopping; run the "
                                                                         "command again", RUNTIME))
            selector.close()

    def _accept(self, selector: selectors.BaseSelector) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # out of descriptors: the clients wait in the backlog meanwhile
                log.warning("cannot accept a connection: %s", error)
                time.sleep(0.1)  # the listener stays readable: without a pause this would spin
                return
            connection = Connection(sock, self._writer)
            with self._lock:
                if len(self._open) >= MAX_CONNECTIONS:
                    connection.refusal = AlayaError("server_busy", f"{self.describe} is busy ({MAX_CONNECTIONS} "
                                                                   "connections open); try again in a moment", RUNTIME)
                self._open.add(connection)
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, connection)

    def _read(self, selector: selectors.BaseSelector, connection: Connection) -> None:
        try:
            chunk = connection.socket.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:  # the client left before finishing its request
            selector.unregister(connection.socket)
            self._close(connection)
            return
        connection.buffer += chunk
        end = connection.buffer.find(b"\n")
        if end < 0 and len(connection.buffer) <= self.max_line:
            return
        selector.unregister(connection.socket)
        if end < 0:
            self._refuse(connection, AlayaError("request_too_large", f"a request is at most {self.max_line >> 20} MiB "
                                                                     "long; send less"))
            return
        line = bytes(connection.buffer[:end])
        connection.buffer = bytearray()
        self._dispatch(connection, line)

    def _dispatch(self, connection: Connection, line: bytes) -> None:
        if connection.refusal is not None:
            self._refuse(connection, connection.refusal)
            return
        try:
            request = decode(line)
        except ValueError as error:
            self._refuse(connection, AlayaError("bad_request", f"request is not a JSON object on one line: {error}"))
            return
        connection.id = request_id(request)
        route = self.route(request)
        if route == "inline":
            self._work(connection, request, route)
            return
        with self._lock:
            self._pending.add(connection)
        self._pools[route].submit(self._work, connection, request, route)

    def _work(self, connection: Connection, request: dict, route: Route) -> None:
        try:
            if connection.client_gone():  # it gave up while the request was queued: nobody wants it run now
                log.info("request %s dropped: its client hung up before it ran", request.get("method"))
                reply = None
            else:
                reply = self.answer(request, connection.send, route)
        finally:
            with self._lock:
                self._pending.discard(connection)
        if reply is not None:
            connection.finish(reply)
        if connection.dropped:
            log.info("request %s ran to its end after its client stopped reading", request.get("method"))
        self._forget(connection)

    def _heartbeats(self) -> None:
        while not self._drained.wait(HEARTBEAT_SECONDS):
            with self._lock:
                pending = list(self._pending)
            for connection in pending:
                connection.beat({"v": PROTOCOL_VERSION, "id": connection.id, "working": True})

    def _drop_slow(self, selector: selectors.BaseSelector, opened_before: float) -> None:
        for key in list(selector.get_map().values()):
            if key.data is not None and key.data.opened < opened_before:
                selector.unregister(key.fileobj)
                self._refuse(key.data, AlayaError("bad_request", f"no complete request line within "
                                                                 f"{REQUEST_LINE_SECONDS:g} s"))

    def _refuse(self, connection: Connection, error: AlayaError) -> None:
        """Answer with ``error`` and close (once it is written)."""
        connection.finish(error_reply(connection.id, error))
        self._forget(connection)

    def _close(self, connection: Connection) -> None:
        connection.close()
        self._forget(connection)

    def _forget(self, connection: Connection) -> None:
        """No longer counted against :data:`MAX_CONNECTIONS` (its last bytes may still be on their way)."""
        with self._lock:
            self._open.discard(connection)
