"""The memory over time (``timeline``): sessions by day or week, newest first, with the cards each one gave and
their temperature now.

A person asks "what did my agents learn last week, and is it still live?"; a list of sessions answers the first
half, the cards' temperatures the second. Bounded to the newest ``sessions`` sessions, whatever the store's size.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..foundations.errors import AlayaError

if TYPE_CHECKING:
    from ..store_parts import StoreParts

PERIODS = ("day", "week")
DEFAULT_SESSIONS = 200
MAX_SESSIONS = 2000


def store_timeline(store: StoreParts, by: str = "day", sessions: int = DEFAULT_SESSIONS) -> dict:
    """``{"by", "periods": [{"period", "sessions": [...], "cards"}], "sessions_shown", "sessions_total"}``."""
    if by not in PERIODS:
        raise AlayaError("bad_request", f"by must be one of {', '.join(PERIODS)}")
    if isinstance(sessions, bool) or not isinstance(sessions, int) or not 1 <= sessions <= MAX_SESSIONS:
        raise AlayaError("bad_request", f"sessions must be a whole number from 1 to {MAX_SESSIONS}")
    with store.step() as graph:
        total = graph.query("MATCH (s:Session) RETURN count(s)")[0][0]
        rows = graph.query(
            "MATCH (s:Session) WITH s ORDER BY s.timestamp DESC, s.id LIMIT $limit "
            "OPTIONAL MATCH (c:Card)-[:EXTRACTED_FROM]->(s) "
            "RETURN s.id, s.timestamp, s.channel, s.summary, c.id, c.title, c.type, c.tier, c.temperature "
            "ORDER BY s.timestamp DESC, s.id, c.temperature DESC, c.id", {"limit": sessions})
    listed: dict[str, dict] = {}
    for sid, moment, channel, summary, card_id, title, kind, tier, heat in rows:
        session = listed.setdefault(sid, {"id": sid, "timestamp": moment.isoformat() + "Z", "channel": channel,
                                          "summary": summary or "", "cards": [], "_moment": moment})
        if card_id is not None:
            session["cards"].append({"card_id": card_id, "title": title, "type": kind, "tier": tier,
                                     "temperature": heat})
    periods: dict[str, dict] = {}
    for session in listed.values():
        key = _period(session.pop("_moment"), by)
        period = periods.setdefault(key, {"period": key, "sessions": [], "cards": 0})
        period["sessions"].append(session)
        period["cards"] += len(session["cards"])
    return {"by": by, "periods": list(periods.values()), "sessions_shown": len(listed), "sessions_total": total}


def _period(moment: datetime, by: str) -> str:
    """The day (``2026-04-17``), or the Monday starting the week, as an ISO date (UTC)."""
    day = moment.date()
    return (day - timedelta(days=day.weekday()) if by == "week" else day).isoformat()
