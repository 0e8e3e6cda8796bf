"""Engine: the one API every face of Alaya (CLI, TUI, server, MCP) calls.

Methods return plain dataclasses whose ``to_json`` is exactly what
``--json`` prints. Writes go L3 → L2 → L1 (seed 7.4), so a failure after the
L3 write leaves a store that re-running the same command (or a rebuild)
completes. The graph database is opened only inside :meth:`_graph`, under the
store lock, and closed again as soon as the call is done: it is never held
open read-write while idle.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from . import __version__
from .atomic import atomic_write_json, atomic_write_text
from .config import default_config, load_config
from .domain import IngestOutcome, IngestReport, InitReport
from .embedding import embedder_identity, make_embedder
from .errors import RUNTIME, AlayaError
from .graph.store import GraphStore
from .lock import StoreLock
from .logs import setup_logging
from .paths import Layout, disk_usage, resolve_home
from .raw.formats import parse_session_bytes
from .raw.store import RawStore
from .relations import CORE_RELATIONS
from .sources import SessionSource, expand_sources

STORE_FORMAT = 1
log = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]
"""Called with (done, total) as a long command advances."""


@dataclass
class StatusReport:
    home: str
    version: str
    l3: dict
    l2: dict
    l1: dict

    def to_json(self) -> dict:
        return {"home": self.home, "version": self.version, "l3": self.l3, "l2": self.l2, "l1": self.l1}


class Engine:
    """One store, opened by one process."""

    def __init__(self, layout: Layout, config: dict, manifest: dict):
        self.layout = layout
        self.config = config
        self.manifest = manifest
        self.raw = RawStore(layout.sessions, layout.contexts)
        self.lock = StoreLock(layout.lock_file, config["lock"]["wait_seconds"])
        self._graph_store: GraphStore | None = None

    @classmethod
    def open(cls, home: str | os.PathLike | None = None) -> "Engine":
        """Open an initialised store; refuses a config that no longer matches the store."""
        layout = Layout(resolve_home(home))
        if not layout.is_initialised():
            raise AlayaError("not_initialised", f"no Alaya store at {layout.home}; run: alaya --home {layout.home} init")
        config = load_config(layout.config_file)
        manifest = _read_manifest(layout)
        _check_config_matches(config, manifest, layout)
        setup_logging(layout.home, config)
        return cls(layout, config, manifest)

    @classmethod
    def init(cls, home: str | os.PathLike | None = None) -> InitReport:
        """Create the store (idempotent): layout, config, prompt, graph schema, L1 tables, core relation vectors."""
        layout = Layout(resolve_home(home))
        if layout.is_initialised():
            engine = cls.open(layout.home)
            return InitReport(home=str(layout.home), created=False, steps=["already initialised; nothing changed"],
                              graph_engine=engine.manifest["graph_engine"], embedding=engine.manifest["embedding"]["name"],
                              dimension=engine.manifest["embedding"]["dimension"])
        _make_private_dir(layout.home)
        steps = [f"Created directory structure at {layout.home}"]
        if not layout.config_file.exists():
            atomic_write_json(layout.config_file, default_config())
            steps.append(f"Created config file at {layout.config_file}")
        config = load_config(layout.config_file)
        setup_logging(layout.home, config)
        for folder in (layout.sessions, layout.contexts, layout.graph_dir, layout.vectors_dir, layout.cache, layout.prompts):
            folder.mkdir(parents=True, exist_ok=True)
        prompt = layout.prompts / "distill.txt"
        if not prompt.exists():
            from .prompts import default_distill_prompt

            atomic_write_text(prompt, default_distill_prompt())
            steps.append(f"Wrote the default distill prompt to {prompt}")
        name, dimension = embedder_identity(config["embedding"])
        manifest = {
            "format": STORE_FORMAT,
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "graph_engine": config["graph"]["engine"],
            "embedding": {"name": name, "dimension": dimension},
        }
        engine = cls(layout, config, manifest)
        with engine._graph() as graph:
            graph.create_schema()
            steps.append(f"Initialized {manifest['graph_engine']} graph DB at {layout.graph_dir}")
            engine._init_vectors()
            steps.append(f"Initialized LanceDB at {layout.vectors_dir} ({len(CORE_RELATIONS)} core relation embeddings)")
            atomic_write_json(layout.manifest_file, manifest)
        log.info("initialised store at %s", layout.home)
        return InitReport(home=str(layout.home), created=True, steps=steps, graph_engine=manifest["graph_engine"],
                          embedding=name, dimension=dimension)

    def _init_vectors(self) -> None:
        from .vectors.store import VectorStore

        embedder = self.embedder()
        if embedder.dimension != self.manifest["embedding"]["dimension"]:
            raise AlayaError("embedding_dimension_mismatch", "embedding provider dimension does not match embedding.dimensions")
        vectors = VectorStore(self.layout.vectors_dir, embedder.dimension)
        vectors.create_tables()
        names = list(CORE_RELATIONS)
        texts = [f"{name.replace('_', ' ').lower()}: {CORE_RELATIONS[name]}" for name in names]
        vectors.upsert_relations(names, embedder.embed(texts), is_core=True,
                                 examples=[[CORE_RELATIONS[name]] for name in names])

    def embedder(self):
        return make_embedder(self.config["embedding"], cache_dir=self.layout.cache)

    @contextmanager
    def _graph(self) -> Iterator[GraphStore]:
        """The open graph database, under the store lock, for the duration of one call."""
        with self.lock:
            if self._graph_store is not None:
                yield self._graph_store
                return
            self._graph_store = GraphStore(self.layout.graph_db, self.manifest["graph_engine"])
            try:
                yield self._graph_store
            finally:
                self._graph_store.close()
                self._graph_store = None

    def ingest(self, paths: list[str], replace: bool = False, stdin: bytes | None = None,
               progress: ProgressCallback | None = None) -> IngestReport:
        """Store sessions in L3 and create their Session nodes; refused inputs never stop the others."""
        sources, outcomes = expand_sources(paths, stdin)
        max_bytes = self.config["ingest"]["max_file_mb"] * 1_000_000
        with self._graph() as graph:
            for done, source in enumerate(sources, start=1):
                outcomes.append(self._ingest_one(graph, source, max_bytes, replace))
                if progress:
                    progress(done, len(sources))
        return IngestReport(outcomes)

    def _ingest_one(self, graph: GraphStore, source: SessionSource, max_bytes: int, replace: bool) -> IngestOutcome:
        try:
            session = parse_session_bytes(source.read(max_bytes), max_bytes, source.agent_hint)
            content_hash = session.content_hash()
            existing = self.raw.find(session.id)
            status = "ingested"
            if existing is not None:
                if self.raw.read(existing).content_hash() == content_hash:
                    status = "unchanged"
                elif not replace:
                    raise AlayaError("session_conflict", f"session {session.id} is already stored with different "
                                                         "content; pass --replace to overwrite it")
                else:
                    status = "replaced"
            path = existing if status == "unchanged" else self.raw.write(session, replacing=existing)
            graph.upsert_session(session, content_hash, str(path.relative_to(self.layout.home)))
        except AlayaError as error:
            log.info("refused %s: %s", source.name, error.message)
            return IngestOutcome(source=source.name, status="refused", error={"code": error.code, "message": error.message})
        except OSError as error:
            log.error("could not ingest %s: %s", source.name, error)
            return IngestOutcome(source=source.name, status="refused",
                                 error={"code": "io_error", "message": f"{error.strerror or error}"})
        log.info("%s %s from %s", status, session.id, source.name)
        return IngestOutcome(source=source.name, status=status, session_id=session.id, path=str(path),
                             turns=len(session.turns), tokens=session.tokens, duration_ms=session.duration_ms,
                             channel=session.channel)

    def status(self) -> StatusReport:
        """Counts per layer and sizes on disk (reads L1 counts without importing LanceDB)."""
        from .vectors.store import read_stats

        raw = self.raw.stats()
        with self._graph() as graph:
            l2 = graph.counts()
        oldest, newest = l2.pop("oldest_session"), l2.pop("newest_session")
        return StatusReport(
            home=str(self.layout.home),
            version=__version__,
            l3={"sessions": raw.sessions, "bytes": raw.bytes,
                "oldest": oldest.date().isoformat() if oldest else None,
                "newest": newest.date().isoformat() if newest else None},
            l2={"engine": self.manifest["graph_engine"], **l2, "bytes": disk_usage(self.layout.graph_dir)},
            l1={**read_stats(self.layout.vectors_dir), "embedding": self.manifest["embedding"],
                "bytes": disk_usage(self.layout.vectors_dir)},
        )


def _make_private_dir(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)


def _read_manifest(layout: Layout) -> dict:
    import json

    try:
        return json.loads(layout.manifest_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AlayaError("store_damaged", f"{layout.manifest_file} is unreadable ({exc}); restore it from a backup",
                         RUNTIME) from None


def _check_config_matches(config: dict, manifest: dict, layout: Layout) -> None:
    """The embedding model and the graph engine are fixed when the store is created."""
    name, dimension = embedder_identity(config["embedding"])
    built = manifest["embedding"]
    if (name, dimension) != (built["name"], built["dimension"]):
        raise AlayaError(
            "embedding_changed",
            f"{layout.config_file} asks for embedding {name} ({dimension} dims) but this store was built with "
            f"{built['name']} ({built['dimension']} dims); restore the old embedding settings, or run "
            "`alaya rebuild` to re-embed the store with the new model",
        )
    if config["graph"]["engine"] != manifest["graph_engine"]:
        raise AlayaError(
            "graph_engine_changed",
            f"{layout.config_file} asks for graph engine {config['graph']['engine']} but this store uses "
            f"{manifest['graph_engine']}; the file formats differ, so set graph.engine back or rebuild into a new home",
        )
