"""One client connection of the owner server, and the thread that writes what clients are slow to read.

A client that stops reading (its output piped into a pager left open, a process stopped with Ctrl-Z) must cost
only its own request. So nothing here ever blocks on a socket: a message is appended to the connection's own
outbox and written as far as the socket takes it at once; the rest is written by the :class:`Writer` thread
when the client reads again. Only the thread running that client's request ever waits, and only while its unsent
output is over :data:`OUTBOX_LIMIT`; a heartbeat never waits (it is skipped while output is unsent: that output
tells the client the server lives once it reads). A connection whose client has read nothing for
:data:`SEND_TIMEOUT_SECONDS` (:data:`STOP_GRACE_SECONDS` once the server is stopping) is closed; the request it
carried runs to its end and the log says so.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time

from .protocol import encode

log = logging.getLogger(__name__)

OUTBOX_LIMIT = 1 << 20
"""Unsent bytes a request may queue before its thread waits for the client to read."""
SEND_TIMEOUT_SECONDS = 30.0
"""A client that reads nothing of its pending output for this long is treated as gone."""
STOP_GRACE_SECONDS = 2.0
"""The same, while the server stops: ``server stop`` never waits half a minute for a stopped pager."""


class Connection:
    """One client: the request line as it arrives, then its output; writes from several threads never mix."""

    def __init__(self, sock: socket.socket, writer: Writer):
        self.socket = sock
        self.fd = sock.fileno()
        self.buffer = bytearray()
        """The request line as it arrives (read by the I/O thread)."""
        self.opened = time.monotonic()
        self.id: object = None
        self.refusal = None
        """An error to answer once the request is read (a connection over the cap: closing a socket whose request
        is unread would reset it, and the client would see no answer at all)."""
        self.closed = False
        self.dropped = False
        """Closed because the client stopped reading (see :data:`SEND_TIMEOUT_SECONDS`)."""
        self._writer = writer
        self._outbox = bytearray()
        self._finished = False
        self._last_read = time.monotonic()
        """When the client last took bytes (or when output last became pending)."""
        self._state = threading.Condition()

    def send(self, message: dict) -> bool:
        """Queue ``message``; False once the connection is closed. Waits only while this connection's own unsent
        output is over :data:`OUTBOX_LIMIT`, until the client reads or is dropped."""
        data = encode(message)
        with self._state:
            if self.closed:
                return False
            self._queue(data)
            while len(self._outbox) > OUTBOX_LIMIT and not self.closed:
                self._state.wait(0.5)
            return not self.closed

    def beat(self, message: dict) -> None:
        """A heartbeat: sent only when nothing is pending, and never waited for."""
        if not self._state.acquire(blocking=False):
            return
        try:
            if not self.closed and not self._outbox:
                self._queue(encode(message))
        finally:
            self._state.release()

    def finish(self, message: dict) -> None:
        """The last message: queued whatever the outbox holds, and the connection closes once it is written."""
        data = encode(message)
        with self._state:
            if self.closed:
                return
            self._finished = True
            self._queue(data)
            if not self._outbox:
                self._close_locked()

    def client_gone(self) -> bool:
        """The client hung up (it sends nothing after its request line, so end of stream means it gave up)."""
        try:
            return self.socket.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    def close(self) -> None:
        with self._state:
            self._close_locked()

    def _queue(self, data: bytes) -> None:
        if not self._outbox:
            self._last_read = time.monotonic()
        self._outbox += data
        self._flush_locked()
        if self._outbox:
            self._writer.watch(self)

    def _flush_locked(self) -> None:
        """Write what the socket takes now, without waiting."""
        while self._outbox and not self.closed:
            try:
                sent = self.socket.send(self._outbox, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # the client hung up
                self._close_locked()
                return
            del self._outbox[:sent]
            self._last_read = time.monotonic()
        if not self._outbox and self._finished:
            self._close_locked()

    def _close_locked(self) -> None:
        if not self.closed:
            self.closed = True
            self._outbox.clear()
            self.socket.close()
            self._state.notify_all()

    # Called by the Writer thread only.

    def writable(self) -> bool:
        """Write more now that the socket has room; True while output is still pending."""
        with self._state:
            self._flush_locked()
            self._state.notify_all()
            return bool(self._outbox) and not self.closed

    def drop_if_stalled(self, patience: float) -> bool:
        """Close the connection when its client has read nothing for ``patience`` seconds; True if it was."""
        with self._state:
            if self.closed or not self._outbox or time.monotonic() - self._last_read < patience:
                return False
            log.warning("a client read nothing of its output for %.0f s: its connection is closed (its request, "
                        "if still running, runs to its end)", patience)
            self.dropped = True
            self._close_locked()
            return True


class Writer:
    """The thread that finishes writing what clients were slow to read, and drops those that stopped."""

    def __init__(self):
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._incoming: list[Connection] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="alaya-writer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def watch(self, connection: Connection) -> None:
        """Write ``connection``'s pending output once its client reads (any thread may call this)."""
        with self._lock:
            self._incoming.append(connection)
        self._wake()

    def hurry(self) -> None:
        """The server is stopping: from now on a client that reads nothing for :data:`STOP_GRACE_SECONDS` is
        dropped (a request waiting on it ends sooner, so the server can)."""
        self._stopping.set()
        self._wake()

    def stop(self) -> None:
        """Write what is pending (see :meth:`hurry`), then end."""
        self.hurry()
        self._thread.join()
        self._selector.close()
        self._wake_read.close()
        self._wake_write.close()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"\0")
        except OSError:  # already woken (its buffer is full), or stopped
            pass

    def _loop(self) -> None:
        """Sockets are registered by descriptor number: another thread may close one (its reply written, its
        client gone) while it is registered, and a new connection may get the same number meanwhile."""
        watched: set[Connection] = set()
        while True:
            for key, _ in self._selector.select(timeout=0.5):
                if key.fd == self._wake_read.fileno():
                    self._drain_wakeups()
                elif not key.data.writable():
                    self._forget(key.data, watched)
            with self._lock:
                incoming, self._incoming = self._incoming, []
            for connection in incoming:
                if connection not in watched and not connection.closed:
                    self._forget_descriptor(connection.fd)  # a closed connection's, now reused
                    watched.add(connection)
                    self._selector.register(connection.fd, selectors.EVENT_WRITE, connection)
            patience = STOP_GRACE_SECONDS if self._stopping.is_set() else SEND_TIMEOUT_SECONDS
            for connection in list(watched):
                if connection.closed or connection.drop_if_stalled(patience) or not connection.writable():
                    self._forget(connection, watched)
            if self._stopping.is_set() and not watched:
                return

    def _forget(self, connection: Connection, watched: set[Connection]) -> None:
        watched.discard(connection)
        key = self._selector.get_map().get(connection.fd)
        if key is not None and key.data is connection:
            self._selector.unregister(connection.fd)  # a closed descriptor's OSError is ignored by the selector

    def _forget_descriptor(self, fd: int) -> None:
        if fd in self._selector.get_map():
            self._selector.unregister(fd)

    def _drain_wakeups(self) -> None:
        try:
            while self._wake_read.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass
