"""Alaya's side: build a store from a haystack's sessions, and map the units recall returns back to turns.

A store is built as a user's is: ``Engine.init``, ``Engine.open``, ``ingest``, ``distill`` (default config
unless overridden: offline distiller, bundled embedder). ``config_overrides`` are merged key by key into
``<home>/config.json`` between init and open, so recall weights can be compared without editing code; the store's
embedding and graph engine are fixed at init and ``Engine.open`` refuses overrides that change them. The
embedder's cache folder (the model's pickled tokenizer) is carried from the first store of a run to the next,
as a user's one store keeps its own: without it every store pays ~2 s building the same tokenizer.

Recall's JSON contract names each node's ``kind``:

- ``card`` (or no ``kind``): a card, covering the turns of its context file
  ``<home>/raw/contexts/<card_id>-context.json`` (``session_id`` and ``turns[*].index``, what ``trace`` reads);
- ``session_turns``: a window of raw turns, ``session_id`` and ``turn_range`` ``[first, last]`` (zero-based,
  inclusive) into that session's turns.

A unit's tokens are those of the node's ``content``, what an agent receives.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import estimate_tokens
from alaya_engine.foundations.paths import Layout

from .records import Turn, TurnKey
from .units import Unit, by_session

CONTEXT_SUFFIX = "-context.json"
SNAPSHOT_WAIT_SECONDS = 300


def merged(base: dict, overrides: dict) -> dict:
    """``base`` with ``overrides`` laid over it, nested objects merged key by key."""
    result = dict(base)
    for key, value in overrides.items():
        nested = isinstance(value, dict) and isinstance(base.get(key), dict)
        result[key] = merged(base[key], value) if nested else value
    return result


def create_store(home: Path, config_overrides: dict | None, model_cache: Path | None) -> Engine:
    """An initialised, opened, empty store at ``home`` (its embedder warmed up)."""
    if model_cache is not None and model_cache.is_dir():
        shutil.copytree(model_cache, Layout(home).cache)
    Engine.init(home)
    if config_overrides:
        config_file = Layout(home).config_file
        config = json.loads(config_file.read_text(encoding="utf-8"))
        config_file.write_text(json.dumps(merged(config, config_overrides), indent=2), encoding="utf-8")
    engine = Engine.open(home)
    engine.embedder().embed(["warm up"])
    return engine


@contextmanager
def served(engine: Engine, wait_seconds: float = SNAPSHOT_WAIT_SECONDS) -> Iterator[None]:
    """The store held as the owner server holds it: recall reads the graph from its resident snapshot, not with a
    database query per card (the same units in the same order; LoCoMo's recall per question 24 -> 9 ms).
    Waits for the snapshot of the store as it is now; a store changed meanwhile is read again when next served."""
    with engine.hold():
        if not engine.keep_resident(wait_seconds=wait_seconds):
            raise RuntimeError(f"the graph snapshot of {engine.layout.home} was not read within {wait_seconds:g} s")
        yield


class UnitMapper:
    """Recall nodes → units over the store's turns; card contexts read once per card."""

    def __init__(self, home: Path, turns: list[Turn]):
        self.contexts = Layout(home).contexts
        self.sessions = by_session(turns)
        self.card_turns: dict[str, frozenset[TurnKey]] = {}

    def all_cards(self) -> dict[str, frozenset[TurnKey]]:
        """Every card in the store with the turns it came from."""
        for path in self.contexts.glob(f"*{CONTEXT_SUFFIX}"):
            self.card(path.name[: -len(CONTEXT_SUFFIX)])
        return self.card_turns

    def card(self, card_id: str) -> frozenset[TurnKey]:
        if card_id not in self.card_turns:
            context = json.loads((self.contexts / f"{card_id}{CONTEXT_SUFFIX}").read_text(encoding="utf-8"))
            self.card_turns[card_id] = frozenset((context["session_id"], turn["index"]) for turn in context["turns"])
        return self.card_turns[card_id]

    def unit(self, node: dict) -> Unit:
        kind = node.get("kind", "card")
        if kind == "card":
            turns = self.card(node["card_id"])
        elif kind == "session_turns":
            first, last = node["turn_range"]
            turns = frozenset(turn.key for turn in self.sessions[node["session_id"]][first:last + 1])
        else:
            raise ValueError(f"recall returned a node of unknown kind {kind!r}; the harness maps card and "
                             "session_turns")
        return Unit(turns, estimate_tokens(node["content"]), kind)
