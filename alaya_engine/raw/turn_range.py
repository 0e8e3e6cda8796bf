"""A stored session's turns by position: the ``session.turns`` method, which reads a stretch of one session's
turns from L3, e.g. around a window of raw turns that recall returned (its ``session_id`` and ``turn_range``).

The OpenClaw plugin's ``memory_get`` shows a session this way. Positions are zero-based, as in ``turn_range``;
a stretch that runs past the end is cut there, and ``more`` says whether turns follow it. The session's time and
channel come along, so a transcript can say when it was held (its turns carry only their own times, if any).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..foundations.errors import AlayaError
from .formats import SAFE_ID

if TYPE_CHECKING:
    from .store import RawStore

DEFAULT_COUNT = 20
MAX_COUNT = 200


def session_turns(raw: "RawStore", session_id: object, first: object = 0, count: object = DEFAULT_COUNT) -> dict:
    """Turns ``first`` to ``first + count - 1`` of a stored session, with its size and file."""
    if not isinstance(session_id, str) or not SAFE_ID.fullmatch(session_id):
        raise AlayaError("bad_request", "session.turns needs 'session_id', a session id from recall or ingest")
    for name, value, low, high in (("first", first, 0, None), ("count", count, 1, MAX_COUNT)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high and value > high):
            bounds = f"from {low} to {high}" if high else f"of at least {low}"
            raise AlayaError("bad_request", f"session.turns: '{name}' must be an integer {bounds}")
    path = raw.find(session_id)
    if path is None:
        raise AlayaError("unknown_session", f"no session '{session_id}' in this store; session ids come from "
                                            "recall (session_id of a window of raw turns) or ingest")
    session = raw.read(path)
    total = len(session.turns)
    if first >= total:
        raise AlayaError("bad_request", f"session '{session_id}' has {total} turns (positions 0 to {total - 1}); "
                                        f"there is no turn {first}")
    last = min(first + count, total) - 1
    when = session.started_at.isoformat().replace("+00:00", "Z")  # as trace and timeline give a session's time
    return {"session_id": session_id, "timestamp": when, "channel": session.channel, "path": str(path),
            "turn_count": total, "first": first, "last": last,
            "more": last + 1 < total,
            "turns": [{"index": index, **session.turns[index].to_json()} for index in range(first, last + 1)]}
