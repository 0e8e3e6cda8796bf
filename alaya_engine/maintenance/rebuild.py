"""``alaya rebuild [--l1] [--l2] [--all]``: regenerate the derived layers from L3, without any model call.

- L2 comes from replaying L3 (``replay.py``): sessions, distillation records
  and the journal.
- L1 is re-embedded with the configured model, which is also how a store
  switches embedding model (the manifest is rewritten once the new vectors
  are in place). With L1 alone, the cards come from the current graph.
- Temperatures and tiers are recomputed from the whole access log with the
  cool-down formula, so COLD cards are not embedded at all; the access log is
  then folded afresh into the new L1 counters. With L2 alone, they are taken
  from L1 as it is.

The new layers are built in ``<home>/rebuild.tmp`` (with the same bulk
loader the benchmarks use) and swapped in by renaming folders, so a crash
leaves either the old layer or the new one — or, between the two renames, a
missing folder that ``verify`` reports and the next rebuild fills. The whole
run holds the store lock: it is maintenance, not something to overlap with
other writers (the CLI stops the owner server first).
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..embedding import embedder_identity
from ..foundations.atomic import atomic_write_json
from ..foundations.domain import Card, millis_now
from ..foundations.errors import AlayaError
from ..foundations.paths import Layout
from ..foundations.relations import CARD_TO_SESSION
from ..introspect.temperature import CardHeat, assign_tiers
from ..recall.access import AccessLog
from .replay import replay

if TYPE_CHECKING:
    import numpy as np

    from ..store_parts import ProgressCallback, StoreParts

log = logging.getLogger(__name__)

LAYERS = ("l1", "l2")
EMBED_BATCH = 256
SCRATCH = "rebuild.tmp"


@dataclass
class RebuildReport:
    layers: list[str]
    sessions: int = 0
    cards: int = 0
    links: int = 0
    vectors: int = 0
    windows: int = 0
    """Windows of raw turns embedded (with L1)."""
    embedding: str = ""
    unreadable: list[dict] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"layers": self.layers, "sessions": self.sessions, "cards": self.cards, "links": self.links,
                "vectors": self.vectors, "windows": self.windows, "embedding": self.embedding,
                "unreadable": self.unreadable, "seconds": self.seconds}


def rebuild(engine: "StoreParts", layers: set[str], progress: "ProgressCallback | None" = None) -> RebuildReport:
    from ..introspect.cooldown import cool_down

    report = RebuildReport(layers=sorted(layers))
    started = lap = time.perf_counter()

    def timed(name: str) -> None:
        nonlocal lap
        report.seconds[name] = round(time.perf_counter() - lap, 2)
        lap = time.perf_counter()

    now = millis_now()
    manifest = _new_manifest(engine, layers)
    with engine.lock:
        state = replay(engine.layout)
        report.unreadable = [{"path": p.path, "reason": p.reason} for p in state.unreadable] + \
            [{"path": str(line.path), "reason": line.describe()} for line in state.bad_journal_lines]
        sessions = list(state.sessions.values())
        if "l2" in layers:
            cards, links = list(state.cards.values()), list(state.links.values())
        else:
            with engine.hold() as graph:
                cards, links = graph.all_cards(), graph.all_links()
            known = set(state.sessions)
            links = [link for link in links if link.relation not in CARD_TO_SESSION or link.target in known]
        timed("replay")
        _set_heat(engine, cards, layers, now)
        dimension = manifest["embedding"]["dimension"]
        matrix = _embed(engine, cards, dimension, progress) if "l1" in layers else _zeros(len(cards), dimension)
        timed("embed")
        scratch = _build(engine, manifest, cards, links, sessions, matrix, state.promoted)
        timed("load")
        if "l1" in layers:
            report.windows = _index_windows(engine, scratch, dimension, progress)
            timed("turn windows")
        engine.close_layers()
        for layer in layers:
            live, fresh = _layer_dir(engine.layout, layer), _layer_dir(scratch, layer)
            _swap(live, fresh, scratch.home / f"old-{layer}")
        if manifest != engine.manifest:
            atomic_write_json(engine.layout.manifest_file, manifest)
            engine.manifest = manifest
        shutil.rmtree(scratch.home, ignore_errors=True)
        timed("swap")
        if "l1" in layers:
            AccessLog(engine.layout.access_log).offset_file.unlink(missing_ok=True)  # fold it all afresh
            with engine.hold() as graph:
                cool_down(vectors=engine.vectors(), graph=graph, embedder=engine.embedder(),
                          access_log=AccessLog(engine.layout.access_log), settings=engine.config["temperature"],
                          now=now, dry_run=False, step=engine.step)
            timed("cool-down")
    report.sessions, report.cards, report.links = len(sessions), len(cards), len(links)
    report.vectors = len(cards) if "l1" in layers else 0
    report.embedding = manifest["embedding"]["name"]
    report.seconds["total"] = round(time.perf_counter() - started, 2)
    log.info("rebuilt %s: %d cards, %d links in %.1f s", "+".join(report.layers), len(cards), len(links),
             report.seconds["total"])
    return report


def _set_heat(engine: "StoreParts", cards: list[Card], layers: set[str], now: int) -> None:
    """Temperatures and tiers: from the whole access log when L1 is rebuilt, else from L1 as it stands."""
    if "l1" not in layers:
        rows = {row["id"]: row for row in engine.vectors().heat_rows()}
        for card in cards:
            if card.id in rows:
                card.temperature, card.tier = rows[card.id]["temperature"], rows[card.id]["tier"]
        return
    folded, _ = AccessLog(engine.layout.access_log).fold(0)
    heat = []
    for card in cards:
        stats = folded.get(card.id)
        relevance = sum(stats.similarities) / stats.count if stats else 0.0
        heat.append(CardHeat(card.id, card.created_at, stats.last_accessed if stats else 0,
                             stats.count if stats else 0, relevance))
    tiers = assign_tiers(heat, now, engine.config["temperature"])
    for card in cards:
        card.temperature, card.tier = tiers[card.id]


def _embed(engine: "StoreParts", cards: list[Card], dimension: int,
           progress: "ProgressCallback | None") -> "np.ndarray":
    """Every card's embedding, COLD ones too (they are kept as 8-bit codes: a COLD card stays findable)."""
    matrix = _zeros(len(cards), dimension)
    embedder = engine.embedder()
    for start in range(0, len(cards), EMBED_BATCH):
        batch = cards[start:start + EMBED_BATCH]
        matrix[start:start + len(batch)] = embedder.embed([card.embedding_text() for card in batch])
        if progress:
            progress(start + len(batch), len(cards))
    return matrix


def _index_windows(engine: "StoreParts", scratch: Layout, dimension: int, progress: "ProgressCallback | None") -> int:
    """Every readable L3 session's windows of raw turns, into the new L1 (unreadable ones replay reported)."""
    from ..raw.store import RawStore
    from ..vectors.turn_windows import TurnWindowStore

    raw, sessions = RawStore(engine.layout.sessions, engine.layout.contexts), []
    for path in raw.iter_paths():
        try:
            sessions.append(raw.read(path))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return TurnWindowStore(scratch.vectors_dir, dimension).index(sessions, engine.embedder().embed, progress)


def _zeros(rows: int, dimension: int) -> "np.ndarray":
    import numpy as np

    return np.zeros((rows, dimension), dtype=np.float32)


def _new_manifest(engine: "StoreParts", layers: set[str]) -> dict:
    """The manifest after the rebuild: a rebuilt L1 takes the configured model, a rebuilt L2 the configured
    graph engine (this is how a store switches either); a layer kept as it is must still match the config."""
    name, dimension = embedder_identity(engine.config["embedding"])
    wanted = {"embedding": {"name": name, "dimension": dimension}, "graph_engine": engine.config["graph"]["engine"]}
    for layer, key, what in (("l1", "embedding", "embedding model"), ("l2", "graph_engine", "graph engine")):
        if layer not in layers and wanted[key] != engine.manifest[key]:
            raise AlayaError("layer_mismatch", f"config.json asks for another {what} than this store was built with; "
                                               f"rebuild that layer too: alaya rebuild --{layer} (or --all)")
    return {**engine.manifest, **wanted}


def _build(engine: "StoreParts", manifest: dict, cards: list[Card], links: list, sessions: list[dict],
           matrix: "np.ndarray", promoted: set[str]) -> Layout:
    """Both layers, fresh, in the scratch folder; the caller swaps in the ones it wants.
    ``promoted``: the relations the journal promoted, which get rel tables of their own."""
    from .bulk import bulk_load

    scratch = Layout(engine.layout.home / SCRATCH)
    shutil.rmtree(scratch.home, ignore_errors=True)
    bulk_load(engine.scratch(scratch, manifest), cards, links, matrix, sessions=sessions, promoted=promoted)
    return scratch


def _layer_dir(layout: Layout, layer: str) -> Path:
    return layout.vectors_dir if layer == "l1" else layout.graph_dir


def _swap(live: Path, fresh: Path, trash: Path) -> None:
    if live.exists():
        live.rename(trash)
    fresh.rename(live)
    shutil.rmtree(trash, ignore_errors=True)
