"""``alaya status``: counts per layer and sizes on disk, L1's counts read without importing LanceDB."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import __version__
from ..foundations.domain import from_fields
from ..foundations.paths import disk_usage

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

    def to_json(self) -> dict:
        return {"home": self.home, "version": self.version, "l3": self.l3, "l2": self.l2, "l1": self.l1,
                "temperature": self.temperature, "sync": self.sync}

    @classmethod
    def from_json(cls, document: dict) -> "StatusReport":
        return from_fields(cls, document)


GAVE_NOTHING_LISTED = 10


def store_status(store: StoreParts) -> StatusReport:
    from ..sync.status import sync_status
    from ..vectors.store import read_stats

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
        l1={**l1, "embedding": store.manifest["embedding"], "bytes": disk_usage(store.layout.vectors_dir),
            "resident_bytes": {tier: l1["by_tier"].get(tier, 0) * vector_bytes for tier in ("HOT", "WARM")}},
        temperature=histogram,
        sync=sync_status(store.layout, store.config),
    )


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
