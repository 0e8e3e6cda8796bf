"""Forward a command line to the store's owner server with nothing but C modules, and relay what it prints.

This is the whole of ``alaya``'s client side: it sends argv (with the working folder, the terminal's flags and
width, and the environment a command may read) as one ``cli`` request, writes the server's ``out``/``err``
messages to its own stdout/stderr as they come, and exits with the command's code. The server parses the command
line with the same Typer app the in-process path uses (:mod:`alaya_cli.serving`), so there is one parser.

Measured on this machine, an interpreter that imports nothing starts in ~24 ms, while ``json``, ``socket`` and
``pathlib`` (``re`` and ``enum`` under them) add ~40 ms more. So this path encodes the request by hand, reads the
replies with CPython's own ``_json`` scanner (what ``json`` itself uses underneath), talks through ``_socket`` and
keeps paths as strings.

:func:`forward` says how it went: an exit code, or why the caller must take over — no server answers (start one,
or run in-process), the server runs another Alaya version (restart it), the command must run in the client's own
process (the explorer, ``serve``, a question to the person), or the command reads stdin (send it along). None of
those ran anything, so taking over is safe; a connection reset before the server said a word (a server
SIGKILLed as the client connected) counts as no server: a command it had begun is completed by running it again,
as after any kill. A server that accepted the command and then fell silent for ``server.request_timeout``, or
vanished mid-command, is reported here (exit 1): running the command again could only wait as long once more, or
repeat what the server did.
"""

from __future__ import annotations

import os
import sys

from .. import __version__
from ..foundations.socket_address import socket_path
from .protocol import CONNECT_TIMEOUT, PROTOCOL_VERSION, REQUEST_TIMEOUT

NO_SERVER_ENV = "ALAYA_NO_SERVER"
HOME_ENV, DEFAULT_HOME = "ALAYA_HOME", "~/.alaya"
"""As in :mod:`alaya_engine.foundations.paths` (which imports ``pathlib``); ``tests/test_server.py`` checks
they agree."""


def server_disabled() -> bool:
    """``ALAYA_NO_SERVER`` set (to anything but 0): every command runs in-process."""
    return os.environ.get(NO_SERVER_ENV, "") not in ("", "0")


STDIN = "stdin"
"""``(STDIN, limit)`` from :func:`forward`: the command reads stdin; send up to ``limit`` bytes with it again."""


def store_home(home: str | None) -> str:
    return os.path.abspath(os.path.expanduser(home or os.environ.get(HOME_ENV) or DEFAULT_HOME))


def forward(home: str, params: dict) -> int | tuple[str, int] | None:
    """Run the command line in ``params`` (``argv``, ``cwd``, ``tty``, ``width``, ``env``, maybe ``stdin_b64``) in
    the server for ``home``; its output goes to this process's stdout and stderr. None: the caller takes over
    (no server answers, it runs another version, or the command must run in the client), nothing having run.
    A server at its connection cap is asked again, with growing pauses, for up to ``server.connect_timeout``;
    BrokenPipeError: this process's own output was closed (``| head``), which ends the command quietly."""
    try:
        import _json
        import _socket
        import time
    except ImportError:
        return None
    message = {"v": PROTOCOL_VERSION, "id": 1, "method": "cli", "params": params, "client_version": __version__}
    try:
        line = (_encode(message, _json.encode_basestring) + "\n").encode("utf-8")
    except (UnicodeEncodeError, TypeError):
        return None  # an argument that is not UTF-8: the in-process parser reports it
    scan = _json.make_scanner(_StrictJson())
    connect_timeout, request_timeout = _timeouts(home, scan)
    deadline = time.monotonic() + connect_timeout
    pause = 0.05
    while True:
        outcome = _forward_once(home, line, scan, _socket, connect_timeout, request_timeout)
        if outcome is not _BUSY:
            return outcome
        if time.monotonic() + pause > deadline:
            return _report(home, "server_busy", f"the server for {home} stayed busy (too many connections open) for "
                                                f"{connect_timeout:g} s; try again in a moment")
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


_BUSY = "busy"
"""What :func:`_forward_once` says when the server refused the connection for being at its cap."""


class _OutputClosed(Exception):
    """This process's stdout or stderr was closed by its reader: nothing the server says can be shown."""


def _forward_once(home: str, line: bytes, scan, _socket, connect_timeout: float, request_timeout: float):
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(connect_timeout)
        try:
            connection.connect(socket_path(home))
        except OSError:
            return None
        connection.settimeout(request_timeout)
        heard = []
        try:
            connection.sendall(line)
            return _relay(connection, scan, home, heard)
        except (ConnectionResetError, BrokenPipeError):
            if not heard:  # a server dying as we connected (SIGKILLed, its socket left behind): nothing ran
                return None
            raise
    except _OutputClosed:
        raise BrokenPipeError from None
    except TimeoutError:
        return _report(home, "server_unresponsive", f"the server for {home} sent nothing for {request_timeout:g} s "
                                                    "(stopped or stuck); run: alaya server restart (or raise "
                                                    "server.request_timeout in config.json)")
    except OSError:
        return _report(home, "server_gone", f"the server for {home} closed the connection mid-request; "
                                            "see logs/server.log")
    finally:
        connection.close()


def _relay(connection, scan, home: str, heard: list) -> int | tuple[str, int] | None:
    """Write the server's output as it arrives; the command's outcome once the final message comes. ``heard``
    gets an item once the server has said anything (a heartbeat included)."""
    pending = b""
    while True:
        chunk = connection.recv(1 << 16)
        if chunk and not heard:
            heard.append(True)
        pending += chunk
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            try:
                message = scan(line.decode("utf-8"), 0)[0]
            except (ValueError, StopIteration, SystemError):  # SystemError: see _timeouts
                message = None
            if not isinstance(message, dict):
                return _report(home, "bad_reply", f"the server for {home} sent something this client cannot read; "
                                                  "run: alaya server restart")
            if "out" in message or "err" in message:
                stream = sys.stdout if "out" in message else sys.stderr
                try:
                    stream.write(message.get("out", message.get("err")))
                    stream.flush()
                except (BrokenPipeError, AttributeError) as closed:  # AttributeError: fd 1 or 2 closed at start
                    raise _OutputClosed from closed
            elif "error" in message:
                error = message["error"]
                if isinstance(error, dict) and error.get("code") in ("version_mismatch", "server_stopping"):
                    return None  # the in-process path restarts it
                if isinstance(error, dict) and error.get("code") == "server_busy":  # refused at the door: ask again
                    return _BUSY
                return _report(home, error.get("code", "internal"), error.get("message", ""), error.get("exit_code"))
            elif "result" in message:
                result = message["result"]
                if result.get("run_in_client"):
                    return None
                if "stdin_wanted" in result:
                    return STDIN, int(result["stdin_wanted"])
                return int(result.get("exit", 1))
        if not chunk:
            return _report(home, "server_gone", f"the server for {home} closed the connection mid-request; "
                                                "see logs/server.log")


def _report(home: str, code: str, message: str, exit_code: int | None = None) -> int:
    """One error line, as the in-process path would print it (and the JSON error when ``--json`` was asked)."""
    from ..foundations.errors import RUNTIME, AlayaError, report_error

    return report_error(AlayaError(code, message, exit_code or RUNTIME), wants_json="--json" in sys.argv[1:])


def _timeouts(home: str, scan) -> tuple[float, float]:
    """(``server.connect_timeout``, ``server.request_timeout``) from config.json, or their defaults."""
    try:
        with open(os.path.join(home, "config.json"), "rb") as handle:
            server = scan(handle.read().decode("utf-8"), 0)[0].get("server", {})
        return (float(server.get("connect_timeout", CONNECT_TIMEOUT)),
                float(server.get("request_timeout", REQUEST_TIMEOUT)))
    except (OSError, ValueError, StopIteration, AttributeError, TypeError, SystemError):
        # SystemError: without ``json`` imported, the C scanner fails that way on some malformed objects
        return CONNECT_TIMEOUT, REQUEST_TIMEOUT


def _encode(value, quote) -> str:
    """JSON for the request's values: objects, strings, integers, lists (what the command line produces)."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(_encode(item, quote) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(quote(key) + ":" + _encode(item, quote) for key, item in value.items()) + "}"
    raise TypeError(f"cannot encode {type(value).__name__}")


class _StrictJson:
    """The settings ``_json.make_scanner`` reads, as ``json.loads`` passes them by default."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__
