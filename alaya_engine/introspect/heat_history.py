"""A card's temperature day by day (``card.heat``), replayed from the access log with cool-down's own formula.

The card screen shows one temperature; whether the card is cooling or being recalled again is the question a
person asks of it. The log keeps every recall's hits, so the temperature of any past day is the formula of
:mod:`.temperature` applied to the accesses before it. The history ends at the last introspect (the time the
stored temperature was computed at; recalls since are counted but not yet folded), or now when none ran.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from ..foundations.errors import AlayaError
from .temperature import DAY_MS, CardHeat, temperature

DEFAULT_DAYS = 60
MAX_DAYS = 366


def heat_history(access_log: Path, card_id: str, created_at: int, as_of: int, settings: dict,
                 days: int = DEFAULT_DAYS) -> dict:
    """``{"card_id", "as_of", "points": [{"day", "temperature", "accesses"}], "accesses", "since"}``: one point
    per day from the card's creation (at most ``days`` back) to ``as_of``; ``since`` counts recalls after it."""
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise AlayaError("bad_request", f"days must be a whole number from 1 to {MAX_DAYS}")
    hits = _hits(access_log, card_id)
    since = sum(1 for at, _ in hits if at > as_of)
    hits = [hit for hit in hits if hit[0] <= as_of]
    first = max(created_at, as_of - (days - 1) * DAY_MS)
    steps = max(0, (as_of - first) // DAY_MS)
    points = []
    for step in range(steps, -1, -1):
        moment = as_of - step * DAY_MS
        before = [similarity for at, similarity in hits if at <= moment]
        last = max((at for at, _ in hits if at <= moment), default=0)
        relevance = sum(before) / len(before) if before else 0.0
        heat = temperature(CardHeat(card_id, created_at, last, len(before), relevance), moment, settings)
        points.append({"day": _day(moment), "temperature": heat,
                       "accesses": sum(1 for at, _ in hits if moment - DAY_MS < at <= moment)})
    return {"card_id": card_id, "as_of": _day(as_of), "points": points, "accesses": len(hits), "since": since}


def _hits(access_log: Path, card_id: str) -> list[tuple[int, float]]:
    """(time, similarity) of every recall that returned the card; lines not naming it are not parsed."""
    needle = json.dumps(card_id).encode()
    found = []
    try:
        handle = access_log.open("rb")
    except FileNotFoundError:
        return []
    with handle:
        for raw in handle:
            if needle not in raw or not raw.endswith(b"\n"):
                continue
            try:
                entry = json.loads(raw)
                found.extend((int(entry["at"]), float(similarity)) for hit, similarity in entry["cards"]
                             if hit == card_id)
            except (ValueError, KeyError, TypeError):
                continue  # verify names a damaged line; a history skips it
    return sorted(found)


def _day(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc).date().isoformat()
