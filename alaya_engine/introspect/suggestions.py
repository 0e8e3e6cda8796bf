"""The review queue: introspect proposes, a person (or an LLM) disposes.

Each suggestion is one JSON file in ``raw/review/`` (L3, so it survives a
rebuild), with a stable id derived from its kind and subjects: running
consolidate again finds the same suggestion instead of a duplicate, and a
rejected one stays rejected.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..atomic import atomic_write_json
from ..errors import AlayaError

KINDS = ("merge_cards", "similar_to", "merge_relations", "promote_relation", "split_relation")
STATUSES = ("pending", "approved", "rejected")


@dataclass
class Suggestion:
    id: str
    kind: str
    subjects: list[str]
    """Card ids (merge_cards, similar_to) or relation names (the relation kinds), in a stable order."""
    evidence: dict = field(default_factory=dict)
    status: str = "pending"
    created_at: int = 0
    updated_at: int = 0

    def to_json(self) -> dict:
        return asdict(self)


def suggestion_id(kind: str, subjects: list[str]) -> str:
    return "sug-" + hashlib.sha256(json.dumps([kind, subjects]).encode()).hexdigest()[:12]


class SuggestionStore:
    def __init__(self, folder: Path):
        self.folder = folder

    def propose(self, kind: str, subjects: list[str], evidence: dict, now: int) -> tuple[Suggestion, bool]:
        """Record a suggestion unless it exists (whatever its status); returns it and whether it is new."""
        found = self.get(suggestion_id(kind, subjects), missing_ok=True)
        if found is not None:
            return found, False
        suggestion = Suggestion(suggestion_id(kind, subjects), kind, subjects, evidence, "pending", now, now)
        self.save(suggestion)
        return suggestion, True

    def get(self, suggestion_id_: str, missing_ok: bool = False) -> Suggestion | None:
        path = self.folder / f"{suggestion_id_}.json"
        if not path.exists() or "/" in suggestion_id_:
            if missing_ok:
                return None
            raise AlayaError("unknown_suggestion", f"no suggestion '{suggestion_id_}'; list them with: alaya review list")
        return Suggestion(**json.loads(path.read_text(encoding="utf-8")))

    def save(self, suggestion: Suggestion) -> None:
        atomic_write_json(self.folder / f"{suggestion.id}.json", suggestion.to_json())

    def all(self, status: str | None = None) -> list[Suggestion]:
        found = [Suggestion(**json.loads(path.read_text(encoding="utf-8"))) for path in sorted(self.folder.glob("*.json"))]
        return [s for s in found if status is None or s.status == status]
