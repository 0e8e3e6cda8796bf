"""``alaya status``: counts per layer and sizes on disk, L1's counts read without importing LanceDB."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..foundations.domain import from_fields
from ..foundations.folder_sizes import disk_usage

if TYPE_CHECKING:
    from ..store_parts import StoreParts


@dataclass
class StatusReport:
    home: str
    version: str
    l3: dict
    l2: dict
    l1: dict
    temperature: list[dict]
    """Cards per temperature band, hottest first: range, low, high, count, share."""
    sync: dict = field(default_factory=dict)
    """This machine's id and its remotes (``sync/status.py``); empty in a report of an older Alaya."""
    tier_rules: dict = field(default_factory=dict)
    """The thresholds cool-down assigns tiers by (``introspect/temperature.py`` with this store's config)."""
    review: dict = field(default_factory=dict)
    """``{"pending": N}``: suggestions waiting for a person."""
    introspect: dict | None = None
    """The last introspect run (its clock ``at``, steps, seconds), None before the first."""

    def to_json(self) -> dict:
        return {"home": self.home, "version": self.version, "l3": self.l3, "l2": self.l2, "l1": self.l1,
                "temperature": self.temperature, "sync": self.sync, "tier_rules": self.tier_rules,
                "review": self.review, "introspect": self.introspect}

    @classmethod
    def from_json(cls, document: dict) -> "StatusReport":
        return from_fields(cls, document)


GAVE_NOTHING_LISTED = 10


def store_status(store: StoreParts) -> StatusReport:
    from ..introspect.suggestions import SuggestionStore
    from ..sync.status import sync_status
    from ..vectors.store import read_stats
    from ..vectors.turn_windows import read_window_stats

    raw = store.raw.stats()
    with store.step() as graph:
        l2 = graph.counts()
        histogram = graph.temperature_histogram()
        empty = graph.sessions_without_cards()
    oldest, newest = l2.pop("oldest_session"), l2.pop("newest_session")
    l1 = read_stats(store.layout.vectors_dir)
    vector_bytes = store.manifest["embedding"]["dimension"] * 4
    return StatusReport(
        home=str(store.layout.home),
        version=__version__,
        l3={"sessions": raw.sessions, "bytes": raw.bytes,
            "oldest": oldest.date().isoformat() if oldest else None,
            "newest": newest.date().isoformat() if newest else None,
            "gave_nothing": {"sessions": len(empty), "newest": _why_nothing(store, empty[:GAVE_NOTHING_LISTED])}},
        l2={"engine": store.manifest["graph_engine"], **l2, "bytes": disk_usage(store.layout.graph_dir)},
        l1={**l1, "windows": read_window_stats(store.layout.vectors_dir), "embedding": store.manifest["embedding"],
            "bytes": disk_usage(store.layout.vectors_dir), "saved_bytes": disk_usage(store.layout.cache / "resident"),
            "resident_bytes": {tier: l1["by_tier"].get(tier, 0) * vector_bytes for tier in ("HOT", "WARM")}},
        temperature=histogram,
        sync=sync_status(store.layout, store.config),
        tier_rules=tier_rules(store.config["temperature"]),
        review={"pending": len(SuggestionStore(store.layout.review).all("pending"))},
        introspect=_last_introspect(store.layout.last_introspect),
    )


def tier_rules(settings: dict) -> dict:
    """What makes a card HOT, WARM or COLD in this store (the rules of ``introspect/temperature.py``)."""
    from ..introspect.temperature import FREQUENT_ACCESSES, NEW_CARD_DAYS

    return {"hot_threshold": settings["hot_threshold"], "warm_threshold": settings["warm_threshold"],
            "new_card_days": NEW_CARD_DAYS, "frequent_accesses": FREQUENT_ACCESSES,
            "cold_days": settings["cold_days"], "hot_limit": settings["hot_limit"],
            "warm_limit": settings["warm_limit"]}


def _read_last_introspect(path: Path) -> dict | None:
    import json

    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("at"), int) else None


def last_introspect_millis(path: Path) -> int | None:
    """The clock of the last introspect (what the stored temperatures were computed at), None before the first."""
    record = _read_last_introspect(path)
    return record["at"] if record else None


def _last_introspect(path: Path) -> dict | None:
    """The record introspect leaves (``stats/introspect.json``), its clock as ISO time."""
    from datetime import datetime, timezone

    record = _read_last_introspect(path)
    if record is None:
        return None
    at = datetime.fromtimestamp(record["at"] / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")
    return {**record, "at": at}


def _why_nothing(store: StoreParts, session_ids: list[str]) -> list[dict]:
    """Each session with the reason its distillation recorded in L3 (a session whose cards were all forgotten or
    merged away since has none)."""
    from ..raw.distilled import DistilledStore

    records = DistilledStore(store.layout.distilled, store.layout.contexts)
    listed = []
    for session_id in session_ids:
        try:
            record = records.read(session_id)
        except (OSError, ValueError, KeyError, TypeError):  # a damaged record must not take status down
            listed.append({"session_id": session_id, "reason": "its distillation record is unreadable; run: "
                                                              "alaya verify"})
            continue
        reason = (record.skipped_reason if record and not record.cards else None) or \
            "its cards were forgotten or merged into other sessions' cards"
        listed.append({"session_id": session_id, "reason": reason})
    return listed
