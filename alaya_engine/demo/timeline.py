"""The demo's sessions, moved in time so that the newest one happened the day before the demo was built.

The shipped files are dated March–April 2026. Built months later, every card would be long cold at the demo's
introspect (and forgotten at a later one); moved by whole days, the sessions keep their spacing over seven weeks,
so the demo always shows HOT, WARM and COLD cards. Every date in a file moves together: times, ``YYYY-MM-DD``
dates in the text, and the date inside ``session-YYYYMMDD-HHMMSS`` ids. The shift is kept in the demo home, so
building the demo again another day finds the same files (unchanged) instead of ingesting a second copy.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

DAY_MS = 86_400_000
SHIFT_FILE = "demo.json"
"""In the demo home: ``{"shift_days": N}``, chosen when the demo was first built there."""

_MILLIS = re.compile(r'("timestamp":\s*)(\d{13})\b')
_ISO_DATE = re.compile(r"(?<!\d)(20\d\d)-(\d\d)-(\d\d)(?!\d)")
_ID_DATE = re.compile(r"(session-)(20\d\d)(\d\d)(\d\d)(-\d{6})")


def newest_session_day(files: list[Path]) -> date:
    """The UTC day of the latest session start among the shipped files (first line of a JSONL transcript)."""
    days = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        header = json.loads(text.splitlines()[0] if path.suffix == ".jsonl" else text)
        stamp = header["timestamp"]
        moment = (datetime.fromtimestamp(stamp / 1000, timezone.utc) if isinstance(stamp, int)
                  else datetime.fromisoformat(stamp.replace("Z", "+00:00")))
        days.append(moment.date())
    return max(days)


def shift_days(home: Path, files: list[Path], now_ms: int, new_store: bool) -> int:
    """The days to add to every date: the one recorded in ``home``; none for a demo store built before the
    sessions were moved (its files stay unchanged, ``--fresh`` moves them); else newest session → the day before."""
    recorded = home / SHIFT_FILE
    if recorded.exists():
        return int(json.loads(recorded.read_text(encoding="utf-8"))["shift_days"])
    if not new_store:
        return 0
    today = datetime.fromtimestamp(now_ms / 1000, timezone.utc).date()
    return (today - timedelta(days=1) - newest_session_day(files)).days


def record_shift(home: Path, days: int) -> None:
    (home / SHIFT_FILE).write_text(json.dumps({"shift_days": days}) + "\n", encoding="utf-8")


def shifted_text(text: str, days: int) -> str:
    """``text`` (a session file) with every time and date moved by ``days``."""
    if days == 0:
        return text

    def iso(match: re.Match) -> str:
        return (date(*map(int, match.groups())) + timedelta(days=days)).isoformat()

    def in_id(match: re.Match) -> str:
        moved = date(*map(int, match.group(2, 3, 4))) + timedelta(days=days)
        return f"{match.group(1)}{moved:%Y%m%d}{match.group(5)}"

    text = _MILLIS.sub(lambda match: f"{match.group(1)}{int(match.group(2)) + days * DAY_MS}", text)
    return _ID_DATE.sub(in_id, _ISO_DATE.sub(iso, text))


def shifted_copies(files: list[Path], days: int, folder: Path) -> list[Path]:
    """The files, moved by ``days``, written into ``folder`` (file names follow the ids they contain)."""
    copies = []
    for path in files:
        target = folder / shifted_text(path.name, days)
        target.write_text(shifted_text(path.read_text(encoding="utf-8"), days), encoding="utf-8")
        copies.append(target)
    return copies
