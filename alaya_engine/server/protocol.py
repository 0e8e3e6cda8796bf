"""Wire format: newline-delimited JSON, one request per connection.

Request  ``{"v": 1, "id": 1, "method": "recall", "params": {...}, "client_version": "0.1.0"}``
Progress ``{"v": 1, "id": 1, "progress": [done, total]}`` (zero or more, for long jobs)
Response ``{"v": 1, "id": 1, "result": {...}}`` — the same document ``--json`` prints — or
         ``{"v": 1, "id": 1, "error": {"code": ..., "message": ..., "exit_code": 2}}``.
Output   ``{"v": 1, "id": 1, "out": "..."}`` / ``{..., "err": "..."}``: what a forwarded command line (method
         ``cli``, see :mod:`.bare_client`) prints, as it prints it; its result is ``{"exit": code}``.
Working  ``{"v": 1, "id": 1, "working": true}`` every :data:`HEARTBEAT_SECONDS` while a request is queued or
         runs: a live server is never silent for long, so a client can give up on one that is (stopped, wedged)
         after ``server.request_timeout`` without cutting off a job that takes minutes.

Kept free of heavy imports: the client's fast path loads this and nothing else (``json`` only when used).
"""

from __future__ import annotations

TYPE_CHECKING = False
"""Not ``typing.TYPE_CHECKING``: importing ``typing`` costs ~7 ms on every client start."""

if TYPE_CHECKING:
    from typing import Any, BinaryIO

PROTOCOL_VERSION = 1
MAX_LINE = 64 * 1024 * 1024
HEARTBEAT_SECONDS = 1.0
CONNECT_TIMEOUT, REQUEST_TIMEOUT = 5.0, 30.0
"""The clients' ``server.connect_timeout`` and ``server.request_timeout`` when config.json has none (the engine's
defaults, which the clients do not import; ``tests/test_faults_server.py`` checks they agree)."""


def encode(message: dict[str, Any]) -> bytes:
    """One message line, UTF-8. Text holding a lone surrogate (a command-line argument that was not UTF-8, say)
    is not UTF-8: such a message is sent with ASCII escapes instead, so the other side reads the very same
    strings and refuses them as in-process (``bad_query``), rather than this side failing to send."""
    import json

    line = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(message, separators=(",", ":"), default=str) + "\n").encode("ascii")


def render(document: dict[str, Any], for_terminal: bool = True) -> str:
    """A document as ``--json`` prints it: the one rendering behind every ``--json``. Indented for a person at a
    terminal; one line for a pipe, where an agent reads it: fewer tokens, and the C encoder (an indented recall
    document took 2.7 ms in Python's own, a third of a small store's recall)."""
    import json

    if for_terminal:
        return json.dumps(document, ensure_ascii=False, indent=2, default=str)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"), default=str)


DEFAULT_MAX_SESSION_BYTES = 64_000_000
"""``ingest.max_file_mb`` when config.json has none, in bytes (``tests/test_faults_server.py`` checks it)."""


def frame_limit(max_session_bytes: int) -> int:
    """The longest request a server takes: ``MAX_LINE`` beside an ingest's stdin of up to one byte past
    ``ingest.max_file_mb``, which travels base64-encoded (4 bytes for 3)."""
    return MAX_LINE + (max_session_bytes + 3) // 3 * 4


def read_message(stream: BinaryIO, limit: int = MAX_LINE) -> dict[str, Any] | None:
    """The next message (of at most ``limit`` bytes), or None at end of stream; raises ValueError on a malformed
    line."""
    line = stream.readline(limit)
    return decode(line) if line else None


def decode(line: bytes) -> dict[str, Any]:
    """One message; ValueError for anything but a JSON object (nesting too deep to parse included)."""
    import json

    try:
        message = json.loads(line)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"not UTF-8 ({error.reason})") from None
    if not isinstance(message, dict):
        raise ValueError("a message must be a JSON object")
    return message


def request_id(request: dict[str, Any]) -> int | str | None:
    """The id to echo: an integer or a short string; anything else (NaN, objects) is not echoed."""
    value = request.get("id")
    if isinstance(value, bool) or not isinstance(value, (int, str)) or len(str(value)) > 200:
        return None
    return value


def error_reply(identifier: int | str | None, error) -> dict[str, Any]:
    """The response carrying an :class:`~alaya_engine.foundations.errors.AlayaError` (not imported here: see above)."""
    return {"v": PROTOCOL_VERSION, "id": identifier,
            "error": {"code": error.code, "message": error.message, "exit_code": error.exit_code}}
