"""One run of the harness: per haystack a fresh Alaya store, every question asked of it and of the baselines.

``measure(haystacks, config_overrides)`` is the entry point for a tuning script as much as for the benchmarks:
it returns a :class:`Run` holding every question's ranked units under every method, which
:func:`.rows.quality_rows` summarises per row group. Alaya is asked ``engine.recall({"text": question,
"max_results": 10})`` with the store held open across the recalls, as the owner server holds it.

Comparing settings from a script at the repository root::

    from bench.quality import locomo
    from bench.quality.harness import measure
    from bench.quality.rows import quality_rows

    run = measure(locomo.haystacks(limit=2), config_overrides={"recall": {"alpha": 0.6}})
    for row in quality_rows("tuning", "LoCoMo", run, locomo.GROUPS):
        print(row.metric, row.value)
"""

from __future__ import annotations

import atexit
import gc
import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from alaya_engine.foundations.paths import Layout

from .alaya import UnitMapper, create_store, served
from .baselines import METHODS, VECTORS, Baselines
from .records import Haystack, Question
from .scoring import Scored

if TYPE_CHECKING:
    from collections.abc import Callable

    from alaya_engine.engine import Engine

ALAYA = "alaya"
ALL_METHODS = (ALAYA, *METHODS)
TOP = 10


@dataclass
class Asked:
    """One question and its ranked units under every method."""

    question: Question
    by_method: dict[str, Scored] = field(default_factory=dict)


@dataclass
class Run:
    """Everything measured over the haystacks of one ``measure`` call."""

    asked: list[Asked] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    sessions: int = 0
    turns: int = 0
    cards: int = 0
    links: int = 0
    card_sizes: list[int] = field(default_factory=list)
    """Distinct turns of every card made."""
    turns_in_cards: int = 0
    evidence_total: int = 0
    evidence_in_cards: int = 0
    unknown_evidence: int = 0
    missed_in_no_card: int = 0
    """Questions with no evidence turn in Alaya's top 10 and none in any card (distill, not recall)."""
    missed_in_some_card: int = 0
    """... though some evidence turn is in a card recall did not return."""
    init_s: list[float] = field(default_factory=list)
    build_s: list[float] = field(default_factory=list)
    recall_ms: list[float] = field(default_factory=list)
    embedded: int = 0
    """Texts the baselines embedded (the rest came from the cache)."""
    embed_s: float = 0.0
    wall_s: float = 0.0


def measure(haystacks: list[Haystack], config_overrides: dict | None = None,
            ask: "Callable[[Haystack, Path, Run, dict | None, Path], None] | None" = None) -> Run:
    """Build, ask and score every haystack; ``config_overrides`` are merged into each store's ``config.json``.
    ``ask`` (default :func:`evaluate`) builds and asks one haystack's store; :mod:`.navigation` passes its own."""
    run = Run()
    started = time.perf_counter()
    embedded, embed_s = VECTORS.embedded, VECTORS.seconds
    with tempfile.TemporaryDirectory(prefix="alaya-bench-quality-") as scratch:
        model_cache = Path(scratch) / "model-cache"
        for number, haystack in enumerate(haystacks):
            home = Path(scratch) / f"store-{number}"
            (ask or evaluate)(haystack, home, run, config_overrides, model_cache)
            if not model_cache.exists():
                shutil.copytree(Layout(home).cache, model_cache)
            shutil.rmtree(home)
    run.embedded, run.embed_s = VECTORS.embedded - embedded, VECTORS.seconds - embed_s
    run.wall_s = time.perf_counter() - started
    return run


@dataclass
class _Built:
    """A haystack's store as built once in this process, kept untouched, and what building it took."""

    home: Path
    init_s: float
    build_s: float
    cards: int
    links: int


_BUILT: dict[tuple[str, str], _Built] = {}
"""Stores built in this process, by their session files and settings. ``python -m bench`` asks LoCoMo's and
MemoryBank's stores in several benchmarks (quality, cross-lingual, a year later, navigation): each is built once
(LoCoMo's ten ~40 s, MemoryBank's thirty ~20 s) and copied for the next, which may change its copy."""


def build(haystack: Haystack, home: Path, run: Run, config_overrides: dict | None, model_cache: Path) -> "Engine":
    """A fresh store holding the haystack's sessions, ingested and distilled; its build counted in ``run`` (a copy
    of the one this process built already, counted as that build was)."""
    from alaya_engine.engine import Engine

    run.stores.append(haystack.name)
    run.sessions += len(haystack.sessions)
    run.turns += len(haystack.turns)
    run.unknown_evidence += haystack.unknown_evidence
    key = (json.dumps([str(path) for path in haystack.sessions]), json.dumps(config_overrides or {}, sort_keys=True))
    if key in _BUILT:
        built = _BUILT[key]
        shutil.copytree(built.home, home)
        engine = Engine.open(home)
        engine.embedder().embed(["warm up"])
    else:
        started = time.perf_counter()
        engine = create_store(home, config_overrides, model_cache)
        init_s = time.perf_counter() - started
        started = time.perf_counter()
        engine.ingest([str(path) for path in haystack.sessions])
        report = engine.distill().to_json()
        built = _Built(_kept_folder() / f"store-{len(_BUILT)}", init_s, time.perf_counter() - started,
                       report["cards_created"], report["links_created"])
        shutil.copytree(home, built.home)
        _BUILT[key] = built
    run.init_s.append(built.init_s)
    run.build_s.append(built.build_s)
    run.cards += built.cards
    run.links += built.links
    return engine


def _kept_folder() -> Path:
    """This process's folder of built stores, removed when it exits."""
    global _KEPT
    if _KEPT is None:
        _KEPT = Path(tempfile.mkdtemp(prefix="alaya-bench-built-"))
        atexit.register(shutil.rmtree, _KEPT, True)
    return _KEPT


_KEPT: Path | None = None


def evaluate(haystack: Haystack, home: Path, run: Run, config_overrides: dict | None, model_cache: Path,
             also: "Callable[[Engine, UnitMapper, Asked], None] | None" = None) -> None:
    """Build one haystack's store and ask every question of it and of the baselines. ``also`` asks each question
    again in other ways (:mod:`.cards_vs_windows`), on the same store while it is held, and adds to its methods."""
    questions = haystack.questions
    engine = build(haystack, home, run, config_overrides, model_cache)
    baselines = Baselines.build(haystack.turns, engine.embedder())
    asked = [Asked(question) for question in questions]
    for item, vector in zip(asked, VECTORS.embed(engine.embedder(), [question.text for question in questions])):
        item.by_method.update(baselines.rank(item.question, vector))

    mapper = UnitMapper(home, haystack.turns)
    cards = mapper.all_cards()
    in_cards = frozenset().union(*cards.values())
    run.card_sizes.extend(len(turns) for turns in cards.values())
    run.turns_in_cards += len(in_cards)
    for question in questions:
        run.evidence_total += len(question.evidence)
        run.evidence_in_cards += len(question.evidence & in_cards)

    with served(engine):
        for item in asked:
            started = time.perf_counter()
            nodes = engine.recall({"text": item.question.text, "max_results": TOP}).to_json()["nodes"]
            run.recall_ms.append((time.perf_counter() - started) * 1000)
            scored = item.by_method[ALAYA] = Scored(item.question, [mapper.unit(node) for node in nodes])
            if not scored.hit(TOP):
                if item.question.evidence & in_cards:
                    run.missed_in_some_card += 1
                else:
                    run.missed_in_no_card += 1
            if also is not None:
                also(engine, mapper, item)
    run.asked.extend(asked)
    del engine
    gc.collect()
