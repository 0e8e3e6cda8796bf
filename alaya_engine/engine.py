"""The engine: the facade over one open store, which every method of :mod:`.api` runs on.

It opens the layers (L3 raw, L2 graph, L1 vectors, the embedder) and hands them to the capabilities (distill,
recall, introspect, maintenance, memex), which do the work; it keeps the order of writes — L3 → L2 → L1, so a
failure after the L3 write leaves a store that re-running the same command (or a rebuild) completes. The graph
database is opened only inside :meth:`Engine.hold` / :meth:`Engine.step`, under the store lock, and closed again
as soon as the call is done: it is never held open read-write while idle.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from .embedding import embedder_identity, make_embedder
from .foundations.atomic import atomic_write_json, atomic_write_text
from .foundations.config import default_config, ingest_limit, load_config
from .foundations.disk import is_disk_full
from .foundations.domain import IngestOutcome, IngestReport, InitReport, Link, LinkReport, UnlinkReport, millis_now
from .foundations.errors import RUNTIME, AlayaError
from .foundations.lock import StoreLock
from .foundations.logs import setup_logging
from .foundations.paths import Layout, resolve_home
from .foundations.privacy import create_privately, refuse_shared_home, tighten_home
from .foundations.relations import (
    CORE_RELATIONS,
    check_new_relation,
    directed,
    is_core,
    normalise_relation,
    relation_embedding_text,
)
from .graph.resident import ResidentGraph
from .graph.stale_view import StaleView
from .graph.store import GraphStore, card_document
from .raw.formats import parse_session_bytes
from .raw.sources import SessionSource, expand_sources
from .raw.store import RawStore
from .store_parts import ProgressCallback

if TYPE_CHECKING:
    from .distill.pipeline import DistillReport
    from .foundations.domain import Session
    from .graph.reader import GraphReader
    from .graph.schema_info import NodeTypesReport, RelationsReport
    from .graph.snapshot import GraphSnapshot
    from .introspect.apply import MergedText
    from .maintenance.backup import BackupReport, RestoreReport
    from .maintenance.rebuild import RebuildReport
    from .maintenance.status import StatusReport
    from .maintenance.verify import VerifyReport
    from .recall.query_vectors import QueryVectors
    from .recall.result import RecallResult
    from .recall.trace import TraceReport
    from .recall.turns import TurnSearch

STORE_FORMAT = 1
log = logging.getLogger(__name__)



class Engine:
    """One store, opened by one process."""

    def __init__(self, layout: Layout, config: dict, manifest: dict):
        self.layout = layout
        self.config = config
        self.manifest = manifest
        self.raw = RawStore(layout.sessions, layout.contexts)
        self.lock = StoreLock(layout.lock_file, config["lock"]["wait_seconds"])
        self._graph_store: GraphStore | None = None
        self._mutex = threading.RLock()
        self._holding = threading.Lock()
        self._holders = 0
        self._embedder = None
        self._query_vectors = None
        self._card_index = None
        self._vectors = None
        self._turn_windows = None
        self._turn_index = None
        self._resident: ResidentGraph | None = None
        self._readers: dict[int, GraphStore] = {}
        """Reading connections of the owner server's threads (see :meth:`_graph_view`), by thread id."""
        self._jobs = 0
        """Write jobs running now (:meth:`job`), counted under ``_mutex``."""

    @classmethod
    def open(cls, home: str | os.PathLike | None = None, for_rebuild: bool = False) -> "Engine":
        """Open an initialised store; refuses a config that no longer matches the store, except to rebuild it."""
        layout = Layout(resolve_home(home))
        layout.require_initialised()
        create_privately()
        refuse_shared_home(layout.home)
        config = load_config(layout.config_file)
        manifest = _read_manifest(layout)
        if not for_rebuild:
            _check_config_matches(config, manifest, layout)
        setup_logging(layout.home, config)
        return cls(layout, config, manifest)

    @classmethod
    def init(cls, home: str | os.PathLike | None = None) -> InitReport:
        """Create the store (idempotent): layout, config, prompt, graph schema, L1 tables, core relation vectors."""
        layout = Layout(resolve_home(home))
        create_privately()
        tightened = tighten_home(layout.home) if layout.home.is_dir() else None
        if layout.is_initialised():
            engine = cls.open(layout.home)
            return InitReport(home=str(layout.home), created=False,
                              steps=[tightened, "already initialised; nothing else changed"] if tightened
                              else ["already initialised; nothing changed"],
                              graph_engine=engine.manifest["graph_engine"],
                              embedding=engine.manifest["embedding"]["name"],
                              dimension=engine.manifest["embedding"]["dimension"])
        _make_private_dir(layout.home)
        steps = [f"Created directory structure at {layout.home}", *([tightened] if tightened else [])]
        if not layout.config_file.exists():
            atomic_write_json(layout.config_file, default_config())
            steps.append(f"Created config file at {layout.config_file}")
        config = load_config(layout.config_file)
        setup_logging(layout.home, config)
        for folder in (layout.sessions, layout.contexts, layout.graph_dir, layout.vectors_dir, layout.cache,
                       layout.prompts):
            folder.mkdir(parents=True, exist_ok=True)
        from .prompts import DEFAULT_PROMPTS, default_prompt

        for name in DEFAULT_PROMPTS:
            prompt = layout.prompts / name
            if not prompt.exists():
                atomic_write_text(prompt, default_prompt(name))
                steps.append(f"Wrote the default {prompt.stem} prompt to {prompt}")
        name, dimension = embedder_identity(config["embedding"])
        manifest = {
            "format": STORE_FORMAT,
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "graph_engine": config["graph"]["engine"],
            "embedding": {"name": name, "dimension": dimension},
        }
        engine = cls(layout, config, manifest)
        with engine.step() as graph:
            graph.create_schema()
            steps.append(f"Initialized {manifest['graph_engine']} graph DB at {layout.graph_dir}")
            engine._init_vectors()
            steps.append(f"Initialized LanceDB at {layout.vectors_dir} "
                         f"({len(CORE_RELATIONS)} core relation embeddings)")
            atomic_write_json(layout.manifest_file, manifest)
        log.info("initialised store at %s", layout.home)
        return InitReport(home=str(layout.home), created=True, steps=steps, graph_engine=manifest["graph_engine"],
                          embedding=name, dimension=dimension)

    def _init_vectors(self) -> None:
        embedder = self.embedder()
        vectors = self.vectors()
        vectors.create_tables()
        self.turn_windows().table()  # created on first use
        names = list(CORE_RELATIONS)
        vectors.upsert_relations(names, embedder.embed([relation_embedding_text(name) for name in names]), is_core=True,
                                 examples=[[CORE_RELATIONS[name]] for name in names])

    def scratch(self, layout: Layout, manifest: dict) -> "Engine":
        """An empty store in ``layout`` (graph schema, L1 tables, core relations) sharing this engine's model:
        where a rebuild builds the new layers before swapping them in."""
        builder = Engine(layout, self.config, manifest)
        builder._embedder = self.embedder()
        for folder in (layout.graph_dir, layout.vectors_dir):
            folder.mkdir(parents=True, exist_ok=True)
        with builder.step() as graph:
            graph.create_schema()
        builder._init_vectors()
        return builder

    def close_layers(self) -> None:
        """Forget the L1 connection and resident index, before their folder is replaced (nothing may hold L2)."""
        if self._holders:
            raise AlayaError("store_busy", "the graph is in use in this process; the layers cannot be replaced now",
                             RUNTIME)
        self._vectors = None
        self._card_index = None
        self._turn_windows = None
        self._turn_index = None

    def embedder(self):
        """The store's embedding provider, loaded once per engine and only when something is embedded."""
        if self._embedder is None:
            self._embedder = make_embedder(self.config["embedding"], cache_dir=self.layout.cache)
        return self._embedder

    def query_vectors(self) -> "QueryVectors":
        """The vectors of the concepts this engine's recalls asked lately (:mod:`.recall.query_vectors`)."""
        if self._query_vectors is None:
            from .recall.query_vectors import QueryVectors

            self._query_vectors = QueryVectors(self.embedder())
        return self._query_vectors

    @contextmanager
    def hold(self) -> Iterator[GraphStore]:
        """Own the store: the lock taken and the graph open until the outermost ``hold`` ends.

        A one-shot command holds it for one call; the owner server for its whole life. Re-entrant and
        shared by threads: the first holder opens, the last one out closes.
        """
        with self._holding:
            if self._holders == 0:
                self.lock.acquire()
                try:
                    self._graph_store = self._open_graph()
                except BaseException:
                    self.lock.release()
                    raise
            self._holders += 1
        try:
            yield self._graph_store
        finally:
            with self._holding:
                self._holders -= 1
                if self._holders == 0:
                    if self._resident is not None:
                        self._resident.close()
                        self._resident = None
                    for reader in self._readers.values():
                        reader.close()
                    self._readers.clear()
                    self._graph_store.close()
                    self._graph_store = None
                    self.lock.release()

    def fresh_graph(self) -> GraphStore:
        """The graph closed and opened again, between the steps of a job that holds the store alone (one hold, the
        lock kept): the database keeps every page a query read in its buffer pool until it closes, so one step's
        pages stayed the next one's memory (a million cards' nightly introspect: 583 MB of the pool after
        consolidate, 1,127 MB after forget). Where others hold the store too (the owner server), the same graph."""
        with self._holding:
            if self._holders == 1 and self._resident is None and not self._readers:
                self._graph_store.close()
                self._graph_store = self._open_graph()
            return self._graph_store

    def _open_graph(self) -> GraphStore:
        """The graph, with the columns an older Alaya did not have added (see ``add_missing_columns``)."""
        from .entities.read import read_card

        graph = GraphStore(self.layout.graph_db, self.manifest["graph_engine"], self.config["graph"]["buffer_pool_mb"])
        graph.read_entities_with(read_card)
        try:
            if graph.add_missing_tables():
                self._read_entities_of_every_card(graph)
            for column in graph.add_missing_columns():
                log.info("added the column %s to the graph of %s", column, self.layout.home)
                if column == "Session.share":
                    graph.set_share_marks(self.raw.share_marks())
            added = graph.add_missing_relations()
            if added:
                log.info("added the core relations %s to the graph of %s", ", ".join(added), self.layout.home)
                self.vectors().upsert_relations(
                    added, self.embedder().embed([relation_embedding_text(name) for name in added]), is_core=True,
                    examples=[[CORE_RELATIONS[name]] for name in added])
        except BaseException:
            graph.close()
            raise
        return graph

    def _read_entities_of_every_card(self, graph: GraphStore) -> None:
        """An older store just got the ``Entity`` table: its cards' entities, read from their text, as distill would
        have written them (a thousand cards a transaction)."""
        cards = graph.all_cards()
        for start in range(0, len(cards), 1000):
            with graph.transaction():
                graph.write_entities(cards[start:start + 1000])
        log.info("read the entities of %d cards of %s", len(cards), self.layout.home)

    def keep_resident(self, wait_seconds: float = 0.0) -> bool:
        """Keep a snapshot of the graph in memory, fresh after every write, and the windows' rows beside their
        vectors, while the store is held.

        For a long-lived holder (the owner server, a benchmark): recall then reads no database and takes no
        step lock. Call it while holding the store; ``wait_seconds`` waits for the first snapshot (True if
        it is there).
        """
        if self._resident is None:
            self._resident = ResidentGraph(self._graph_store, busy=lambda: self._jobs > 0)
        self.turn_index().keep_rows()
        return self._resident.wait_fresh(wait_seconds) if wait_seconds else self.graph_snapshot_fresh()

    @contextmanager
    def job(self) -> Iterator[None]:
        """A write job runs (the owner server wraps every write request in it): the resident graph snapshot is not
        read again until no job runs, since each of the job's writes would leave that read stale."""
        with self._mutex:
            self._jobs += 1
        try:
            yield
        finally:
            with self._mutex:
                self._jobs -= 1

    def graph_snapshot_fresh(self) -> bool:
        """Whether recall reads the resident snapshot now (no write since it was read) rather than the database."""
        return self._fresh_snapshot() is not None

    def _fresh_snapshot(self) -> "GraphSnapshot | None":
        resident = self._resident
        return resident.current() if resident is not None else None

    @contextmanager
    def _graph_view(self) -> Iterator["GraphReader"]:
        """What recall reads: the resident snapshot while it is fresh (memory: no step lock needed); else the
        database as :meth:`_database_view` reads it, and while another thread's step writes, the snapshot it has
        for the edges and entities of the cards it holds (:class:`~.graph.stale_view.StaleView`)."""
        with self.hold():
            snapshot = self._fresh_snapshot()
            if snapshot is not None:
                yield snapshot
            else:
                with self._database_view() as graph:
                    behind = self._resident.snapshot if self._resident is not None else None
                    if behind is not None and graph is not self._graph_store:  # a step holds the graph
                        yield StaleView(behind, graph)
                    else:
                        yield graph

    @contextmanager
    def _database_view(self) -> Iterator[GraphStore]:
        """The graph database for a read that must not wait: the graph itself as one step when no step runs;
        while another thread's step runs (a long job on the owner server), this thread's own connection, so the
        read does not wait for that step to end."""
        with self.hold():
            if self._mutex.acquire(blocking=False):
                try:
                    yield self._graph_store
                finally:
                    self._mutex.release()
            else:
                yield self._thread_reader()

    def _thread_reader(self) -> GraphStore:
        """This thread's reading connection to the held graph, opened on first use, closed with the graph."""
        with self._holding:
            reader = self._readers.get(threading.get_ident())
            if reader is None:
                reader = self._readers[threading.get_ident()] = self._graph_store.reader()
            return reader

    @contextmanager
    def step(self) -> Iterator[GraphStore]:
        """One step of work on the graph: the store held, and this process's other threads kept out.

        Long jobs take this per step, so in the owner server recalls from other clients are answered
        between the steps of an ingest or a distillation.
        """
        with self.hold() as graph, self._mutex:
            yield graph

    def ingest(self, paths: list[str], replace: bool = False, stdin: bytes | None = None,
               progress: ProgressCallback | None = None) -> IngestReport:
        """Store sessions in L3 and create their Session nodes; refused inputs never stop the others."""
        from .raw.windows import session_windows
        from .vectors.turn_windows import INGEST_EMBED_BUDGET, INGEST_STEP

        sources, outcomes = expand_sources(paths, stdin)
        max_bytes = ingest_limit(self.config)
        budget, indexed = INGEST_EMBED_BUDGET, False
        window_counts: dict[str, int] | None = None
        with self.hold():
            for first in range(0, len(sources), INGEST_STEP):
                chunk = sources[first:first + INGEST_STEP]
                with self.step() as graph:
                    stored: list[tuple[str, Session]] = []
                    for source in chunk:
                        outcomes.append(self._ingest_one(graph, source, max_bytes, replace, stored))
                    indexing = []
                    for status, session in stored:
                        if status == "unchanged":
                            if window_counts is None:
                                window_counts = self.turn_windows().session_counts()
                            if window_counts.get(session.id, 0) == len(session_windows(session)):
                                continue
                        indexing.append((status, session))
                    if indexing:
                        budget, indexed = budget - self._index_turn_windows(indexing, budget), True
                if progress:
                    progress(first + len(chunk), len(sources))
            if indexed:
                with self.step():
                    self.turn_windows().refresh_full_text_index()
        return IngestReport(outcomes)

    def _index_turn_windows(self, stored: list[tuple[str, "Session"]], budget: int) -> int:
        """The sessions' windows, in the step that wrote them to L3 (a backup between steps sees both or
        neither), embedding at most ``budget`` of them. The caller skips an unchanged session whose windows are
        all there (only an ingest killed between L3 and L1 leaves them missing): one count of every session's
        windows per ingest, where a count per session cost 30 ms each. Returns how many were embedded."""
        store, embedded = self.turn_windows(), 0
        for replacing in (False, True):
            sessions = [session for status, session in stored if (status != "ingested") == replacing]
            if sessions:
                left = max(0, budget - embedded)
                embedded += min(left, store.index(sessions, self.embedder().embed, budget=left, refresh=False,
                                                  replacing=replacing))
        return embedded

    def _ingest_one(self, graph: GraphStore, source: SessionSource, max_bytes: int, replace: bool,
                    stored: list[tuple[str, "Session"]]) -> IngestOutcome:
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
            stored.append((status, session))
        except AlayaError as error:
            log.info("refused %s: %s", source.name, error.message)
            return IngestOutcome(source=source.name, status="refused",
                                 error={"code": error.code, "message": error.message})
        except OSError as error:
            if is_disk_full(error, self.layout.home):
                raise  # the next files would fail alike: stop, and say it once
            log.error("could not ingest %s: %s", source.name, error)
            return IngestOutcome(source=source.name, status="refused",
                                 error={"code": "io_error", "message": f"{error.strerror or error}"})
        except Exception as error:  # one file's surprise must not stop the others (L3 is written, re-run finishes)
            if is_disk_full(error, self.layout.home) or graph.write_failed:
                raise
            log.exception("unexpected failure ingesting %s", source.name)
            return IngestOutcome(source=source.name, status="refused", error={
                "code": "internal", "message": f"unexpected {type(error).__name__}: {error}; details are in the log"})
        log.info("%s %s from %s", status, session.id, source.name)
        return IngestOutcome(source=source.name, status=status, session_id=session.id, path=str(path),
                             turns=len(session.turns), tokens=session.tokens, duration_ms=session.duration_ms,
                             channel=session.channel)

    def distill(self, session_ids: list[str] | None = None, force: bool = False, dry_run: bool = False,
                progress: ProgressCallback | None = None,
                clock: "Callable[[Session], int] | None" = None) -> "DistillReport":
        """Distill the given sessions, or every session not yet distilled from its current content.

        With nothing to do it returns at once: building the pipeline loads every vector (4.5 s at 100k cards),
        which introspect and ``ingest --distill`` of unchanged sessions would otherwise pay for nothing.
        """
        from .distill.factory import make_distiller
        from .distill.pipeline import DistillPipeline, DistillReport
        from .raw.distilled import DistilledStore
        from .raw.journal import Journal

        with self.hold() as graph:
            with self.step():
                rows = graph.sessions_for_distill()
            if session_ids:
                known = {row[0]: row for row in rows}
                missing = [sid for sid in session_ids if sid not in known]
                if missing:
                    raise AlayaError("unknown_session", f"no session {missing[0]!r} in this store; "
                                                        "list sessions with: alaya status, or ingest it first")
                targets = [known[sid] for sid in dict.fromkeys(session_ids)]
            else:
                targets = [row for row in rows if force or row[2] != row[1]]
            distiller = make_distiller(self.config["distill"], self.layout.home, self.layout.cache)
            embedded = 0 if dry_run else self._embed_pending_windows(progress)
            if not targets:
                return DistillReport([], distiller=distiller.name, dry_run=dry_run, windows_embedded=embedded)
            pipeline = DistillPipeline(
                raw=self.raw,
                records=DistilledStore(self.layout.distilled, self.layout.contexts),
                graph=graph,
                vectors=self.vectors(),
                embedder=self.embedder(),
                distiller=distiller,
                similar_threshold=self.config["distill"]["similar_threshold"],
                step=self.step,
                journal=Journal(self.layout.journal),
                clock=clock,
            )
            report = pipeline.run(targets, force=force, dry_run=dry_run, progress=progress)
            report.windows_embedded = embedded
            return report

    def _embed_pending_windows(self, progress: ProgressCallback | None) -> int:
        """The windows an ingest left for later (beyond its embedding budget), one step per batch."""
        store = self.turn_windows()
        if not store.pending():
            return 0
        with self.step():
            return store.embed_pending(self.embedder().embed, progress)

    def vectors(self):
        """The L1 store, connected once per engine."""
        if self._vectors is None:
            from .vectors.store import VectorStore

            self._vectors = VectorStore(self.layout.vectors_dir, self.manifest["embedding"]["dimension"])
        return self._vectors

    def turn_windows(self):
        """The L1 table of raw-turn windows, connected once per engine."""
        if self._turn_windows is None:
            from .vectors.turn_windows import TurnWindowStore

            self._turn_windows = TurnWindowStore(self.layout.vectors_dir, self.manifest["embedding"]["dimension"])
        return self._turn_windows

    def turn_index(self):
        """The resident windows (reloaded only when the window table changes; in the background when large)."""
        from .recall.index import BACKGROUND_RELOAD_ROWS
        from .recall.turns import WindowIndex

        if self._turn_index is None:
            self._turn_index = WindowIndex(self.turn_windows(), BACKGROUND_RELOAD_ROWS, self._saved_loads())
        return self._turn_index

    def card_index(self):
        """The cards' vectors as recall holds them: HOT/WARM floats, COLD codes (reloaded only when L1 changes)."""
        from .recall.card_index import CardIndex
        from .recall.index import BACKGROUND_RELOAD_ROWS

        if self._card_index is None:
            self._card_index = CardIndex(self.vectors(), BACKGROUND_RELOAD_ROWS, self._saved_loads())
        return self._card_index

    def _saved_loads(self):
        from .recall.saved_loads import SavedLoads

        return SavedLoads(self.layout.cache / "resident")

    def save_resident(self) -> list[str]:
        """Save the resident loads of the tables whose load is current and not saved yet, for the next owner server
        to map instead of reading (:mod:`.recall.saved_loads`); returns what was saved."""
        indexes = {"cards": self._card_index, "windows": self._turn_index}
        return [name for name, index in indexes.items() if index is not None and index.save()]

    def recall(self, request: dict) -> "RecallResult":
        """Navigate memory: the same call behind ``alaya recall``, the TUI and the server.

        Concepts are embedded before the store lock is taken, so a cold model never holds up other processes;
        the full-text search of free text runs meanwhile on LanceDB's threads (see
        :mod:`alaya_engine.vectors.async_table`), and numpy's products on one BLAS thread
        (:mod:`alaya_engine.foundations.blas`).
        """
        from .foundations.blas import single_blas_thread

        with single_blas_thread():
            return self._recall(request)

    def _recall(self, request: dict) -> "RecallResult":
        from .recall.access import AccessLog
        from .recall.query import build_query
        from .recall.relation_space import RelationSpace
        from .recall.run import run_recall

        query = build_query(request, self.config["recall"])
        from .raw.windows import parse_window_id

        windows = [node for node in query.from_nodes if parse_window_id(node) is not None]
        if windows:
            raise AlayaError("bad_query", f"'{windows[0]}' is a window of raw turns, which has no relations to "
                                          "follow; navigate from a node whose kind is card")
        query.from_nodes = [self.resolve_card(card_id) for card_id in query.from_nodes]
        entity_cards = self._entity_cards(query.entity) if query.entity is not None else None
        full_text = None
        searching = bool(query.concepts) and not query.from_nodes and not query.entity_only
        if query.text and self.config["recall"]["hybrid"]:  # a hop's goal fuses its words into h as a search does
            full_text = self.vectors().start_full_text_search(query.text, query.top_k, during_job=self._jobs > 0)
        turns = self._turn_search(query.text or " ".join(query.concepts)) if searching and query.include_sessions \
            else None
        embedder = self.embedder()
        queries = self.query_vectors().of(query.concepts)
        index = self.card_index()
        index.refresh()
        names, relation_vectors = index.store.relation_vectors()
        in_scope = None
        if query.scope:
            from .foundations.scope import SharePolicy, parse_rule

            with self._database_view() as graph:  # a recall never waits for a step, scoped or not
                in_scope = graph.sessions_in_scope([parse_rule(rule, "scope", recall=True) for rule in query.scope],
                                                   SharePolicy(self.config["share"]))
        with self._graph_view() as graph:
            result = run_recall(query, queries, graph=graph, index=index,
                                space=RelationSpace(names, relation_vectors), embedder=embedder,
                                settings=self.config["recall"], full_text=full_text, turns=turns, in_scope=in_scope,
                                context_turns=self._context_turns, entity_cards=entity_cards)
        result.entities = self._entities_of([node.card_id for node in result.nodes if node.kind == "card"])
        AccessLog(self.layout.access_log).record(
            millis_now(), [(node.card_id, 1.0 - node.concept_distance) for node in result.nodes if node.kind == "card"])
        return result

    def _entity_cards(self, name: str) -> list[str]:
        """The cards that mention the entity ``name`` names; an unknown name is the caller's mistake."""
        with self._database_view() as graph:  # a recall never waits for a step
            entity = graph.find_entity(name)
            if entity is None:
                raise AlayaError("unknown_entity", f"no entity {name[:80]!r} in this store; entity names come from "
                                                   "a recall's entities or alaya trace CARD")
            return graph.entity_cards(entity["id"])

    def _entities_of(self, card_ids: list[str]) -> list[dict]:
        """The entities these cards mention, each with the cards (in the given order) that mention it; the most
        mentioned first, then by name."""
        if not card_ids:
            return []
        with self._graph_view() as graph:
            by_card = graph.card_entities(card_ids)
        found: dict[str, dict] = {}
        for card_id in card_ids:
            for entity in by_card.get(card_id, ()):
                found.setdefault(entity["id"], {"id": entity["id"], "name": entity["name"], "kind": entity["kind"],
                                                "cards": []})["cards"].append(card_id)
        return sorted(found.values(), key=lambda entity: (-len(entity["cards"]), entity["name"].casefold(),
                                                          entity["id"]))

    def _context_turns(self, card_id: str, session_id: str) -> set[int]:
        """The turns of ``session_id`` the card was distilled from (its context file in L3)."""
        from .recall.trace import read_context_of

        context = read_context_of(self.layout.contexts / f"{card_id}-context.json")
        if context.get("session_id") != session_id:
            return set()
        return {turn["index"] for turn in context.get("turns") or () if isinstance(turn.get("index"), int)}

    def _turn_search(self, text: str) -> "TurnSearch | None":
        """The window search of one recall, its full-text part started now (it runs beside the embedding)."""
        from .recall.turns import TurnSearch

        index = self.refreshed_turn_index()
        if index is None:
            return None
        words = text if self.config["recall"]["hybrid"] else None
        return TurnSearch.start(index, self.raw, words, self.config["recall"]["vector_top_k"],
                                during_job=self._jobs > 0)

    def refreshed_turn_index(self):
        """The resident windows, reloaded if their table changed; None while the store has no window table."""
        if not self.turn_windows().exists():
            return None
        index = self.turn_index()
        index.refresh()
        return index

    def introspect(self, steps: list[str] | None = None, dry_run: bool = False,
                   progress: ProgressCallback | None = None, now: int | None = None) -> dict:
        """In order: distill new sessions, consolidate (into the review queue), cool down, forget."""
        from .introspect.run import merge_confirmation, run_introspect

        return run_introspect(self, lambda: self.distill(dry_run=dry_run, progress=progress).to_json(),
                              merge_confirmation(self, self._merge_cards, self.resolve_card),
                              steps, dry_run, now or millis_now())

    def _merge_cards(self, first: str, second: str, text: "MergedText | None" = None) -> dict:
        from .introspect.review import merge_cards

        return merge_cards(self, first, second, text)

    def resolve_card(self, card_id: str) -> str:
        """A merged-away id stands for the card that absorbed it."""
        from .introspect.apply import Aliases

        return Aliases(self.layout.aliases).resolve(card_id)

    def review_list(self, status: str | None = None) -> dict:
        from .introspect.review import review_list

        return review_list(self, status)

    def review_show(self, suggestion_id: str) -> dict:
        from .introspect.review import review_show

        return review_show(self, suggestion_id)

    def review_decide(self, suggestion_ids: list[str], approve: bool) -> dict:
        from .introspect.review import review_decide

        return review_decide(self, suggestion_ids, approve)

    def review_undo(self, suggestion_id: str | None = None) -> dict:
        from .introspect.review import review_undo

        return review_undo(self, suggestion_id)

    def restore(self, card_id: str) -> dict:
        """Bring back a card that introspect forgot (it stays recorded in the L3 journal)."""
        from .introspect.forget import restore
        from .raw.journal import Journal

        with self.step() as graph:
            return restore(card_id=card_id, vectors=self.vectors(), graph=graph, journal=Journal(self.layout.journal),
                           embedder=self.embedder(), now=millis_now())

    def schema_relations(self) -> "RelationsReport":
        from .graph.schema_info import relations_report

        with self.step() as graph:
            links, promoted = graph.counts()["links_by_relation"], graph.promoted_relations()
        return relations_report(links, [name for name in self.vectors().relation_names() if not is_core(name)],
                                promoted)

    def schema_node_types(self) -> "NodeTypesReport":
        from .graph.schema_info import NodeTypesReport

        with self.step() as graph:
            counts = graph.counts()
            entities = graph.entity_counts()
        return NodeTypesReport(cards_by_type=counts["cards_by_type"], sessions=counts["sessions"],
                               entities_by_kind=entities["by_kind"], mentions=entities["mentions"])

    def card(self, card_id: str) -> dict:
        """One card with its edges in both directions (what the explorer's card screen shows); a window of raw
        turns is shown the same way, with no edges."""
        from .raw.windows import parse_window_id

        if parse_window_id(card_id) is not None:
            return {"card": self._window(card_id)[0], "outgoing": [], "incoming": []}
        card_id = self.resolve_card(card_id)
        with self.step() as graph:
            card = graph.cards([card_id]).get(card_id)
            if card is None:
                raise AlayaError("unknown_card", f"no card '{card_id}' in this store; card ids come from recall")
            edges = graph.edges_of(card_id)
        meta = self.vectors().heat_row(card_id) or {}
        return {"card": {**card_document(card), "access_count": meta.get("access_count", 0)}, **edges}

    def trace(self, card_id: str) -> "TraceReport":
        """A card, its source sessions and the turns it came from."""
        from .raw.windows import parse_window_id
        from .recall.trace import TraceReport, read_context

        if parse_window_id(card_id) is not None:
            card, sessions, turns = self._window(card_id)
            return TraceReport(card=card, sessions=sessions, context_turns=turns)
        card_id = self.resolve_card(card_id)
        with self.step() as graph:
            card = graph.cards([card_id]).get(card_id)
            if card is None:
                raise AlayaError("unknown_card", f"no card '{card_id}' in this store; card ids come from recall")
            sessions = graph.sessions(list(card["source_sessions"] or []))
            entities = graph.card_entities([card_id]).get(card_id, [])
        self._name_places(sessions)
        card = card_document(card)
        context = read_context(self.layout.contexts / f"{card_id}-context.json")
        origin = None
        if card["source"] == "memex":
            from .memex.importer import source_file
            from .raw.journal import Journal

            origin = source_file(Journal(self.layout.journal), card_id)
        return TraceReport(card=card, sessions=sessions, context_turns=context, source_file=origin, entities=entities)

    def entity(self, name: str) -> dict:
        """An entity by one of its names (any case or spacing, or an alias a text declared), with the cards that
        mention it, newest first."""
        with self._database_view() as graph:
            entity = graph.find_entity(name) if isinstance(name, str) and name.strip() else None
            if entity is None:
                raise AlayaError("unknown_entity", f"no entity {str(name)[:80]!r} in this store; entity names come "
                                                   "from alaya trace CARD or a recall's entities")
            card_ids = graph.entity_cards(entity["id"])
            cards = graph.cards(card_ids, content=False)
        listed = sorted(cards.values(), key=lambda card: (card["updated_at"], card["id"]), reverse=True)
        return {"entity": entity, "cards": [{"card_id": card["id"], "title": card["title"], "type": card["type"],
                                             "tier": card["tier"]} for card in listed]}

    def _window(self, window_id: str) -> tuple[dict, list[dict], list[dict]]:
        """A window of raw turns read from L3, shaped like a card (card screen, trace): the card document, its
        session and its turns."""
        from .raw.windows import parse_window_id, window_at, window_heading

        session_id, first, last = parse_window_id(window_id)
        with self.step() as graph:
            sessions = graph.sessions([session_id])
        path = self.raw.find(session_id) if sessions else None
        if path is None:
            raise AlayaError("unknown_card", f"no session '{session_id}' in this store for window '{window_id}'; "
                                             "window ids come from recall")
        session = self.raw.read(path)
        if last >= len(session.turns) or first > last:
            raise AlayaError("unknown_card", f"session '{session_id}' has {len(session.turns)} turns; window "
                                             f"'{window_id}' is not one of its windows (ingested again since?)")
        turns = [{"index": index, **session.turns[index].to_json()} for index in range(first, last + 1)]
        window = window_at(session, first, last)
        when = datetime.fromtimestamp(window.time / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")
        self._name_places(sessions)
        card = {"id": window_id, "kind": "session_turns", "type": "session_turns", "tier": "RAW",
                "title": window_heading(window), "content": window.text, "tags": [], "source": "session",
                "source_sessions": [session_id],
                "created_at": when, "updated_at": when, "access_count": 0, "temperature": None, "importance": None}
        return card, sessions, turns

    def _name_places(self, sessions: list[dict]) -> None:
        """Each traced session's full path, and the machine it came from (another machine's, when pulled)."""
        from .sync.tree import session_machine

        for session in sessions:
            session["path"] = str(self.layout.home / session["path"])
            session["machine"] = session_machine(Path(session["path"]), self.layout.home)

    def link(self, source: str, target: str, relation: str | None = "RELATES_TO", reason: str = "",
             weight: float = 1.0, new_relation: bool = False) -> LinkReport:
        """A manual edge: journaled in L3 first, both directions for symmetric relations. A relation the store does
        not know yet is created only with ``new_relation``. Linking a pair that is already linked (by distill, say)
        is reported as such (``created`` false) and still recorded, so the edge is the user's from then on: a
        redistillation keeps it. ``relation`` None (the command line without ``--rel``) is refused once the cards
        and weight are checked, so the person learns everything wrong at once but never gets a relation they did
        not choose."""
        from .raw.journal import Journal

        if relation is None:
            source, target = self.resolve_card(source), self.resolve_card(target)
            self._check_link_ends(source, target, weight)
            raise AlayaError("missing_relation", "say which relation links them: --rel NAME, e.g. --rel CAUSED_BY "
                                                 "or --rel DEPENDS_ON (alaya schema --relations lists them all)")
        name = normalise_relation(relation)
        source, target = self.resolve_card(source), self.resolve_card(target)
        if name == "EXTRACTED_FROM":
            raise AlayaError("bad_relation", "EXTRACTED_FROM links a card to its session and is made by distill only")
        if source == target:
            raise AlayaError("self_link", f"cannot link card {source} to itself")
        if not 0.0 <= weight <= 1.0:
            raise AlayaError("bad_weight", f"weight must be between 0 and 1, got {weight}")
        known_relations = set(self.vectors().relation_names())
        if not new_relation:
            check_new_relation(name, known_relations)
        embedder = self.embedder() if not is_core(name) else None
        with self.step() as graph:
            known = graph.cards([source, target])
            for card_id in (source, target):
                if card_id not in known:
                    raise AlayaError("unknown_card", f"no card '{card_id}' in this store; card ids come from recall")
            links = directed(Link(source, target, name, weight, reason, millis_now()))
            existed = any(edge["relation"] == name and edge["card_id"] == target
                          for edge in graph.edges_of(source)["outgoing"])
            Journal(self.layout.journal).append("link.add", links[0].created_at,
                                                links=[link.to_json() for link in links])
            for item in links:
                graph.merge_link(item)
        if embedder is not None and name not in known_relations:
            self.vectors().upsert_relations([name], embedder.embed([relation_embedding_text(name, reason)]),
                                            is_core=False, examples=[[reason] if reason else []])
        return LinkReport(links, created=not existed, new_relation=name not in known_relations and not is_core(name))

    def unlink(self, source: str, target: str, relation: str) -> UnlinkReport:
        """Remove an edge by hand, with its other direction (a symmetric relation's, or the inverse a ``SUPERSEDES``
        or ``CAUSES`` edge is stored with): journaled in L3 first, so a rebuild removes it again. This is how a
        person takes back what introspect linked wrongly, a card it took as replacing another above all (the
        older card is current again). Introspect does not compare the pair again: it compares each card with the
        ones before it once. ``removed`` is false and nothing is written when the cards were not linked so."""
        from .raw.journal import Journal

        name = normalise_relation(relation)
        source, target = self.resolve_card(source), self.resolve_card(target)
        if name == "EXTRACTED_FROM":
            raise AlayaError("bad_relation", "EXTRACTED_FROM links a card to its session; it goes with the card")
        self._check_link_ends(source, target, 1.0)
        links = directed(Link(source, target, name, 1.0, "", millis_now()))
        with self.step() as graph:
            edges = graph.edges_of_many([source, target])
            outgoing = {(card_id, edge["relation"], edge["card_id"]) for card_id in (source, target)
                        for edge in edges[card_id]["outgoing"]}
            if not any((link.source, link.relation, link.target) in outgoing for link in links):
                return UnlinkReport(links, removed=False)
            Journal(self.layout.journal).append("link.remove", links[0].created_at,
                                                links=[link.to_json() for link in links])
            for item in links:
                graph.delete_link(item)
        return UnlinkReport(links, removed=True)

    def _check_link_ends(self, source: str, target: str, weight: float) -> None:
        if source == target:
            raise AlayaError("self_link", f"cannot link card {source} to itself")
        if not 0.0 <= weight <= 1.0:
            raise AlayaError("bad_weight", f"weight must be between 0 and 1, got {weight}")
        with self.step() as graph:
            known = graph.cards([source, target])
        for card_id in (source, target):
            if card_id not in known:
                raise AlayaError("unknown_card", f"no card '{card_id}' in this store; card ids come from recall")

    def rebuild(self, layers: set[str], progress: ProgressCallback | None = None) -> "RebuildReport":
        """Regenerate L2 and/or L1 from L3 (see ``maintenance/rebuild.py``); open with ``for_rebuild=True``."""
        from .maintenance.rebuild import LAYERS, rebuild

        unknown = sorted(set(layers) - set(LAYERS))
        if unknown or not layers:
            raise AlayaError("bad_layer", f"unknown layer {unknown[0] if unknown else '(none)'}; choose from l1, l2")
        return rebuild(self, set(layers), progress)

    @classmethod
    def restore_backup(cls, archive: Path, home: str | os.PathLike | None, force: bool) -> "RestoreReport":
        """Unpack a backup into ``home`` (see :func:`~.maintenance.backup.restore_backup`), then verify it."""
        from .maintenance.backup import restore_backup

        report = restore_backup(archive, Layout(resolve_home(home)).home, force)
        report.verify = cls.open(report.home).verify().to_json()
        return report

    def backup(self, out: str | None = None) -> "BackupReport":
        """A consistent ``.tar.gz`` of the store, taken in one step while other clients go on."""
        from .maintenance.backup import backup

        with self.hold():
            return backup(self, Path(out).expanduser() if out else None)

    def verify(self) -> "VerifyReport":
        """Do the three layers agree? Every problem with its kind, ids and repair."""
        from .maintenance.verify import verify

        with self.hold():
            return verify(self)

    def session_cards(self, session_id: str) -> list[dict]:
        """The cards distilled from a session: what the explorer shows beside its transcript."""
        with self.step() as graph:
            return graph.session_cards(session_id)

    def overview(self) -> dict:
        """The newest sessions, the HOT cards and the pending review count (the explorer's home screen)."""
        from .maintenance.overview import store_overview

        return store_overview(self)

    def neighbourhood(self, card_id: str, hops: int, limit: int) -> dict:
        """The cards one and two hops from a card and the edges between them (the explorer's picture of it)."""
        from .graph.neighbourhood import neighbourhood

        card_id = self.resolve_card(card_id)
        with self.step() as graph:
            return neighbourhood(graph, card_id, hops, limit)

    def timeline(self, by: str, sessions: int) -> dict:
        """Sessions by day or week with the cards they gave, newest first."""
        from .maintenance.timeline import store_timeline

        return store_timeline(self, by, sessions)

    def browse(self, params: dict) -> dict:
        """The cards of a tier, temperature band or type, or a relation's edges."""
        from .maintenance.browse import browse

        return browse(self, params)

    def card_heat(self, card_id: str, days: int) -> dict:
        """A card's temperature day by day, replayed from the access log up to the last introspect."""
        from .introspect.heat_history import heat_history
        from .maintenance.status import last_introspect_millis

        card_id = self.resolve_card(card_id)
        with self.step() as graph:
            card = graph.cards([card_id]).get(card_id)
        if card is None:
            raise AlayaError("unknown_card", f"no card '{card_id}' in this store; card ids come from recall")
        created = int(card["created_at"].replace(tzinfo=timezone.utc).timestamp() * 1000)
        as_of = last_introspect_millis(self.layout.last_introspect) or millis_now()
        return heat_history(self.layout.access_log, card_id, created, max(as_of, created), self.config["temperature"],
                            days)

    def status(self) -> "StatusReport":
        """Counts per layer and sizes on disk."""
        from .maintenance.status import store_status

        return store_status(self)


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
