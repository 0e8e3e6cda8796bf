"""Distill throughput on LoCoMo: the offline distiller alone, and the whole pipeline into a store.

LoCoMo (CC BY-NC) is read from ``../shared/data/locomo/`` (or ``$ALAYA_LOCOMO``) and never copied;
without it this benchmark prints one row saying so.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from pathlib import Path

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.engine import Engine

from .report import Row
from .show_cards import load_session, session_files

LOCOMO = Path(os.environ.get("ALAYA_LOCOMO", Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo"))


def run(quick: bool) -> list[Row]:
    folder = LOCOMO / "sessions"
    if not folder.is_dir():
        return [Row("distill", "LoCoMo not found", 0, "-", f"looked in {folder}")]
    files = session_files([str(folder)])[: 40 if quick else None]
    sessions = [load_session(path) for path in files]
    distiller = OfflineDistiller()
    distiller.distill(sessions[0])
    started = time.perf_counter()
    cards = [card for session in sessions for card in distiller.distill(session).cards]
    elapsed = time.perf_counter() - started
    per_type = Counter(card.type for card in cards)
    rows = [
        Row("distill", f"offline distiller, {len(sessions)} LoCoMo sessions", len(sessions) / elapsed, "sessions/s",
            f"{len(cards) / elapsed:.0f} cards/s"),
        Row("distill", "cards per type", len(cards), "cards", ", ".join(f"{k} {v}" for k, v in sorted(per_type.items()))),
    ]
    conversation = [path for path in files if path.name.startswith("session-26-")] or files[:19]
    with tempfile.TemporaryDirectory(prefix="alaya-bench-") as scratch:
        home = Path(scratch) / "home"
        Engine.init(home)
        engine = Engine.open(home)
        engine.ingest([str(path) for path in conversation])
        engine.embedder().embed(["warm up"])
        started = time.perf_counter()
        report = engine.distill().to_json()
        elapsed = time.perf_counter() - started
    rows.append(Row("distill", f"whole pipeline (L3+graph+LanceDB+embeddings), {len(conversation)} sessions",
                    len(conversation) / elapsed, "sessions/s", f"{report['cards_created'] / elapsed:.0f} cards/s, "
                                                               f"{report['links_created']} links"))
    return rows
