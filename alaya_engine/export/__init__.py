"""``alaya export``: the store as files a person can open.

- ``cards/<type>/*.md`` — one Markdown file per card with YAML front matter and its relations as
  ``[[wikilinks]]`` (see :mod:`.markdown`), so the folder opens as an Obsidian/memex vault;
- ``graph.graphml`` — cards and sessions as nodes, every relation as an edge (see :mod:`.graphml`);
- ``index.md`` — every card, grouped by type.

Only the graph and ``card_heat``'s counters are read: ``config.json`` is never exported and no exported
field holds a setting, so API keys (which Alaya never stores anyway) cannot end up in an export.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..foundations.domain import CARD_TYPES
from .folder import check_replaceable, replace_folder
from .graphml import build_graph, write_graphml
from .markdown import card_document, file_stem, index_document, type_folder
from .snapshot import StoreSnapshot, read_snapshot

if TYPE_CHECKING:
    from ..store_parts import StoreParts


def export_store(engine: "StoreParts", out: str | None = None, progress=None) -> dict:
    """Write the export into ``out`` (default ``<home>/export``), replacing an earlier export there."""
    target = Path(out).expanduser().resolve() if out else engine.layout.home / "export"
    check_replaceable(target)
    with engine.step() as graph:
        snapshot = read_snapshot(graph, engine.vectors().heat_rows())
    exported_at = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    summary = _summary(snapshot)
    stems = {card["id"]: file_stem(card["id"], card["title"]) for card in snapshot.cards}

    def build(folder: Path) -> None:
        _write_cards(folder, snapshot, stems, progress)
        header = (f"Exported {exported_at} by Alaya {__version__}: {summary['cards']} cards, "
                  f"{summary['sessions']} sessions, {summary['edges']} relations. Open this folder as an "
                  "Obsidian vault; `graph.graphml` opens in Gephi.")
        (folder / "index.md").write_text(index_document(snapshot.cards, stems, header), encoding="utf-8")
        write_graphml(build_graph(snapshot, {"format": "alaya-export", "alaya_version": __version__,
                                             "exported_at": exported_at}), folder / "graph.graphml")

    replaced = replace_folder(target, build, {"alaya_export": 1, "version": __version__,
                                              "exported_at": exported_at, **summary})
    return {"out": str(target), "replaced": replaced, **summary,
            "cards_dir": str(target / "cards"), "graphml": str(target / "graph.graphml"),
            "index": str(target / "index.md")}


def _write_cards(folder: Path, snapshot: StoreSnapshot, stems: dict[str, str], progress) -> None:
    titles = {card["id"]: card["title"] for card in snapshot.cards}
    outgoing: dict[str, list[dict]] = {}
    for edge in snapshot.edges:
        if edge["target"] in stems:
            outgoing.setdefault(edge["source"], []).append({**edge, "target_title": titles[edge["target"]]})
    for card_type in {*CARD_TYPES, *(type_folder(card["type"]) for card in snapshot.cards)}:
        (folder / "cards" / card_type).mkdir(parents=True, exist_ok=True)
    for done, card in enumerate(snapshot.cards, start=1):
        path = folder / "cards" / type_folder(card["type"]) / f"{stems[card['id']]}.md"
        path.write_text(card_document(card, outgoing.get(card["id"], []), stems), encoding="utf-8")
        if progress and (done % 200 == 0 or done == len(snapshot.cards)):
            progress(done, len(snapshot.cards))


def _summary(snapshot: StoreSnapshot) -> dict:
    by_type = dict.fromkeys(CARD_TYPES, 0)
    for card in snapshot.cards:
        by_type[card["type"]] = by_type.get(card["type"], 0) + 1
    by_relation: dict[str, int] = {}
    for edge in snapshot.edges:
        by_relation[edge["relation"]] = by_relation.get(edge["relation"], 0) + 1
    return {"cards": len(snapshot.cards), "cards_by_type": by_type, "sessions": len(snapshot.sessions),
            "edges": len(snapshot.edges), "edges_by_relation": by_relation}
