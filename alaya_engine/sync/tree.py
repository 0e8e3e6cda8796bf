"""The shared tree: what a remote holds, and this machine's part of it built from L3.

Each machine writes only under its own name, so two machines' pushes never touch the same file and git never has
a conflict to solve; a pull takes the other machines' parts::

    sessions/<machine>/YYYY-MM/session-<id>.json   shared sessions, masked; metadata.origin names the machine
    distilled/<machine>/session-<id>.json          their distillation records, masked, for the masked content
    journal/<machine>.jsonl                        the machine's journal events (links, merges, forgetting…)
    review/<machine>.json                          its review decisions

This machine's part is rebuilt from L3 at every push (a deterministic function of L3, the share rules and the
masker), so the working copy is only a cache: whatever a killed push left in it is thrown away.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.atomic import json_bytes
from ..foundations.machine import machine_id
from ..foundations.paths import Layout
from ..foundations.scope import SharePolicy
from ..introspect.suggestions import SuggestionStore
from ..raw.distilled import DistilledRecord, DistilledStore
from ..raw.formats import parse_session_json
from ..raw.journal import Journal
from ..raw.store import RawStore, session_file_stem
from .mask import Finding, mask_document

if TYPE_CHECKING:
    from .export_cache import ExportCache

PARTS = ("sessions", "distilled", "journal", "review")
CARD_KEYS = ("card", "drop", "keep", "card_id")
"""Where a journal event names a card (besides its ``links``)."""


def machine_of(path: str) -> str | None:
    """The machine a tree path belongs to (``sessions/<machine>/…``, ``journal/<machine>.jsonl``)."""
    part, _, rest = path.partition("/")
    if part not in PARTS or not rest:
        return None
    return rest.split("/", 1)[0].removesuffix(".jsonl").removesuffix(".json")


def own_paths(machine: str) -> tuple[str, ...]:
    """This machine's folders and files in the tree."""
    return (f"sessions/{machine}", f"distilled/{machine}", f"journal/{machine}.jsonl", f"review/{machine}.json")


def origin(document: dict) -> str | None:
    """The machine a stored session came from, None for a session of this store's own."""
    metadata = document.get("metadata")
    return metadata.get("origin") if isinstance(metadata, dict) else None


def session_machine(path: Path, home: Path) -> str:
    """The machine a stored session came from: the one that pushed it, else this store's own."""
    try:
        pushed = origin(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pushed = None
    return pushed or machine_id(home)


@dataclass
class Export:
    files: dict[str, bytes] = field(default_factory=dict)
    """Tree path → content, for this machine's part."""
    masked: list[dict] = field(default_factory=list)
    """What the masker hid: kind, session (or journal/record), field and offset; never the secret."""
    shared: int = 0
    private: int = 0
    events: int = 0
    reused: int = 0
    """Shared sessions taken from the cache of the last push, not masked again."""


def build_export(layout: Layout, share: dict, machine: str, cache: ExportCache | None = None) -> Export:
    """This machine's part of the tree: its shared sessions, their records, its journal events and review
    decisions, all masked. Sessions pulled from other machines are theirs to push. A session whose file and record
    are as they were at the last push is taken from ``cache`` instead of being masked again."""
    policy, export, private_cards = SharePolicy(share), Export(), set()
    raw, records = RawStore(layout.sessions, layout.contexts), DistilledStore(layout.distilled, layout.contexts)
    for path in raw.iter_paths():
        data = path.read_bytes()
        document = json.loads(data)
        if origin(document) not in (None, machine):
            continue
        record_path = records.path_for(document["id"])
        record_data = record_path.read_bytes() if record_path.is_file() else None
        record = DistilledRecord.from_json(json.loads(record_data)) if record_data is not None else None
        if not policy.shared(document):
            export.private += 1
            private_cards |= {card.id for card in record.cards} if record else set()
            continue
        export.shared += 1
        key = cache and cache.key(machine, data, record_data)
        taken = cache and cache.take(key)
        if taken:
            export.files.update(taken[0])
            export.masked += taken[1]
            export.reused += 1
            continue
        made = Export()
        _export_session(document, record, path, machine, made)
        export.files.update(made.files)
        export.masked += made.masked
        if cache:
            cache.remember(key, made.files, made.masked)
    journal = Journal(layout.journal)
    events = []
    for event in journal.events():
        if not journal.own(event) or private_cards & _cards_named(event):
            continue
        masked, found = mask_document({**event, "machine": machine})
        _note(export, found, f"journal {event['op']} at {event['at']}")
        events.append(json.dumps(masked, ensure_ascii=False, sort_keys=True))
    if events:
        export.files[f"journal/{machine}.jsonl"] = ("\n".join(events) + "\n").encode("utf-8")
        export.events = len(events)
    decided = {s.id: {"kind": s.kind, "subjects": s.subjects, "status": s.status, "updated_at": s.updated_at}
               for s in SuggestionStore(layout.review).all() if s.status != "pending"
               and not private_cards & set(s.subjects)}
    if decided:
        export.files[f"review/{machine}.json"] = json_bytes(decided)
    return export


def _export_session(document: dict, record, path: Path, machine: str, export: Export) -> None:
    original_hash = parse_session_json(document, stored=True).content_hash()
    masked, found = mask_document({key: document[key] for key in ("turns", "metadata") if key in document})
    _note(export, found, f"session {document['id']}")
    copy = {**document, **masked}
    copy["metadata"] = {**copy.get("metadata", {}), "origin": machine}
    session = parse_session_json(copy, stored=True)
    month, stem = path.parent.name, session_file_stem(session.id)
    export.files[f"sessions/{machine}/{month}/{stem}.json"] = json_bytes(session.to_json())
    if record is None or record.session_hash != original_hash:
        return  # not distilled from this content yet: its record travels once it is
    document_record, found = mask_document(record.to_json())
    _note(export, found, f"record of session {session.id}")
    document_record["session_hash"] = session.content_hash()
    export.files[f"distilled/{machine}/{stem}.json"] = json_bytes(document_record)


def _note(export: Export, found: list[Finding], what: str) -> None:
    export.masked += [{"in": what, **finding.to_json()} for finding in found]


def _cards_named(event: dict) -> set[str]:
    named = {link.get(end) for link in event.get("links") or () for end in ("source", "target")}
    for key in CARD_KEYS:
        value = event.get(key)
        named.add(value.get("id") if isinstance(value, dict) else value)
    return {card for card in named if isinstance(card, str)}
