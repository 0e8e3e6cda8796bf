"""The agent's hot paths with nothing but C modules: ``alaya recall ... --json`` and ``alaya status --json``
answered by a live server.

Measured on this machine, an interpreter that imports nothing starts in ~24 ms, while ``json``, ``socket`` and
``pathlib`` (``re`` and ``enum`` under them) add ~40 ms more: a third of an agent's whole recall at 100k cards.
So this path encodes the request by hand, reads the reply with CPython's own ``_json`` scanner (what ``json``
itself uses underneath), talks through ``_socket`` and keeps paths as strings, and asks the server for the
document already rendered as ``--json`` prints it (``"as_text"``, see :mod:`.protocol`).

It answers only the plain case: a server that is up and replies with a document. Anything else — no server
yet, an error, a different version, input on stdin — returns None, and the regular client
(:func:`alaya_cli.main.fast_call`, or the full command line) takes over with its autostart, restarts and error
reports. A recall that failed has recorded nothing, and status records nothing, so asking again is safe.
The exception is a server that accepted the request and then fell silent for ``server.request_timeout`` (stopped,
wedged): that is reported here, since asking again would only wait as long once more. The timeouts are set on
the ``_socket`` itself, read from config.json by the same C scanner.
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


def bare_call(home: str | None, method: str, params: dict) -> int | None:
    """Print the server's document for ``method`` and return 0, or None for the regular client to handle it."""
    if server_disabled():
        return None
    try:
        import _json
        import _socket
    except ImportError:
        return None
    chosen = os.path.abspath(os.path.expanduser(home or os.environ.get(HOME_ENV) or DEFAULT_HOME))
    message = {"v": PROTOCOL_VERSION, "id": 1, "method": method, "params": params,
               "client_version": __version__, "as_text": True}
    try:
        line = (_encode(message, _json.encode_basestring) + "\n").encode("utf-8")
    except (UnicodeEncodeError, TypeError):
        return None
    scan = _json.make_scanner(_StrictJson())
    connect_timeout, request_timeout = _timeouts(chosen, scan)
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(connect_timeout)
        connection.connect(socket_path(chosen))
        connection.settimeout(request_timeout)
        connection.sendall(line)
        document = _read_reply(connection, scan)
    except TimeoutError:
        from ..foundations.errors import report_error
        from .client import unresponsive

        return report_error(unresponsive(chosen, request_timeout), wants_json=True)
    except OSError:
        return None
    finally:
        connection.close()
    if not isinstance(document, dict) or not isinstance(document.get("text"), str):
        return None
    sys.stdout.write(document["text"] + "\n")
    return 0


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


def _read_reply(connection, scan) -> object:
    """The reply, past the heartbeats a busy server sends (the server closes the connection after the reply);
    None if it is not JSON."""
    pending = b""
    while True:
        chunk = connection.recv(1 << 16)
        pending += chunk
        while b"\n" in pending or (not chunk and pending):
            line, _, pending = pending.partition(b"\n")
            try:
                message = scan(line.decode("utf-8"), 0)[0]
            except (ValueError, StopIteration, SystemError):  # SystemError: see _timeouts
                return None
            if not (isinstance(message, dict) and message.get("working")):
                return message
        if not chunk:
            return None


class _StrictJson:
    """The settings ``_json.make_scanner`` reads, as ``json.loads`` passes them by default."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__
