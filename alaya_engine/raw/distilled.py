"""L3 records of distillation: what a rebuild replays instead of calling a model again.

Per distilled session, ``raw/distilled/<session-stem>.json`` holds its cards
(with the turn indices they came from) and every link the pipeline made for
them, and ``raw/contexts/card-<id>-context.json`` holds each card's context
turns verbatim. Contexts are written first and the record last: a
record on disk means the whole L3 step is complete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..foundations.atomic import atomic_write_files, json_bytes
from ..foundations.domain import Card, Link, Session
from .store import session_file_stem

RECORD_FORMAT = 1


@dataclass
class DistilledRecord:
    session_id: str
    session_hash: str
    distiller: str
    distilled_at: int
    cards: list[Card]
    card_turns: dict[str, list[int]]
    links: list[Link]
    dropped_links: int = 0
    skipped_reason: str | None = None

    def to_json(self) -> dict:
        return {
            "format": RECORD_FORMAT,
            "session_id": self.session_id,
            "session_hash": self.session_hash,
            "distiller": self.distiller,
            "distilled_at": self.distilled_at,
            "skipped_reason": self.skipped_reason,
            "dropped_links": self.dropped_links,
            "cards": [{**card.to_json(), "turns": self.card_turns.get(card.id, [])} for card in self.cards],
            "links": [link.to_json() for link in self.links],
        }

    @classmethod
    def from_json(cls, document: dict) -> "DistilledRecord":
        cards = [Card.from_json(card) for card in document["cards"]]
        return cls(
            session_id=document["session_id"],
            session_hash=document["session_hash"],
            distiller=document["distiller"],
            distilled_at=document["distilled_at"],
            cards=cards,
            card_turns={card["id"]: card.get("turns", []) for card in document["cards"]},
            links=[Link.from_json(link) for link in document["links"]],
            dropped_links=document.get("dropped_links", 0),
            skipped_reason=document.get("skipped_reason"),
        )


class DistilledStore:
    def __init__(self, folder: Path, contexts: Path):
        self.folder = folder
        self.contexts = contexts

    def path_for(self, session_id: str) -> Path:
        return self.folder / f"{session_file_stem(session_id)}.json"

    def context_path(self, card_id: str) -> Path:
        return self.contexts / f"{card_id}-context.json"

    def read(self, session_id: str) -> DistilledRecord | None:
        path = self.path_for(session_id)
        if not path.exists():
            return None
        return DistilledRecord.from_json(json.loads(path.read_text(encoding="utf-8")))

    def write(self, record: DistilledRecord, session: Session) -> None:
        self.write_many([(record, session)])

    def write_many(self, distilled: list[tuple[DistilledRecord, Session]]) -> None:
        """Every context first (their folder flushed once for all of them), then the records (theirs once): a
        record's presence marks a complete L3 step. A distill step writes its sessions together: two folder
        flushes per step instead of two per session."""
        atomic_write_files({self.context_path(card.id): json_bytes(_context(card.id, record, session))
                            for record, session in distilled for card in record.cards})
        atomic_write_files({self.path_for(record.session_id): json_bytes(record.to_json())
                            for record, _ in distilled})

    def delete_contexts(self, card_ids: list[str]) -> None:
        for card_id in card_ids:
            self.context_path(card_id).unlink(missing_ok=True)


def _context(card_id: str, record: DistilledRecord, session: Session) -> dict:
    """A card's context file: the turns of the session it came from, verbatim."""
    return {
        "card_id": card_id,
        "session_id": session.id,
        "turns": [{"index": index, **session.turns[index].to_json()} for index in record.card_turns.get(card_id, [])],
    }
