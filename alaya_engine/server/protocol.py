"""Wire format: newline-delimited JSON, one request per connection.

Request  ``{"v": 1, "id": 1, "method": "recall", "params": {...}, "client_version": "0.1.0"}``
Progress ``{"v": 1, "id": 1, "progress": [done, total]}`` (zero or more, for long jobs)
Response ``{"v": 1, "id": 1, "result": {...}}`` — the same document ``--json`` prints — or
         ``{"v": 1, "id": 1, "error": {"code": ..., "message": ..., "exit_code": 2}}``.
         A request with ``"as_text": true`` gets ``{"v": 1, "id": 1, "text": "..."}`` instead of ``result``: the
         document rendered exactly as ``--json`` prints it, for a client that would rather not import ``json``
         (:mod:`.bare_client`).

Kept free of heavy imports: the client's fast path loads this and nothing else (``json`` only when used).
"""

from __future__ import annotations

TYPE_CHECKING = False
"""Not ``typing.TYPE_CHECKING``: importing ``typing`` costs ~7 ms on every client start."""

if TYPE_CHECKING:
    from typing import Any, BinaryIO

PROTOCOL_VERSION = 1
MAX_LINE = 64 * 1024 * 1024


def encode(message: dict[str, Any]) -> bytes:
    import json

    return (json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode("utf-8")


def render(document: dict[str, Any]) -> str:
    """A document as ``--json`` prints it: the one rendering behind the CLI, the fast path and ``as_text``."""
    import json

    return json.dumps(document, ensure_ascii=False, indent=2, default=str)


def frame_limit(max_session_bytes: int) -> int:
    """The longest request a server takes: ``MAX_LINE`` beside an ingest's stdin of up to one byte past
    ``ingest.max_file_mb``, which travels base64-encoded (4 bytes for 3)."""
    return MAX_LINE + (max_session_bytes + 3) // 3 * 4


def read_message(stream: BinaryIO, limit: int = MAX_LINE) -> dict[str, Any] | None:
    """The next message (of at most ``limit`` bytes), or None at end of stream; raises ValueError on a malformed
    line."""
    import json

    line = stream.readline(limit)
    if not line:
        return None
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("a message must be a JSON object")
    return message
