"""``alaya import-memex DIR``: memex cards into the store, L3 → L2 → L1.

Every imported or changed card is first appended to the L3 journal as a
``card.import`` event::

    {"card": Card.to_json(), "links": [Link.to_json(), ...],
     "origin": {"vault": <absolute folder>, "file": <path inside it>, "slug": ..., "file_hash": <sha256>}}

``links`` is the card's complete set of wikilink edges (``RELATES_TO``, reason
``memex wikilink``). :func:`apply_import_event` is what applying one means, for
this import and for a rebuild replaying the journal: upsert the card, drop its
previous wikilink edges, merge the given ones whose target card exists. A card
linking to a card written later in the same import gets its event a second time
at the end, so replaying the journal in order gives the same edges.

Card ids come from the slug (``card_id_for("memex", slug)``), so a re-import
updates a card in place. A file is unchanged — nothing written — when its hash
equals the last ``card.import`` event's for that card and the card's wikilink
edges in the graph are already the ones it resolves to (so a link that was
broken starts working once its target file appears, and an import cut short is
completed by running it again). A card that introspect forgot or a review merged
away is not brought back by an unchanged file; a forgotten card whose file
changed comes back as new knowledge, a merged-away one is listed as skipped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..foundations.config import ingest_limit
from ..foundations.domain import Card, Link, card_id_for, millis_now
from ..foundations.errors import AlayaError
from ..foundations.relations import CUSTOM_TABLE, relation_embedding_text
from ..graph.store import to_millis
from ..raw.journal import Journal
from .vault import VaultNote, VaultScan, scan_vault

if TYPE_CHECKING:
    from ..graph.store import GraphStore
    from ..store_parts import StoreParts

log = logging.getLogger(__name__)

IMPORT_OP = "card.import"
RELATION = "RELATES_TO"
REASON = "memex wikilink"
SOURCE = "memex"
DEFAULT_IMPORTANCE = 0.5
BATCH = 64
"""Cards per step: one journal write, one graph step, one L1 write; recalls get in between steps."""


def memex_card_id(slug: str) -> str:
    return card_id_for(SOURCE, slug)


def apply_import_event(graph: "GraphStore", payload: dict[str, Any]) -> int:
    """Apply one ``card.import`` payload to the graph (the live import and a rebuild); returns edges merged."""
    card = Card.from_json(payload["card"])
    graph.upsert_card(card)
    graph.query(f"MATCH (a:Card {{id: $id}})-[r:{CUSTOM_TABLE}]->(:Card) WHERE r.type = $type AND r.reason = $reason "
                "DELETE r", {"id": card.id, "type": RELATION, "reason": REASON})
    links = [Link.from_json(item) for item in payload["links"]]
    present = _existing_ids(graph, [link.target for link in links])
    merged = [link for link in links if link.target in present]
    for link in merged:
        graph.merge_link(link)
    return len(merged)


@dataclass
class _Plan:
    note: VaultNote
    card: Card
    links: list[Link]
    status: str
    """``imported`` (new in the store) or ``updated``."""

    def payload(self, vault: Path) -> dict:
        return {"card": self.card.to_json(), "links": [link.to_json() for link in self.links],
                "origin": {"vault": str(vault), "file": self.note.file, "slug": self.note.slug,
                           "file_hash": self.note.file_hash}}


@dataclass
class _History:
    """What the journal says about memex cards: the last import of each, and cards forgotten since."""

    last_import: dict[str, dict] = field(default_factory=dict)
    forgotten: set[str] = field(default_factory=set)

    def same_file(self, card_id: str, note: VaultNote) -> bool:
        return self.last_import.get(card_id, {}).get("origin", {}).get("file_hash") == note.file_hash


@dataclass
class _Snapshot:
    """What the store holds for this vault's cards, read in one step before anything is written."""

    ids: dict[str, str]
    """slug → card id."""
    targets: dict[str, list[str]]
    """slug → the card ids its wikilinks resolve to."""
    existing: dict[str, dict]
    edges: dict[str, set[str]]
    """card id → targets of its current wikilink edges."""
    outside: set[str]
    """Link targets not in this vault that the store holds (imported earlier)."""
    history: _History
    merged_away: dict[str, str]
    broken: list[dict]
    """``{"file", "target"}`` for links that reach no card."""

    def stays_removed(self, note: VaultNote) -> bool:
        """Merged away, or forgotten with its file unchanged since: an import does not bring it back."""
        card_id = self.ids[note.slug]
        return card_id not in self.existing and (
            card_id in self.merged_away or card_id in self.history.forgotten and self.history.same_file(card_id, note))

    def decide(self, notes: list[VaultNote], now: int) -> tuple[list[_Plan], list[dict], list[dict]]:
        """(plans to write, one outcome per note, skipped notes)."""
        arriving = {self.ids[note.slug] for note in notes
                    if self.ids[note.slug] not in self.existing and not self.stays_removed(note)}
        plans, outcomes, skipped = [], [], []
        for note in notes:
            card_id = self.ids[note.slug]
            same_file = self.history.same_file(card_id, note)
            linked = {t for t in self.targets[note.slug] if t in self.existing or t in arriving or t in self.outside}
            if same_file and (self.stays_removed(note) or card_id in self.existing
                              and linked == self.edges.get(card_id, set())):
                outcomes.append(_outcome(note, card_id, "unchanged"))
            elif card_id in self.merged_away:
                skipped.append({"file": note.file, "reason": f"merged into {self.merged_away[card_id]} by review; "
                                                             "edit that card instead"})
            else:
                card = _card(note, card_id, self.existing.get(card_id), now)
                links = [Link(card_id, target, RELATION, 1.0, REASON, now) for target in self.targets[note.slug]]
                plans.append(_Plan(note, card, links, "updated" if card_id in self.existing else "imported"))
                outcomes.append(_outcome(note, card_id, plans[-1].status))
        return plans, outcomes, skipped


def import_memex(engine: "StoreParts", directory: str, progress=None) -> dict:
    """Import (or re-import) a memex folder; returns the report ``--json`` prints."""
    root = _vault_root(directory)
    scan = scan_vault(root, ingest_limit(engine.config))
    history = _read_history(Journal(engine.layout.journal))
    ids = {note.slug: memex_card_id(note.slug) for note in scan.notes}
    earlier = [card_id for card_id, event in history.last_import.items()
               if event["origin"]["vault"] == str(root) and card_id not in ids.values()]
    with engine.hold():
        with engine.step() as graph:
            snapshot = _snapshot(engine, graph, scan, ids, history)
            missing = sorted(_existing_ids(graph, earlier))
        plans, outcomes, skipped = snapshot.decide(scan.notes, millis_now())
        _write(engine, root, _ordered_events(plans, snapshot.existing), snapshot.existing, progress)
    report = {
        "vault": str(root),
        "files": len(scan.notes),
        **{status: sum(1 for o in outcomes if o["status"] == status)
           for status in ("imported", "updated", "unchanged")},
        "links": sum(len(plan.links) for plan in plans),
        "broken_links": snapshot.broken,
        "unreadable": scan.unreadable,
        "skipped": scan.skipped + skipped,
        "missing": [{"file": history.last_import[card_id]["origin"]["file"], "card_id": card_id}
                    for card_id in missing],
        "cards": outcomes,
    }
    log.info("import-memex %s: %d imported, %d updated, %d unchanged, %d broken links, %d unreadable", root,
             report["imported"], report["updated"], report["unchanged"], len(report["broken_links"]),
             len(scan.unreadable))
    return report


def _snapshot(engine: "StoreParts", graph: "GraphStore", scan: VaultScan, ids: dict[str, str],
              history: _History) -> _Snapshot:
    from ..introspect.apply import Aliases

    targets, broken = _resolve_links(graph, scan, ids)
    existing = graph.cards(list(ids.values()))
    outside = _existing_ids(graph, sorted({t for found in targets.values() for t in found} - set(ids.values())))
    return _Snapshot(ids=ids, targets=targets, existing=existing, edges=_wikilink_edges(graph, list(existing)),
                     outside=outside, history=history, merged_away=Aliases(engine.layout.aliases).load(), broken=broken)


def _vault_root(directory: str) -> Path:
    if not directory:
        raise AlayaError("bad_request", "give the memex cards folder, e.g. alaya import-memex ~/.memex/cards")
    path = Path(directory).expanduser()
    if path.is_file():
        raise AlayaError("bad_request", f"{path} is a file; import-memex reads a whole vault (links between cards "
                                        f"need their neighbours): give the vault folder, e.g. {path.parent}")
    if not path.is_dir():
        raise AlayaError("not_found", f"no folder {path}; give the memex cards folder, e.g. ~/.memex/cards")
    return path.resolve()


def _resolve_links(graph: "GraphStore", scan: VaultScan,
                   ids: dict[str, str]) -> tuple[dict[str, list[str]], list[dict]]:
    """Each note's link targets as card ids; a target outside this vault counts if an earlier import made it."""
    resolver = scan.resolver()
    unresolved = {target for note in scan.notes for target in note.parsed.links if resolver.resolve(target) is None}
    candidates = {target: memex_card_id(target) for target in unresolved}
    known = _existing_ids(graph, list(candidates.values()))
    targets: dict[str, list[str]] = {}
    broken = []
    for note in scan.notes:
        found: list[str] = []
        for target in note.parsed.links:
            slug = resolver.resolve(target)
            card_id = ids[slug] if slug else candidates[target] if candidates[target] in known else None
            if card_id is None:
                broken.append({"file": note.file, "target": target})
            elif card_id != ids[note.slug] and card_id not in found:
                found.append(card_id)
        targets[note.slug] = found
    return targets, broken


def _card(note: VaultNote, card_id: str, existing: dict | None, now: int) -> Card:
    """A memex card; an existing one keeps its temperature and tier (a COLD one comes back WARM: it was edited)."""
    created = note.parsed.created_at or (to_millis(existing["created_at"]) if existing else note.mtime)
    updated = max(note.parsed.updated_at or note.mtime, created)
    tier = "HOT" if existing is None else "WARM" if existing["tier"] == "COLD" else existing["tier"]
    return Card(id=card_id, title=note.title, content=note.parsed.body, type=note.parsed.type, tags=note.parsed.tags,
                importance=DEFAULT_IMPORTANCE, source_sessions=[], created_at=created, updated_at=updated,
                temperature=1.0 if existing is None else existing["temperature"], tier=tier, source=SOURCE)


def _ordered_events(plans: list[_Plan], existing: dict) -> list[_Plan]:
    """Plans in walk order, then again every plan that links to a card written after it (see module doc)."""
    written = {plan.card.id for plan in plans}
    applied = set(existing)
    repeats = []
    for plan in plans:
        if any(link.target in written and link.target not in applied for link in plan.links):
            repeats.append(plan)
        applied.add(plan.card.id)
    return plans + repeats


def _write(engine: "StoreParts", root: Path, events: list[_Plan], existing: dict, progress) -> None:
    """Per batch: embed (outside the store step), then journal → graph → vectors; a repeated event (a card
    linking forward) touches the graph only."""
    journal = Journal(engine.layout.journal)
    vectors = engine.vectors() if events else None
    if events and RELATION not in vectors.relation_names():
        vectors.upsert_relations([RELATION], engine.embedder().embed([relation_embedding_text(RELATION, REASON)]),
                                 is_core=False, examples=[[REASON]])
    embedded_ids: set[str] = set()
    for start in range(0, len(events), BATCH):
        batch = events[start:start + BATCH]
        fresh = [plan for plan in {plan.card.id: plan for plan in batch}.values() if plan.card.id not in embedded_ids]
        embedded_ids.update(plan.card.id for plan in fresh)
        embedded = engine.embedder().embed([plan.card.embedding_text() for plan in fresh]) if fresh else None
        payloads = [plan.payload(root) for plan in batch]
        with engine.step() as graph:
            journal.append_many(IMPORT_OP, millis_now(), payloads)
            for payload in payloads:
                apply_import_event(graph, payload)
            vectors.upsert_cards([plan.card for plan in fresh], embedded)
            warmed = [vectors.heat_row(plan.card.id) for plan in fresh
                      if (existing.get(plan.card.id) or {}).get("tier") == "COLD"]
            vectors.update_heat([{**row, "tier": "WARM"} for row in warmed if row])
        if progress:
            progress(min(start + BATCH, len(events)), len(events))
    if events:
        with engine.step() as graph:
            vectors.set_relation_frequencies(graph.counts()["links_by_relation"])
            vectors.refresh_full_text_index()


def source_file(journal: Journal, card_id: str) -> dict | None:
    """Where a memex card was last imported from, for ``alaya trace``: the file's path, and its modification time
    now (``None`` when the file is gone since). A memex card has no session to trace back to; its file is the
    source a person can open. ``None`` for a card no import wrote."""
    event = _read_history(journal).last_import.get(card_id)
    if event is None:
        return None
    path = Path(event["origin"]["vault"]) / event["origin"]["file"]
    try:
        modified = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc).isoformat().replace("+00:00", "Z")
    except OSError:
        modified = None
    return {"path": str(path), "modified_at": modified}


def _read_history(journal: Journal) -> _History:
    history = _History()
    for event in journal.events():
        if event.get("op") == IMPORT_OP:
            card_id = event["card"]["id"]
            history.last_import[card_id] = event
            history.forgotten.discard(card_id)
        elif event.get("op") == "card.forget" and event["card"]["id"] in history.last_import:
            history.forgotten.add(event["card"]["id"])
    return history


def _existing_ids(graph: "GraphStore", card_ids: list[str]) -> set[str]:
    if not card_ids:
        return set()
    return {row[0] for row in graph.query("UNWIND $ids AS x MATCH (c:Card {id: x}) RETURN c.id", {"ids": card_ids})}


def _wikilink_edges(graph: "GraphStore", card_ids: list[str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    if card_ids:
        for source, target in graph.query(
                f"UNWIND $ids AS x MATCH (a:Card {{id: x}})-[r:{CUSTOM_TABLE}]->(b:Card) "
                "WHERE r.type = $type AND r.reason = $reason RETURN a.id, b.id",
                {"ids": card_ids, "type": RELATION, "reason": REASON}):
            edges.setdefault(source, set()).add(target)
    return edges


def _outcome(note: VaultNote, card_id: str, status: str) -> dict:
    return {"file": note.file, "slug": note.slug, "card_id": card_id, "title": note.title, "type": note.parsed.type,
            "status": status}
