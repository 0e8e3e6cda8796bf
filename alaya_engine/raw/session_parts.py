"""What every session reader shares: refusals, the id rule, JSONL lines, times, and the finishing touches.

Kept apart from :mod:`.formats` (which picks the reader for a file) so the runtime readers, :mod:`.claude_code`
and :mod:`.codex`, can build on it without importing the module that imports them.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from typing import Any

from ..foundations.domain import Session, estimate_tokens
from ..foundations.errors import AlayaError
from ..foundations.json_input import JsonInputError, load_json

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
LATEST_MILLIS = 253_402_300_799_999
"""9999-12-31T23:59:59.999Z: later times cannot be stored (nor can times before 1970)."""


def refuse(message: str) -> AlayaError:
    return AlayaError("bad_session", message)

def check_session_id(session_id: Any) -> str:
    """Refuse ids that are not plain names, so no id can escape the data folder."""
    if not isinstance(session_id, str) or not session_id:
        raise refuse("field 'id' must be a non-empty string")
    if not SAFE_ID.fullmatch(session_id) or ".." in session_id:
        raise refuse(f"session id {session_id[:80]!r} is not allowed: use letters, digits, '.', '_' and '-' "
                     "(at most 128)")
    return session_id

def jsonl_events(text: str) -> list[tuple[int, dict]]:
    """Every non-blank line as ``(line number, object)``; one malformed line (such as a last line still being
    written) refuses the whole file, naming the line, so a half-written session is never stored as complete."""
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = load_json(line)
        except JsonInputError as exc:
            raise refuse(f"line {number}: malformed JSON ({exc.reason})") from None
        if not isinstance(event, dict):
            raise refuse(f"line {number}: expected a JSON object")
        events.append((number, event))
    return events

def text_or_none(value: Any) -> str | None:
    """A transcript's optional descriptive fields (model, cwd…): kept when they are strings, ignored otherwise."""
    return value if isinstance(value, str) else None

def finish(session: Session) -> Session:
    """Refuse empty sessions and fill in the metadata a session should carry."""
    if not any(turn.content.strip() or turn.tool_calls for turn in session.turns):
        raise refuse("session has no turns with content")
    stamps = [t.timestamp for t in session.turns if t.timestamp is not None]
    session.metadata.setdefault("duration_ms", (max(stamps) - min(stamps)) if stamps else 0)
    session.metadata.setdefault("tokens", estimate_tokens(" ".join(t.content for t in session.turns)))
    return session

def to_millis(value: Any, where: str, millis_only: bool = False) -> int | None:
    """Accept epoch milliseconds (or seconds, below 1e11, unless ``millis_only``) and ISO-8601 strings; return UTC
    milliseconds from 1970 to 9999."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise refuse(f"{where} must be a number or an ISO-8601 string")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise refuse(f"{where} must be a finite number, got {value}")
        millis = value if millis_only or value > 1e11 else value * 1000
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=timezone.utc)
            millis = parsed.timestamp() * 1000
        except (ValueError, OverflowError):
            raise refuse(f"{where} {value[:40]!r} is not an ISO-8601 time") from None
    else:
        raise refuse(f"{where} must be a number or an ISO-8601 string, got {type_name(value)}")
    if not 0 <= millis <= LATEST_MILLIS:  # checked before int(): a huge float times 1000 is infinite
        raise refuse(f"{where} {str(value)[:40]} is out of range: times from 1970 to 9999 can be stored")
    return int(millis)

def type_name(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), type(value).__name__)
