"""The terminal a command talks to: this process's own, or, in the owner server, the one of the client that
forwarded the command line.

A command never reaches for ``sys.stdin``, ``os.getcwd()`` or ``isatty()`` directly: it asks :func:`current`.
In the server each request runs on its own thread with its own :class:`Forwarded` terminal, whose output is
sent back to the client as it is written (``sys.stdout``/``sys.stderr`` are :class:`ThreadStream` there, so
``print`` and Typer's own messages go to the right client too), whose paths are the client's, and whose stdin is
asked for only when a command reads it (:class:`StdinWanted`): a client with an open but idle stdin, as agents'
subprocess pipes often are, is never read.
"""

from __future__ import annotations

import functools
import io
import os
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

    from alaya_engine.server.backend import Backend


class RunInClient(Exception):
    """Raised in the server by a command that must run in the client's own process (the explorer, ``serve``,
    an interactive question, maintenance that stops the server): the client then runs it itself."""


class StdinWanted(Exception):
    """Raised in the server when a command reads stdin the client has not sent: it sends up to ``limit`` bytes
    with the command line again. Commands read stdin before they change or print anything."""

    def __init__(self, limit: int):
        super().__init__(limit)
        self.limit = limit


class Local:
    """This process's own terminal."""

    backend: Backend | None = None

    @property
    def stdout(self) -> TextIO:
        return sys.stdout

    @property
    def stderr(self) -> TextIO:
        return sys.stderr

    def stdin_is_tty(self) -> bool:
        return sys.stdin is not None and sys.stdin.isatty()

    def stdout_is_tty(self) -> bool:
        return sys.stdout.isatty()

    def stderr_is_tty(self) -> bool:
        return sys.stderr.isatty()

    def read_stdin(self, limit: int) -> bytes:
        """Up to ``limit`` bytes (none when fd 0 was closed: Python then has no ``sys.stdin``)."""
        return sys.stdin.buffer.read(limit) if sys.stdin is not None else b""

    def path(self, path: str) -> str:
        """``path`` as the person typed it, made absolute (``~`` expanded)."""
        try:
            cwd = os.getcwd()
        except OSError:  # the working folder was deleted
            cwd = None
        return _absolute(os.path.expanduser(path), cwd)

    def env(self, name: str) -> str | None:
        return os.environ.get(name)

    def home(self, option: str | None) -> Path:
        """The store this command is about: ``--home``, else ``$ALAYA_HOME``, else ``~/.alaya``, all read in the
        environment and working folder of whoever typed the command. Resolved once, by the global options; every
        command uses that result, so a forwarded one never reads the server's own environment."""
        from alaya_engine.foundations.paths import DEFAULT_HOME, HOME_ENV

        return Path(self.path(option or self.env(HOME_ENV) or DEFAULT_HOME))

    def shorten(self, path: str) -> str:
        """``path`` with the user's home folder written ``~`` (the user's, not the server's)."""
        home = self.env("HOME") or ""
        if home.rstrip("/") and (path == home or path.startswith(home.rstrip("/") + "/")):
            return "~" + path[len(home.rstrip("/")):]
        return path

    def console(self, stderr: bool = False) -> Console:
        return _console_class()(stderr=stderr, highlight=False, soft_wrap=True)


class Forwarded(Local):
    """A client's terminal, as its command line arrived at the owner server."""

    def __init__(self, params: dict, send: Callable[[dict], bool], backend: Backend):
        self.backend = backend
        ttys = params.get("tty") or [False, False, False]
        self._ttys = [bool(flag) for flag in (list(ttys) + [False] * 3)[:3]]
        self._cwd = params.get("cwd") if isinstance(params.get("cwd"), str) else None
        self._env = {str(key): str(value) for key, value in (params.get("env") or {}).items()}
        self._width = params.get("width") if isinstance(params.get("width"), int) else None
        stdin = params.get("stdin_b64")
        self._stdin = None if stdin is None else _decode(stdin)
        self._stdout = FrameWriter(send, "out")
        self._stderr = FrameWriter(send, "err")

    @property
    def stdout(self) -> TextIO:
        return self._stdout

    @property
    def stderr(self) -> TextIO:
        return self._stderr

    def stdin_is_tty(self) -> bool:
        return self._ttys[0]

    def stdout_is_tty(self) -> bool:
        return self._ttys[1]

    def stderr_is_tty(self) -> bool:
        return self._ttys[2]

    def read_stdin(self, limit: int) -> bytes:
        if self._stdin is None:
            raise StdinWanted(limit)
        return self._stdin[:limit]

    def path(self, path: str) -> str:
        """As the client would resolve it: its ``HOME`` for ``~``, its working folder for a relative path."""
        home = self._env.get("HOME")
        expanded = home + path[1:] if home and (path == "~" or path.startswith("~/")) else os.path.expanduser(path)
        return _absolute(expanded, self._cwd)

    def env(self, name: str) -> str | None:
        return self._env.get(name)

    def console(self, stderr: bool = False) -> Console:
        tty = self.stderr_is_tty() if stderr else self.stdout_is_tty()
        return _console_class()(file=self._stderr if stderr else self._stdout, force_terminal=tty,
                                width=self._width or 80, highlight=False, soft_wrap=True,
                                no_color="NO_COLOR" in self._env)

    def flush(self) -> None:
        self._stdout.flush()
        self._stderr.flush()


class FrameWriter(io.TextIOBase):
    """Text written here reaches the client as ``{"out": ...}``/``{"err": ...}`` messages: a line at a time, or
    whenever the writer is flushed (progress bars flush after each redraw)."""

    encoding = "utf-8"

    def __init__(self, send: Callable[[dict], bool], key: str):
        super().__init__()
        self._send = send
        self._key = key
        self._pending: list[str] = []
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str | bytes) -> int:
        if isinstance(text, (bytes, bytearray)):  # click writes bytes where it finds no binary buffer
            text = bytes(text).decode("utf-8", "replace")
        with self._lock:
            self._pending.append(text)
            if "\n" in text or sum(map(len, self._pending)) > 8192:
                self._send_pending()
        return len(text)

    def flush(self) -> None:
        with self._lock:
            self._send_pending()

    def isatty(self) -> bool:
        return False

    def _send_pending(self) -> None:
        if self._pending:
            self._send({self._key: "".join(self._pending)})
            self._pending.clear()


class ThreadStream(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of the owner server: the forwarded terminal of the request this thread
    runs, else the server's own stream (its log)."""

    def __init__(self, name: str, own: TextIO):
        super().__init__()
        self._name = name
        self._own = own

    def _target(self) -> TextIO:
        terminal = _current.get()
        return getattr(terminal, self._name) if isinstance(terminal, Forwarded) else self._own

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        terminal = _current.get()
        if isinstance(terminal, Forwarded):
            return terminal.stdout_is_tty() if self._name == "stdout" else terminal.stderr_is_tty()
        return self._own.isatty()


_current: ContextVar[Local | None] = ContextVar("alaya_terminal", default=None)
_LOCAL = Local()


def current() -> Local:
    return _current.get() or _LOCAL


def forwarded() -> bool:
    return isinstance(_current.get(), Forwarded)


def use(terminal: Local):
    """Make ``terminal`` this thread's until the returned token is given to :func:`release`."""
    return _current.set(terminal)


def release(token) -> None:
    _current.reset(token)


def run_in_client() -> None:
    """Called first by commands that only the client's own process can run."""
    if forwarded():
        raise RunInClient()


@functools.cache
def _console_class() -> type[Console]:
    """Rich's console, except that a closed stdout (``alaya status | head -1``) raises BrokenPipeError, which ends
    the command quietly with exit code 0 (:func:`alaya_cli.main.closed_stdout`), instead of rich's exit code 1."""
    from rich.console import Console

    class QuietConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return QuietConsole


def _absolute(path: str, cwd: str | None) -> str:
    if os.path.isabs(path):
        return os.path.normpath(path)
    if cwd is None:
        from alaya_engine.foundations.errors import USAGE, AlayaError

        raise AlayaError("no_working_folder", f"the working folder was deleted, so the relative path '{path}' leads "
                                              "nowhere; cd into a folder that exists and run the command again", USAGE)
    return os.path.normpath(os.path.join(cwd, path))


def _decode(text: str) -> bytes:
    import base64

    return base64.b64decode(text.encode("ascii"))
