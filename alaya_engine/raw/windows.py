"""Turn windows: short runs of consecutive raw turns, the unit recall returns where no card covers a need.

A window is ``WINDOW_TURNS`` consecutive user/assistant turns of one session,
one every ``WINDOW_STRIDE`` turns (the tail included), so every turn sits in
one or two windows and a fact stated across a question and its answer stays
together. Three turns a window, stride two, is the unit measured on LoCoMo and
MemoryBank (docs/benchmarks.md). Tool calls and tool output are left out: they
are what a card distils, and a pasted log would swamp the token budget. A turn
longer than ``MAX_TURN_CHARS`` is cut there (a pasted document is distilled
into cards; its window shows the beginning).

A window's id names its session and the first and last turn positions it spans
(``<session>:turns:<first>-<last>``, zero-based, inclusive), so it is traceable
to L3 without any index: :func:`parse_window_id`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.last_used import LastUsed

if TYPE_CHECKING:
    from ..foundations.domain import Session
    from .store import RawStore

WINDOW_TURNS = 3
WINDOW_STRIDE = 2
MAX_TURN_CHARS = 1200
EMBEDDED_TURN_CHARS = 300
"""What of each line is embedded: the model's cost grows with the text (a window of three long agent turns took
20 ms, and ingest of 50 agent sessions 91 -> 8 sessions/s), and chat turns are shorter than this anyway; the
full text is still what full-text search indexes and what recall returns."""
SPOKEN_ROLES = ("user", "assistant")
_ID = re.compile(r"^(?P<session>.+):turns:(?P<first>\d+)-(?P<last>\d+)$")


@dataclass
class TurnWindow:
    id: str
    session_id: str
    first: int
    """Position in the session's ``turns`` of the window's first turn (zero-based)."""
    last: int
    """Position of its last turn (inclusive): tool turns in between are inside the range but not in the text."""
    time: int
    """Milliseconds since the epoch: the first turn's time, else the session's."""
    text: str
    """``speaker: content`` lines."""


def window_id(session_id: str, first: int, last: int) -> str:
    return f"{session_id}:turns:{first}-{last}"


def parse_window_id(unit_id: str) -> tuple[str, int, int] | None:
    """(session id, first, last) of a window id; None for anything else (a card id)."""
    match = _ID.match(unit_id)
    if match is None:
        return None
    return match["session"], int(match["first"]), int(match["last"])


def session_windows(session: "Session") -> list[TurnWindow]:
    spoken = [position for position, turn in enumerate(session.turns) if _spoken(turn)]
    if not spoken:
        return []
    starts = list(range(0, max(1, len(spoken) - WINDOW_TURNS + 1), WINDOW_STRIDE))
    if starts[-1] + WINDOW_TURNS < len(spoken):
        starts.append(len(spoken) - WINDOW_TURNS)
    return [window_at(session, spoken[start], spoken[min(start + WINDOW_TURNS, len(spoken)) - 1])
            for start in starts]


def window_at(session: "Session", first: int, last: int) -> TurnWindow:
    """The window spanning turns ``first`` to ``last`` of ``session``: its spoken turns, one line each."""
    return TurnWindow(
        id=window_id(session.id, first, last), session_id=session.id, first=first, last=last,
        time=session.turns[first].timestamp or session.timestamp,
        text="\n".join(_line(session, position) for position in range(first, last + 1)
                       if _spoken(session.turns[position])))


def read_spans(raw: "RawStore", spans: list[tuple[str, int, int]]) -> dict[str, TurnWindow]:
    """Windows of any span ``(session id, first, last)`` read from L3, by id; recall reads a span this way when it
    merged overlapping windows into one. A span whose session L3 no longer holds whole (gone, damaged, or
    ingested again shorter) is left out."""
    from ..foundations.errors import AlayaError

    sessions: dict[str, Session | None] = {}
    windows = {}
    for session_id, first, last in spans:
        if session_id not in sessions:
            try:
                path = raw.locate(session_id)
                session = _parsed(raw, path) if path is not None else None
                sessions[session_id] = session if session is not None and session.id == session_id else None
            except (AlayaError, OSError):
                sessions[session_id] = None
        session = sessions[session_id]
        if session is not None and 0 <= first <= last < len(session.turns):
            windows[window_id(session_id, first, last)] = window_at(session, first, last)
    return windows


PARSED_SESSIONS = 32
"""Sessions :func:`read_spans` keeps parsed, the last used: recalls show the windows of the same few sessions
again and again, and parsing one took 0.2 ms of a demo recall's 8 (reading the file 0.04)."""
PARSED_BYTES = 256 * 1024
"""A larger session file is parsed each time: parsed, a session takes about twice its file's size (the demo's 18:
167 KB on disk, 325 KB parsed), and 32 pasted documents must not stay in the owner server's memory (~16 MB at most
so)."""
_PARSED: LastUsed[tuple[str, int, int, int], "Session"] = LastUsed(PARSED_SESSIONS)


def _parsed(raw: "RawStore", path: Path) -> "Session":
    """The session stored at ``path``, parsed once while the file stays the same (every file of L3 is replaced
    whole, by a rename, so its inode, size or mtime tells a new one); only read from, never changed."""
    state = path.stat()
    if state.st_size > PARSED_BYTES:
        return raw.read(path)
    key = (str(path), state.st_ino, state.st_size, state.st_mtime_ns)
    session = _PARSED.get(key)
    if session is None:
        session = raw.read(path)
        _PARSED.put(key, session)
    return session


def _spoken(turn) -> bool:
    return turn.role in SPOKEN_ROLES and bool(turn.content.strip())


def embedded_lines(text: str) -> list[str]:
    """A window's lines as they are embedded: each cut at ``EMBEDDED_TURN_CHARS``."""
    return [line[:EMBEDDED_TURN_CHARS] for line in text.split("\n")]


HEADING_CHARS = 60
MARKUP = re.compile(r"\*\*|__|`")
"""Markdown's emphasis and code marks, which a heading shows as written ("- **On disk**: certbot…")."""


def window_heading(window: TurnWindow) -> str:
    """What a window is called where a card shows its title: its first line, without Markdown's marks, and when it
    was said. A session id told a person nothing; the id (session and turn range) stays the window's ``card_id``."""
    day = datetime.fromtimestamp(window.time / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")
    first = " ".join(MARKUP.sub("", window.text.split("\n", 1)[0]).split())
    if len(first) > HEADING_CHARS:
        first = first[:HEADING_CHARS - 1].rstrip() + "…"
    return f"{first} · {day}" if first else f"{window.session_id} · {day}"


def _line(session: "Session", position: int) -> str:
    turn = session.turns[position]
    speaker = str(turn.extra.get("speaker") or turn.role)
    content = " ".join(turn.content.split())
    if len(content) > MAX_TURN_CHARS:
        content = content[:MAX_TURN_CHARS] + " …"
    return f"{speaker}: {content}"
