"""``alaya trace``: from a card (识) back to the session turns it came from (业)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..foundations.domain import from_fields


@dataclass
class TraceReport:
    card: dict
    sessions: list[dict]
    """Each source session: id, time, channel, and the path of its full L3 file."""
    context_turns: list[dict]
    """The turns the card was distilled from, with their indices in the session."""
    source_file: dict | None = None
    """An imported card's file instead (memex): its ``path`` and ``modified_at`` (``None`` when gone)."""
    entities: list[dict] = field(default_factory=list)
    """What the card mentions: each entity's ``id``, ``name``, ``kind`` and ``aliases`` (none for a window)."""

    def to_json(self) -> dict:
        return {"card": self.card, "sessions": self.sessions, "context_turns": self.context_turns,
                "source_file": self.source_file, "entities": self.entities}

    @classmethod
    def from_json(cls, document: dict) -> "TraceReport":
        return from_fields(cls, document)


def read_context(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return json.loads(path.read_text(encoding="utf-8"))["turns"]


def read_context_of(path: Path) -> dict:
    """A card's whole context document (``card_id``, ``session_id``, ``turns``); empty when it is missing or
    unreadable (recall reads it to place windows, and must not fail on one damaged file: verify reports those)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}
