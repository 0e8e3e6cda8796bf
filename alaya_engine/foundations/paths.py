"""Where a store lives on disk, so no other module spells a path by hand."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "ALAYA_HOME"
DEFAULT_HOME = "~/.alaya"


def resolve_home(explicit: str | os.PathLike | None = None) -> Path:
    """The store's home: ``--home`` beats ``$ALAYA_HOME`` beats ``~/.alaya``."""
    chosen = explicit or os.environ.get(HOME_ENV) or DEFAULT_HOME
    return Path(chosen).expanduser().absolute()


class Layout:
    """The folders and files of one store.

    A plain class, not a dataclass: the thin client imports this, and ``dataclasses`` (with ``inspect``)
    costs ~14 ms of start-up that an agent pays on every call.
    """

    def __init__(self, home: Path):
        self.home = home

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and other.home == self.home

    def __repr__(self) -> str:
        return f"Layout({self.home!r})"

    @property
    def config_file(self) -> Path:
        return self.home / "config.json"

    @property
    def manifest_file(self) -> Path:
        """What is fixed for the store's lifetime: embedding model, dimension, graph engine."""
        return self.home / "store.json"

    @property
    def raw(self) -> Path:
        return self.home / "raw"

    @property
    def sessions(self) -> Path:
        return self.raw / "sessions"

    @property
    def contexts(self) -> Path:
        return self.raw / "contexts"

    @property
    def distilled(self) -> Path:
        """One record per distilled session: the cards and links, replayable without a model."""
        return self.raw / "distilled"

    @property
    def journal(self) -> Path:
        """Append-only changes after distillation (manual links, merges, ...), replayed in order."""
        return self.raw / "journal"

    @property
    def review(self) -> Path:
        """Introspect's suggestions, one JSON file each, with their status."""
        return self.raw / "review"

    @property
    def aliases(self) -> Path:
        """Ids of merged-away cards → the card that absorbed them."""
        return self.raw / "aliases.json"

    @property
    def graph_dir(self) -> Path:
        return self.home / "graph"

    @property
    def graph_db(self) -> Path:
        return self.graph_dir / "alaya.db"

    @property
    def vectors_dir(self) -> Path:
        return self.home / "lancedb"

    @property
    def access_log(self) -> Path:
        """Append-only record of what each recall returned, folded into counters later."""
        return self.home / "stats" / "access.jsonl"

    @property
    def last_introspect(self) -> Path:
        """When introspect last ran (its clock), which steps, how long: what status shows and heat is dated by."""
        return self.home / "stats" / "introspect.json"

    @property
    def prompts(self) -> Path:
        return self.home / "prompts"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def cache(self) -> Path:
        return self.home / "cache"

    @property
    def lock_file(self) -> Path:
        return self.home / "alaya.lock"

    @property
    def socket(self) -> Path:
        """The owner server's Unix socket (mode 0600): in the home unless its path would be too long
        (:mod:`alaya_engine.foundations.socket_address`)."""
        from .socket_address import socket_path

        return Path(socket_path(str(self.home)))

    @property
    def server_pid(self) -> Path:
        return self.home / "server.pid"

    @property
    def server_log(self) -> Path:
        return self.logs / "server.log"

    def sync_state(self, runtime: str) -> Path:
        """What ``alaya sync <runtime>`` last found in each transcript: bookkeeping, not L3 (safe to delete)."""
        return self.home / "sync" / f"{runtime}.json"

    def sync_lock(self, runtime: str) -> Path:
        """Held by the running ``alaya sync <runtime>``, so overlapping cron runs never interleave."""
        return self.home / "sync" / f"{runtime}.lock"

    def is_initialised(self) -> bool:
        return self.manifest_file.is_file()

    def require_initialised(self) -> None:
        from .errors import AlayaError

        if not self.is_initialised():
            raise AlayaError("not_initialised", f"no Alaya store at {self.home}; run: alaya --home {self.home} init")
