"""What maintenance, bulk loading and the memex import use of an open store: the layers and the two ways of
holding it, as one explicit interface.

:class:`~alaya_engine.engine.Engine` provides it; the capabilities name this instead of the engine, so they stay
below it (the engine imports them, never the reverse) and a reader sees at a glance what each one may touch.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .embedding.base import Embedder
    from .foundations.lock import StoreLock
    from .foundations.paths import Layout
    from .graph.store import GraphStore
    from .raw.store import RawStore
    from .vectors.store import VectorStore
    from .vectors.turn_windows import TurnWindowStore

ProgressCallback = Callable[[int, int], None]
"""Called with (done, total) as a long command advances."""


class StoreParts(Protocol):
    layout: Layout
    config: dict
    manifest: dict
    """``store.json``: the embedding model and graph engine the layers were built with."""
    lock: StoreLock
    raw: RawStore

    def hold(self) -> AbstractContextManager[GraphStore]:
        """Own the store (lock taken, graph open) until the outermost hold ends; re-entrant."""

    def step(self) -> AbstractContextManager[GraphStore]:
        """One step of work on the graph: held, and this process's other threads kept out meanwhile."""

    def fresh_graph(self) -> GraphStore:
        """Inside a hold: the graph reopened, its page cache given back, when no one else holds the store."""

    def vectors(self) -> VectorStore: ...

    def turn_windows(self) -> TurnWindowStore: ...

    def embedder(self) -> Embedder: ...

    def close_layers(self) -> None:
        """Close the graph and vector handles (before their folders are swapped)."""

    def scratch(self, layout: Layout, manifest: dict) -> StoreParts:
        """The same parts over another folder: where a rebuild builds the new layers."""
