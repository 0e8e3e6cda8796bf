"""GraphStore: the L2 schema and the queries the engine needs.

Traps this class is shaped around (measured with LadybugDB 0.22): exactly one
``Database`` per file per process (two silently lose writes), relation types
cannot be query parameters (so table names come from a whitelist: the core
relations, ``CUSTOM``, and the promoted relations the catalog lists, whose
names were checked by ``relations.check_promotable`` and are quoted anyway),
MERGE on the key then SET, and timestamps stored as naive UTC.
"""

from __future__ import annotations

import atexit
import copy
import logging
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..foundations.domain import CARD_TYPES, Card, Fact, Link, Session
from ..foundations.entities import ENTITY_KINDS, entity_id, entity_key
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.relations import (
    CARD_TO_SESSION,
    CORE_RELATIONS,
    CUSTOM_TABLE,
    MENTIONS_TABLE,
    check_promotable,
    is_core,
)
from ..foundations.scope import SHARED, SharePolicy, matches, share_mark
from .engines import load_engine
from .entities import ENTITY_DDL, MENTIONS_DDL, EntityReader, EntityWriter

TEMPERATURE_BANDS = ((0.9, 1.0), (0.7, 0.9), (0.5, 0.7), (0.3, 0.5), (0.0, 0.3))

_FACTS_TYPE = "STRUCT(subject STRING, attribute STRING, value STRING, valid_from TIMESTAMP)[]"
_NODE_TABLES = (
    "CREATE NODE TABLE IF NOT EXISTS Card(id STRING, title STRING, content STRING, type STRING, "
    "created_at TIMESTAMP, updated_at TIMESTAMP, source_sessions STRING[], tags STRING[], "
    f"temperature DOUBLE, tier STRING, importance DOUBLE, source STRING, facts {_FACTS_TYPE}, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS Session(id STRING, timestamp TIMESTAMP, channel STRING, agent STRING, "
    "summary STRING, turns INT64, tokens INT64, content_hash STRING, path STRING, "
    "distilled_hash STRING, distilled_at TIMESTAMP, share STRING, PRIMARY KEY(id))",
    ENTITY_DDL,
)
_ADDED_COLUMNS = {"Card": {"facts": f"{_FACTS_TYPE} DEFAULT []"}, "Session": {"share": "STRING"}}
"""Columns newer than the first store format: a store made before them gets them when it is opened."""
_EDGE_PROPERTIES = "weight DOUBLE, created_at TIMESTAMP, reason STRING"
CARD_FIELDS = ("id", "title", "content", "type", "tags", "tier", "source", "temperature", "source_sessions",
               "importance", "created_at", "updated_at", "facts")
"""What :meth:`GraphStore.cards` returns for a card, in this order (and what the snapshot and export read)."""
FIELDS_BUT_CONTENT = tuple(name for name in CARD_FIELDS if name != "content")
"""What a resident snapshot holds of a card: its content is most of a card's bytes and is read only for the few
cards a recall returns."""

ARROW_CHUNK_ROWS = 5_000
"""Rows per chunk of a query result read as arrow. The binding holds the interpreter lock while it converts a
chunk: at 100k rows a chunk of the snapshot's card fields held it 170-330 ms, and every recall beside the read
waited; at 5k rows, 11 ms at most, and the read is no slower."""
HEAT_BATCH = 20_000
"""Rows per ``set_heat`` query: measured at 100k cards, 2k-row batches took 1.0 s, 20k 0.64 s, one of 100k 1.1 s."""

_OPEN_PATHS: set[Path] = set()
_WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|DROP|ALTER|COPY|COMMIT|ROLLBACK)\b", re.IGNORECASE)
"""A statement naming one of these may change the graph (a read that merely mentions one only costs a snapshot)."""
log = logging.getLogger(__name__)


def _per_generation(method):
    """Remember what ``method`` returned until the graph's next write: the counts ``status`` and ``schema`` read
    (~20 queries, 7 ms at 10k cards) are asked again and again of a store that has not changed. Exact, because
    every write through this connection moves :attr:`GraphStore.generation` on and no other connection writes a
    held store; a reader's connection (:meth:`GraphStore.reader`) asks the database every time. Callers get a copy
    to change as they like."""
    import functools

    @functools.wraps(method)
    def remembered(self, *args):
        if self._is_reader:
            return method(self, *args)
        if self._remembered.get(None) != self.generation:
            self._remembered.clear()
            self._remembered[None] = self.generation
        key = (method.__name__, *args)
        if key not in self._remembered:
            self._remembered[key] = method(self, *args)
        return copy.deepcopy(self._remembered[key])

    return remembered


def naive_utc(moment: datetime) -> datetime:
    """The graph stores naive timestamps; ours are always UTC."""
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def to_millis(naive: datetime) -> int:
    """The inverse of :func:`from_millis`: a naive UTC timestamp from the graph back to epoch milliseconds."""
    return int(naive.replace(tzinfo=timezone.utc).timestamp() * 1000)


def from_millis(millis: int) -> datetime:
    return naive_utc(datetime.fromtimestamp(millis / 1000, tz=timezone.utc))


def facts_from_graph(rows: list[dict[str, Any]] | None) -> list[Fact]:
    """A card's ``facts`` column (structs with a naive UTC ``valid_from``) as domain facts."""
    return [Fact(row["subject"], row["attribute"], row["value"], to_millis(row["valid_from"])) for row in rows or ()]


def card_document(card: dict[str, Any]) -> dict[str, Any]:
    """A card as :meth:`GraphStore.cards` returns it, made JSON: times as ISO 8601 UTC, facts as documents."""
    return {**card, "created_at": card["created_at"].isoformat() + "Z", "updated_at": card["updated_at"].isoformat()
            + "Z", "facts": [fact.to_json() for fact in facts_from_graph(card.get("facts"))]}


def _card_row(card: Card) -> dict[str, Any]:
    """A card's columns as :meth:`GraphStore.upsert_cards` sets them (``facts`` None when it states none)."""
    return {"id": card.id, "title": card.title, "content": card.content, "type": card.type,
            "created_at": from_millis(card.created_at), "updated_at": from_millis(card.updated_at),
            "sessions": card.source_sessions, "tags": card.tags, "temperature": card.temperature, "tier": card.tier,
            "importance": card.importance, "source": card.source,
            "facts": _facts_to_graph(card.facts) if card.facts else None}


def _facts_to_graph(facts: list[Fact]) -> list[dict[str, Any]]:
    return [{"subject": fact.subject, "attribute": fact.attribute, "value": fact.value,
             "valid_from": from_millis(fact.valid_from)} for fact in facts]


_EDGE_SET = "SET r.weight = {0}weight, r.reason = {0}reason, r.created_at = {0}created_at"
"""An edge's properties set from the parameters (``$``) or the ``UNWIND`` row (``row.``) of their own names."""


_WRITE_FAILED: set[Path] = set()
"""Databases of this process whose write failed. They are never closed: closing checkpoints, and when that write
fails too LadybugDB aborts the process (a C++ ``terminate``) instead of raising."""
_ABANDONED: list = []


def _abandon(*handles: Any) -> None:
    """Keep a failed database's handles alive, and end the process before the interpreter would destroy them
    (their destructor closes the database, which aborts): the store is left as a kill leaves it, which replay and
    verify handle. Registered last, the exit runs first among the exit handlers."""
    if not _ABANDONED:
        atexit.register(_exit_without_closing)
    _ABANDONED.append(handles)


def _exit_without_closing() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(RUNTIME)


class GraphStore:
    """One open graph database; refuses a second opener of the same file in this process."""

    def __init__(self, path: Path, engine: str, buffer_pool_mb: int | None = None):
        """``buffer_pool_mb`` caps the engine's page cache and query memory (``graph.buffer_pool_mb``); None
        leaves the engine's default, 80% of physical memory."""
        self.path = path.resolve()
        self.engine_name = engine
        self.buffer_pool_mb = buffer_pool_mb
        if self.path in _OPEN_PATHS:
            raise AlayaError("graph_already_open", f"graph database {self.path} is already open in this process",
                             RUNTIME)
        module = load_engine(engine)
        options = {} if buffer_pool_mb is None else {"buffer_pool_size": buffer_pool_mb * 1024 * 1024}
        try:
            self._db = module.Database(str(self.path), **options)
        except RuntimeError as exc:
            damaged = "corrupt" in str(exc) or "Storage exception" in str(exc)
            raise AlayaError("graph_unavailable", f"cannot open graph database {self.path}: {exc}"
                                                  f"{'; it is damaged: run alaya rebuild --l2' if damaged else ''}",
                             RUNTIME) from None
        self._conn = module.Connection(self._db)
        self._module = module
        self._promoted: frozenset[str] | None = None
        self._is_reader = False
        self._entities: EntityWriter | None = None
        self._unread: dict[str, Card] = {}
        """Cards written in the open transaction whose entities are written when it commits, all at once (a
        distillation writes a few sessions' cards per transaction: one set of entity queries instead of one a card)."""
        self._in_transaction = False
        self._remembered: dict = {}
        """:func:`_per_generation`'s results, under the key None the generation they were read at."""
        self.generation = 0
        """Counts statements that may have written, each counted once it has finished: a reader that saw
        generation G before it started read everything those G statements wrote (see :mod:`.resident`)."""
        _OPEN_PATHS.add(self.path)

    @property
    def write_failed(self) -> bool:
        return self.path in _WRITE_FAILED

    def close(self) -> None:
        if self.write_failed:
            _abandon(self._db, self._conn)
            if not self._is_reader:
                _OPEN_PATHS.discard(self.path)
            return
        if self._is_reader:
            self._conn.close()
            return
        if self.path in _OPEN_PATHS:
            self._conn.close()
            self._db.close()
            _OPEN_PATHS.discard(self.path)

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> list[list[Any]]:
        result = self._execute(cypher, parameters)
        rows = []
        while result.has_next():
            rows.append(result.get_next())
        return rows

    def connect(self, threads: int = 0):
        """A connection of its own to this database, for a reader on another thread (a snapshot builder); its
        queries run on ``threads`` threads (0: the database's default, every core)."""
        return self._module.Connection(self._db, threads)

    def reader(self) -> "GraphStore":
        """This database seen through a connection of its own, with every read method of this class.

        For one thread's reads while another thread's step writes: LadybugDB runs a read beside a write
        transaction and shows it the last committed state. Close it before this store closes; closing it
        closes its connection only.
        """
        view = copy.copy(self)
        view._conn = self.connect()
        view._is_reader = True
        return view

    def card_count(self) -> int:
        return self.query("MATCH (c:Card) RETURN count(c)")[0][0]

    def query_arrow(self, cypher: str, parameters: dict[str, Any] | None = None):
        """The result as one ``pyarrow.Table``: for results of 100k+ rows, a few MB where lists of lists take 100+."""
        return self._execute(cypher, parameters).get_as_arrow(ARROW_CHUNK_ROWS)

    def _execute(self, cypher: str, parameters: dict[str, Any] | None):
        """Run a query; a full buffer pool (the engine holds a query's whole result there) says which key to raise.
        After a failed write (a full disk) the database takes no more queries: they would fail or wait."""
        if self.write_failed:
            raise AlayaError("graph_write_failed", f"the graph database {self.path} failed to write earlier in this "
                                                   "process (a full disk?) and must be reopened: free space and run "
                                                   "alaya server restart", RUNTIME)
        try:
            return self._conn.execute(cypher, parameters or {})
        except RuntimeError as exc:
            if "IO exception" in str(exc):
                _WRITE_FAILED.add(self.path)
            if "buffer pool is full" not in str(exc):
                raise
            raise AlayaError("graph_memory_full", f"the graph database ran out of memory for a query (buffer pool of "
                                                  f"{self.buffer_pool_mb or 'default'} MB); raise graph.buffer_pool_mb "
                                                  "in config.json", RUNTIME) from None
        finally:
            if _WRITES.search(cypher):
                self.generation += 1

    def create_schema(self) -> None:
        for statement in _NODE_TABLES:
            self.query(statement)
        for relation in CORE_RELATIONS:
            target = "Session" if relation in CARD_TO_SESSION else "Card"
            self.query(f"CREATE REL TABLE IF NOT EXISTS {relation}(FROM Card TO {target}, {_EDGE_PROPERTIES})")
        self.query(f"CREATE REL TABLE IF NOT EXISTS {CUSTOM_TABLE}(FROM Card TO Card, type STRING, {_EDGE_PROPERTIES})")
        self.query(MENTIONS_DDL)

    def add_missing_tables(self) -> list[str]:
        """Give a store made by an older Alaya the ``Entity`` table and ``MENTIONS`` (their contents are the
        engine's to fill, from the cards); returns the tables added."""
        tables = {name for (name,) in self.query("CALL show_tables() RETURN name")}
        if "Card" not in tables:
            return []
        added = []
        for name, statement in (("Entity", ENTITY_DDL), (MENTIONS_TABLE, MENTIONS_DDL)):
            if name not in tables:
                self.query(statement)
                added.append(name)
        return added

    def read_entities_with(self, reader: EntityReader | None) -> None:
        """From now on, every card written gets the ``MENTIONS`` ``reader`` finds in it (see :mod:`.entities`)."""
        self._entities = EntityWriter(self, reader) if reader is not None else None

    @property
    def entity_writer(self) -> EntityWriter | None:
        return self._entities

    def write_entities(self, cards: list[Card]) -> None:
        """(Re)write these cards' ``MENTIONS``: for cards written before a reader was set (an upgraded store)."""
        if self._entities is not None:
            self._entities.write(cards)

    def _write_unread_entities(self) -> None:
        """The entities of the cards this transaction wrote so far: before anything reads or deletes entities."""
        if self._unread and self._entities is not None and not self._is_reader:
            cards, self._unread = list(self._unread.values()), {}
            self._entities.write(cards)

    def add_missing_columns(self) -> list[str]:
        """Give a store made by an older Alaya the columns added since (empty by default); returns them as
        ``Table.column``. Rebuilding is not needed: an older store's cards simply state no facts until re-distilled,
        and its sessions' share marks are filled in by the engine from L3 (``Session.share``)."""
        if "Card" not in {name for (name,) in self.query("CALL show_tables() RETURN name")}:
            return []  # a store being initialised: create_schema makes the table whole
        added = []
        for table, columns in _ADDED_COLUMNS.items():
            present = {name for (name,) in self.query(f"CALL table_info('{table}') RETURN name")}
            for name in columns.keys() - present:
                self.query(f"ALTER TABLE {table} ADD {name} {columns[name]}")
                added.append(f"{table}.{name}")
        return sorted(added)

    def add_missing_relations(self) -> list[str]:
        """Give a store made by an older Alaya the rel tables of core relations added since; returns their names
        (their vectors are the engine's to add)."""
        tables = {name for (name,) in self.query("CALL show_tables() RETURN name")}
        if "Card" not in tables:
            return []
        missing = [relation for relation in CORE_RELATIONS if relation not in tables]
        for relation in missing:
            target = "Session" if relation in CARD_TO_SESSION else "Card"
            self.query(f"CREATE REL TABLE IF NOT EXISTS {relation}(FROM Card TO {target}, {_EDGE_PROPERTIES})")
        return missing

    def promoted_relations(self) -> frozenset[str]:
        """Relations promoted to a rel table of their own: every rel table that is neither core nor ``CUSTOM``.

        The catalog is the truth for L2 (a rebuild creates the tables the journal's ``relation.promote`` events
        name), read once per opening and again after a promotion.
        """
        if self._promoted is None:
            self._promoted = frozenset(name for name, kind in self.query("CALL show_tables() RETURN name, type")
                                       if kind == "REL" and name not in CORE_RELATIONS
                                       and name not in (CUSTOM_TABLE, MENTIONS_TABLE))
        return self._promoted

    def rel_table(self, relation: str) -> str:
        """The rel table holding edges of ``relation``: its own if core or promoted, else ``CUSTOM``."""
        return relation if is_core(relation) or relation in self.promoted_relations() else CUSTOM_TABLE

    def check_promotable(self, name: str) -> None:
        """:func:`relations.check_promotable`, plus: no other table of the catalog has that name (any case)."""
        check_promotable(name)
        taken = {table.upper() for (table,) in self.query("CALL show_tables() RETURN name")}
        if name.upper() in taken and name not in self.promoted_relations():
            raise AlayaError("bad_relation", f"relation {name!r} cannot become a table: a table of that name exists")

    def create_relation_table(self, name: str) -> None:
        """The rel table of a promoted relation, with the core tables' properties (no-op if it exists)."""
        self.check_promotable(name)
        self.query(f"CREATE REL TABLE IF NOT EXISTS `{name}`(FROM Card TO Card, {_EDGE_PROPERTIES})")
        self._promoted = None

    def promote_relation(self, name: str) -> int:
        """Give a custom relation its own rel table and move its ``CUSTOM`` edges there, in one transaction.

        Returns how many edges moved. Promoting a promoted relation again moves whatever ``CUSTOM`` edges of
        that name there are (none, normally), so a run killed after the commit can simply be repeated.
        """
        self.check_promotable(name)
        with self.transaction():
            self.create_relation_table(name)
            moved = self.query(
                f"MATCH (a:Card)-[r:{CUSTOM_TABLE} {{type: $name}}]->(b:Card) "
                f"CREATE (a)-[:`{name}` {{weight: r.weight, created_at: r.created_at, reason: r.reason}}]->(b) "
                "RETURN count(*)", {"name": name})[0][0]
            self.query(f"MATCH (:Card)-[r:{CUSTOM_TABLE} {{type: $name}}]->(:Card) DELETE r", {"name": name})
        return moved

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Statements that commit together, or not at all. Also faster: a statement outside a transaction pays a
        commit of its own (the 30 writes of a distilled session took 4× as long so)."""
        self.query("BEGIN TRANSACTION")
        self._in_transaction = True
        try:
            yield
            self._write_unread_entities()
        except BaseException:
            self._in_transaction, self._unread = False, {}
            if not self.write_failed:  # a failed database takes no ROLLBACK either; the error says why
                self.rollback()
            raise
        self._in_transaction = False
        self.query("COMMIT")

    def rollback(self) -> None:
        """End a failed transaction; the database may have ended it already, so a failing ROLLBACK is only logged."""
        self._promoted = None
        if self._entities is not None:
            self._entities.reset()
        try:
            self.query("ROLLBACK")
        except RuntimeError as exc:  # keep the original error, not the rollback's
            log.warning("rollback after a failed transaction: %s", exc)

    def upsert_session(self, session: Session, content_hash: str, path: str) -> None:
        self.query(
            "MERGE (s:Session {id: $id}) SET s.timestamp = $timestamp, s.channel = $channel, s.agent = $agent, "
            "s.summary = $summary, s.turns = $turns, s.tokens = $tokens, s.content_hash = $hash, s.path = $path, "
            "s.share = $share",
            {
                "share": share_mark(session.metadata),
                "id": session.id,
                "timestamp": naive_utc(session.started_at),
                "channel": session.channel,
                "agent": session.agent,
                "summary": session.summary,
                "turns": len(session.turns),
                "tokens": session.tokens,
                "hash": content_hash,
                "path": path,
            },
        )

    def session_hash(self, session_id: str) -> str | None:
        rows = self.query("MATCH (s:Session {id: $id}) RETURN s.content_hash", {"id": session_id})
        return rows[0][0] if rows else None

    def sessions_for_distill(self) -> list[tuple[str, str, str | None]]:
        """(id, content_hash, distilled_hash) of every session, oldest first."""
        return [tuple(row) for row in self.query(
            "MATCH (s:Session) RETURN s.id, s.content_hash, s.distilled_hash ORDER BY s.timestamp, s.id")]

    def session_path(self, session_id: str) -> str | None:
        rows = self.query("MATCH (s:Session {id: $id}) RETURN s.path", {"id": session_id})
        return rows[0][0] if rows else None

    def mark_distilled(self, marks: list[tuple[str, str, int]]) -> None:
        """Set (session id, hash distilled from, when) on each session, in one statement."""
        if marks:
            self.query("UNWIND $rows AS row MATCH (s:Session {id: row.id}) "
                       "SET s.distilled_hash = row.hash, s.distilled_at = row.at",
                       {"rows": [{"id": session_id, "hash": session_hash, "at": from_millis(when)}
                                 for session_id, session_hash, when in marks]})

    def cards_extracted_from(self, session_id: str) -> list[str]:
        rows = self.query("MATCH (c:Card)-[:EXTRACTED_FROM]->(s:Session {id: $id}) RETURN c.id", {"id": session_id})
        return [row[0] for row in rows]

    def recent_sessions(self, limit: int) -> list[dict[str, Any]]:
        """The newest sessions with what they are about (their first user words) and how many cards came from each."""
        rows = self.query("MATCH (s:Session) WITH s ORDER BY s.timestamp DESC, s.id LIMIT $limit "
                          "OPTIONAL MATCH (c:Card)-[:EXTRACTED_FROM]->(s) "
                          "RETURN s.id, s.timestamp, s.channel, s.summary, s.turns, count(c) "
                          "ORDER BY s.timestamp DESC, s.id", {"limit": limit})
        return [{"id": sid, "timestamp": moment.isoformat() + "Z", "channel": channel, "summary": summary or "",
                 "turns": turns or 0, "cards": cards} for sid, moment, channel, summary, turns, cards in rows]

    def hottest_cards(self, limit: int) -> list[dict[str, Any]]:
        """The HOT cards, hottest first."""
        rows = self.query("MATCH (c:Card) WHERE c.tier = 'HOT' RETURN c.id, c.title, c.type, c.temperature "
                          "ORDER BY c.temperature DESC, c.id LIMIT $limit", {"limit": limit})
        return [{"card_id": card_id, "title": title, "type": kind, "temperature": temperature}
                for card_id, title, kind, temperature in rows]

    def session_cards(self, session_id: str) -> list[dict[str, Any]]:
        """The cards distilled from a session (id, title, type, tier), in the order they were made."""
        rows = self.query("MATCH (c:Card)-[:EXTRACTED_FROM]->(s:Session {id: $id}) "
                          "RETURN c.id, c.title, c.type, c.tier ORDER BY c.created_at, c.id", {"id": session_id})
        return [{"card_id": card_id, "title": title, "type": kind, "tier": tier} for card_id, title, kind, tier in rows]

    def card_sessions(self) -> dict[str, str]:
        """Card id → the first session it came from (cards with no session are left out). Read as arrow: row by
        row, 100k cards took ~0.2 s of the interpreter, which every distillation pays first (0.05 s this way)."""
        table = self.query_arrow("MATCH (c:Card) WHERE size(c.source_sessions) > 0 "
                                 "RETURN c.id AS id, c.source_sessions[1] AS first")
        return dict(zip(table.column("id").to_pylist(), table.column("first").to_pylist()))

    def cards_created_since(self, millis: int) -> list[str]:
        """Ids of the cards created (distilled, imported, merged) after ``millis``."""
        return [card_id for (card_id,) in self.query("MATCH (c:Card) WHERE c.created_at > $since RETURN c.id",
                                                     {"since": from_millis(millis)})]

    def session_times(self, session_ids: list[str]) -> dict[str, int]:
        """When each known session took place, ms since the epoch (unknown ids absent)."""
        if not session_ids:
            return {}
        rows = self.query("UNWIND $ids AS x MATCH (s:Session {id: x}) RETURN s.id, s.timestamp", {"ids": session_ids})
        return {session_id: to_millis(when) for session_id, when in rows if when is not None}

    def source_sessions(self, card_ids: list[str]) -> set[str]:
        """The sessions these cards came from."""
        rows = self.query("UNWIND $ids AS x MATCH (c:Card {id: x}) RETURN c.source_sessions", {"ids": card_ids})
        return {session for (sessions,) in rows for session in sessions or ()}

    def set_heat_columns(self, ids: list[str], temperatures: list[float], tiers: list[str],
                         batch: int = HEAT_BATCH) -> None:
        """Temperature and tier of many cards (unknown ids are skipped). Each batch goes in as an Arrow table
        (``LOAD FROM``): at 100k cards 0.7 s, where ``UNWIND`` over a list of parameter maps took 3 s."""
        import pyarrow as pa

        for start in range(0, len(ids), batch):
            end = start + batch
            rows = pa.table({"id": pa.array(ids[start:end], pa.string()),
                             "temperature": pa.array(temperatures[start:end], pa.float64()),
                             "tier": pa.array(tiers[start:end], pa.string())})
            self.query("LOAD FROM $rows MATCH (c:Card {id: id}) SET c.temperature = temperature, c.tier = tier",
                       {"rows": rows})

    def all_cards(self) -> list[Card]:
        """Every card, as the domain object (what a rebuild of L1 embeds and verify hashes)."""
        rows = self.query("MATCH (c:Card) RETURN c.id, c.title, c.content, c.type, c.tags, c.importance, "
                          "c.source_sessions, c.created_at, c.updated_at, c.temperature, c.tier, c.source, c.facts")
        return [Card(id=card_id, title=title, content=content, type=card_type, tags=list(tags or []),
                     importance=importance, source_sessions=list(sessions or []), created_at=to_millis(created),
                     updated_at=to_millis(updated), temperature=temperature, tier=tier, source=source,
                     facts=facts_from_graph(facts))
                for card_id, title, content, card_type, tags, importance, sessions, created, updated, temperature,
                tier, source, facts in rows]

    def all_links(self) -> list[Link]:
        """Every edge, custom ones under their own name."""
        rows = self.query(f"MATCH (a:Card)-[r]->(b) WHERE label(r) <> '{MENTIONS_TABLE}' "
                          "RETURN a.id, b.id, label(r), r.type, r.weight, r.reason, r.created_at")
        return [Link(source, target, custom or label, weight if weight is not None else 1.0, reason or "",
                     to_millis(created) if created else 0)
                for source, target, label, custom, weight, reason, created in rows]

    def session_ids(self) -> set[str]:
        return {row[0] for row in self.query("MATCH (s:Session) RETURN s.id")}

    def delete_cards(self, card_ids: list[str]) -> None:
        """Remove cards with all their edges (``UNWIND`` + keyed match: ``IN $ids`` would scan the table)."""
        if card_ids:
            self._write_unread_entities()
            mentioned = self._entities.forget(card_ids) if self._entities is not None else []
            self.query("UNWIND $ids AS x MATCH (c:Card {id: x}) DETACH DELETE c", {"ids": card_ids})
            if self._entities is not None:
                self._entities.refresh(mentioned)

    def upsert_card(self, card: Card) -> None:
        self.upsert_cards([card])

    def upsert_cards(self, cards: list[Card]) -> None:
        """Create or replace cards in their order, in one ``UNWIND`` (a statement per card was 0.9 ms each, 0.1 s of
        a LoCoMo conversation's distillation), the last of a repeated id winning as one :meth:`upsert_card` after
        another. A card stating no facts has none in its row: the binder types an empty list there as a list of
        strings, which it does not cast to the column's structs, while the empty list as a parameter of its own it
        does; and a ``coalesce`` of the rows' facts with it only binds when some row states facts."""
        latest = list({card.id: card for card in cards}.values())
        if not latest:
            return
        rows = [_card_row(card) for card in latest]
        stating = any(row["facts"] for row in rows)
        self.query(
            "UNWIND $rows AS row MERGE (c:Card {id: row.id}) SET c.title = row.title, "
            "c.content = row.content, c.type = row.type, c.created_at = row.created_at, "
            "c.updated_at = row.updated_at, c.source_sessions = row.sessions, c.tags = row.tags, "
            "c.temperature = row.temperature, c.tier = row.tier, c.importance = row.importance, "
            f"c.source = row.source, c.facts = {'coalesce(row.facts, $no_facts)' if stating else '$no_facts'}",
            {"rows": rows, "no_facts": []})
        if self._entities is not None:
            self._unread.update((card.id, card) for card in cards)
            if not self._in_transaction:
                self._write_unread_entities()

    def merge_link(self, link: Link) -> None:
        """Create or update one edge; the relation name picks the table (core, promoted or ``CUSTOM``)."""
        ends, pattern = self._edge(link.relation, "$")
        self.query(f"{ends} MERGE {pattern} {_EDGE_SET.format('$')}", self._edge_row(link))

    def merge_links(self, links: list[Link]) -> None:
        """Create or update many edges, one ``UNWIND`` statement per rel table, the last of a repeated link winning
        as it would one :meth:`merge_link` after another. Each end is matched by a ``MATCH`` of its own: the two
        in one ``MATCH`` made the planner join whole tables (a second for 16 edges at 100k cards)."""
        by_table: dict[str, list[Link]] = {}
        for link in {link.key: link for link in links}.values():
            by_table.setdefault(self.rel_table(link.relation), []).append(link)
        for members in by_table.values():
            ends, pattern = self._edge(members[0].relation, "row.")
            self.query(f"UNWIND $rows AS row {ends} MERGE {pattern} {_EDGE_SET.format('row.')}",
                       {"rows": [self._edge_row(link) for link in members]})

    def delete_link(self, link: Link) -> None:
        """Remove one edge (by its ends and relation), if it exists."""
        ends, pattern = self._edge(link.relation, "$")
        self.query(f"{ends} MATCH {pattern} DELETE r", self._edge_keys(link))

    def _edge(self, relation: str, prefix: str) -> tuple[str, str]:
        """The ``MATCH`` of an edge's two ends and the pattern of the edge ``r`` itself, reading the ends' ids
        (``source``, ``target``) and a custom relation's name (``type``) from the parameters (``prefix`` ``$``)
        or the ``UNWIND`` row (``row.``)."""
        target = "Session" if relation in CARD_TO_SESSION else "Card"
        table = self.rel_table(relation)
        pattern = f"(a)-[r:{CUSTOM_TABLE} {{type: {prefix}type}}]->(b)" if table == CUSTOM_TABLE \
            else f"(a)-[r:`{table}`]->(b)"
        return f"MATCH (a:Card {{id: {prefix}source}}) MATCH (b:{target} {{id: {prefix}target}})", pattern

    def _edge_keys(self, link: Link) -> dict[str, str]:
        """What :meth:`_edge` reads of one link: its ends' ids, and a custom relation's name."""
        keys = {"source": link.source, "target": link.target}
        if self.rel_table(link.relation) == CUSTOM_TABLE:
            keys["type"] = link.relation
        return keys

    def _edge_row(self, link: Link) -> dict[str, Any]:
        return {**self._edge_keys(link), "weight": link.weight, "reason": link.reason,
                "created_at": from_millis(link.created_at)}

    def neighbours(self, card_ids: list[str]) -> list[tuple[str, str, str, float]]:
        """Card-to-card edges around ``card_ids`` as (from, relation, to, weight).

        Outgoing edges as stored, plus incoming ``CAUSES``/``CAUSED_BY`` edges read as their inverse
        (Y CAUSES X means X CAUSED_BY Y), so a causal question can be asked from either end. The
        ``MATCH … OPTIONAL MATCH`` form starts from the indexed ids; a plain ``MATCH (a {id: x})-[r]->(b)``
        made the planner hash-join every edge of the graph (420 ms instead of 16 ms at 100k cards).
        """
        if not card_ids:
            return []
        rows = self.query("UNWIND $ids AS x MATCH (a:Card {id: x}) OPTIONAL MATCH (a)-[r]->(b:Card) "
                          "WITH a, r, b WHERE r IS NOT NULL RETURN a.id, label(r), r.type, b.id, r.weight",
                          {"ids": card_ids})
        edges = [(a, custom or label, b, weight if weight is not None else 1.0) for a, label, custom, b, weight in rows]
        inverse = {"CAUSES": "CAUSED_BY", "CAUSED_BY": "CAUSES"}
        rows = self.query("UNWIND $ids AS x MATCH (a:Card {id: x}) OPTIONAL MATCH (a)<-[r:CAUSES|CAUSED_BY]-(b:Card) "
                          "WITH a, r, b WHERE r IS NOT NULL RETURN a.id, label(r), b.id, r.weight", {"ids": card_ids})
        edges.extend((a, inverse[label], b, weight if weight is not None else 1.0) for a, label, b, weight in rows)
        return edges

    @_per_generation
    def supersessions(self) -> dict[str, tuple[tuple[str, ...], list[str]]]:
        """Every superseded card → (the sessions it came from, the cards that replaced it). Remembered until the
        next write: the query walks every card (58 ms a recall at a million cards without the snapshot, 12 ms at
        100k even with no edge to find), so the edges are counted first (0.3 ms at 100k): a store introspect never
        linked, or a recall read through its own connection while a job writes, pays that alone."""
        found: dict[str, tuple[tuple[str, ...], list[str]]] = {}
        if not self.query("MATCH ()-[r:SUPERSEDED_BY]->() RETURN count(r)")[0][0]:
            return found
        for old, sessions, new in self.query("MATCH (a:Card)-[:SUPERSEDED_BY]->(b:Card) "
                                             "RETURN a.id, a.source_sessions, b.id"):
            found.setdefault(old, (tuple(sessions or ()), []))[1].append(new)
        return found

    def cards(self, card_ids: list[str], content: bool = True) -> dict[str, dict[str, Any]]:
        """The cards with these ids (unknown ids are simply absent), by id; without ``content``, every field but
        it (see :class:`~.reader.GraphReader`)."""
        if not card_ids:
            return {}
        fields = CARD_FIELDS if content else FIELDS_BUT_CONTENT
        rows = self.query("UNWIND $ids AS x MATCH (c:Card {id: x}) RETURN "
                          + ", ".join(f"c.{name}" for name in fields), {"ids": card_ids})
        return {row[0]: dict(zip(fields, row)) for row in rows}

    def card_contents(self, card_ids: list[str]) -> dict[str, str]:
        """The content of each of these cards (unknown ids absent), by id."""
        if not card_ids:
            return {}
        return dict(self.query("UNWIND $ids AS x MATCH (c:Card {id: x}) RETURN c.id, c.content", {"ids": card_ids}))

    def card_entities(self, card_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The entities each of these cards mentions (id, name, kind, aliases), by card id; cards without any
        are absent. Ordered by name, so the same cards always list the same way. Started from the indexed ids
        (see :meth:`neighbours`): the plain pattern hash-joined every ``MENTIONS`` edge, 70 ms of every recall at
        10k cards against 2 ms."""
        if not card_ids:
            return {}
        self._write_unread_entities()
        rows = self.query("UNWIND $ids AS x MATCH (c:Card {id: x}) OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity) "
                          "WITH c, e WHERE e IS NOT NULL RETURN DISTINCT c.id, e.id, e.name, e.kind, e.aliases",
                          {"ids": card_ids})
        found: dict[str, list[dict[str, Any]]] = {}
        for card_id, entity, name, kind, aliases in sorted(rows, key=lambda row: (row[0], row[2].casefold(), row[1])):
            found.setdefault(card_id, []).append({"id": entity, "name": name, "kind": kind,
                                                  "aliases": list(aliases or [])})
        return found

    def find_entity(self, name: str) -> dict[str, Any] | None:
        """The entity ``name`` names: by id, by key (any case or spacing of one of its names) or by an alias a text
        declared; None when none does."""
        self._write_unread_entities()
        key = entity_key(name)
        candidates = [name, entity_id(key)] if key else [name]
        rows = self.query("UNWIND $ids AS x MATCH (e:Entity {id: x}) RETURN e.id, e.name, e.kind, e.aliases",
                          {"ids": candidates})
        if not rows and key:
            rows = [row for row in self.query("MATCH (e:Entity) WHERE size(e.aliases) > 0 "
                                              "RETURN e.id, e.name, e.kind, e.aliases")
                    if any(entity_key(alias) == key for alias in row[3])]
        if not rows:
            return None
        identifier, shown, kind, aliases = min(rows, key=lambda row: row[0])
        return {"id": identifier, "name": shown, "kind": kind, "aliases": list(aliases or [])}

    def entity_cards(self, identifier: str) -> list[str]:
        """The cards that mention an entity, by id."""
        self._write_unread_entities()
        return [card_id for (card_id,) in self.query(
            "MATCH (c:Card)-[:MENTIONS]->(:Entity {id: $id}) RETURN DISTINCT c.id ORDER BY c.id", {"id": identifier})]

    def entity_count(self) -> int:
        return self.query("MATCH (e:Entity) RETURN count(e)")[0][0]

    @_per_generation
    def entity_counts(self) -> dict[str, Any]:
        """Entities per kind (every kind listed) and ``MENTIONS`` edges: what ``alaya schema`` shows."""
        self._write_unread_entities()
        by_kind = dict.fromkeys(ENTITY_KINDS, 0)
        for kind, count in self.query("MATCH (e:Entity) RETURN e.kind, count(*)"):
            by_kind[kind if kind in by_kind else "other"] += count
        mentions = self.query(f"MATCH (:Card)-[m:{MENTIONS_TABLE}]->(:Entity) RETURN count(m)")[0][0]
        return {"by_kind": by_kind, "mentions": mentions}

    def card_types(self, card_ids: list[str]) -> dict[str, str]:
        """The type of each card with one of these ids (unknown ids absent): what recall filters on before it
        reads the few cards it returns in full."""
        if not card_ids:
            return {}
        return dict(self.query("UNWIND $ids AS x MATCH (c:Card {id: x}) RETURN c.id, c.type", {"ids": card_ids}))

    def edges_of(self, card_id: str) -> dict[str, list[dict[str, Any]]]:
        """Every edge touching a card, both directions, with the title of the card at the other end."""
        return self.edges_of_many([card_id])[card_id]

    def edges_of_many(self, card_ids: list[str]) -> dict[str, dict[str, list[dict[str, Any]]]]:
        found = {card_id: {"outgoing": [], "incoming": []} for card_id in card_ids}
        for direction, arrow in (("outgoing", "(a)-[r]->(b:Card)"), ("incoming", "(a)<-[r]-(b:Card)")):
            rows = self.query_arrow(f"UNWIND $ids AS x MATCH (a:Card {{id: x}}) OPTIONAL MATCH {arrow} "
                                    "WITH a, r, b WHERE r IS NOT NULL RETURN a.id, label(r), r.type, b.id, b.title, "
                                    "r.weight, r.reason", {"ids": card_ids})
            for card_id, label, custom, other, title, weight, reason in zip(*(column.to_pylist()
                                                                              for column in rows.columns)):
                found[card_id][direction].append({"relation": custom or label, "card_id": other, "title": title,
                                                  "weight": weight, "reason": reason})
        return found

    def sessions(self, session_ids: list[str]) -> list[dict[str, Any]]:
        rows = self.query("UNWIND $ids AS x MATCH (s:Session {id: x}) RETURN s.id, s.timestamp, s.channel, s.path",
                          {"ids": session_ids})
        return [{"id": sid, "timestamp": moment.isoformat() + "Z", "channel": channel, "path": path}
                for sid, moment, channel, path in rows]

    def set_share_marks(self, marks: dict[str, str]) -> None:
        """Session id → its :func:`~alaya_engine.foundations.scope.share_mark`, in one statement."""
        if marks:
            self.query("UNWIND $rows AS row MATCH (s:Session {id: row.id}) SET s.share = row.mark",
                       {"rows": [{"id": session_id, "mark": mark} for session_id, mark in marks.items()]})

    def sessions_in_scope(self, rules: list[tuple[str, str]], policy: SharePolicy) -> set[str]:
        """The sessions any of ``rules`` matches (``foundations.scope``), by their agent, channel and share mark;
        ``policy`` (config.json's share rules) decides the rule ``shared`` for sessions that carry no mark."""
        rows = self.query("MATCH (s:Session) RETURN s.id, s.agent, s.channel, s.share")
        found = set()
        for sid, agent, channel, mark in rows:
            session = {"agent": agent, "channel": channel}
            if any(policy.shared_by(session, mark) if rule == SHARED else matches(session, rule) for rule in rules):
                found.add(sid)
        return found

    @_per_generation
    def temperature_histogram(self) -> list[dict[str, Any]]:
        """Cards per temperature band, hottest first (the bands `alaya status` shows), counted in the database."""
        cases = " ".join(f"WHEN c.temperature >= {low} THEN {index}"
                         for index, (low, _) in enumerate(TEMPERATURE_BANDS))
        counts = dict(self.query(f"MATCH (c:Card) RETURN CASE {cases} ELSE {len(TEMPERATURE_BANDS) - 1} END, count(*)"))
        total = sum(counts.values())
        return [{"range": f"{low:.1f}-{high:.1f}", "low": low, "high": high, "count": counts.get(index, 0),
                 "share": round(counts.get(index, 0) / total, 4) if total else 0.0}
                for index, (low, high) in enumerate(TEMPERATURE_BANDS)]

    @_per_generation
    def sessions_without_cards(self) -> list[str]:
        """Distilled sessions no card comes from, newest first (status lists them: a session that gave nothing
        should be seen, not silently counted)."""
        return [row[0] for row in self.query(
            "MATCH (s:Session) WHERE s.distilled_hash IS NOT NULL "
            "AND NOT EXISTS { MATCH (:Card)-[:EXTRACTED_FROM]->(s) } RETURN s.id ORDER BY s.timestamp DESC, s.id")]

    @_per_generation
    def counts(self) -> dict[str, Any]:
        """Cards per type, sessions, and links per relation (custom and promoted ones by their own name)."""
        cards_by_type = dict.fromkeys(CARD_TYPES, 0)
        for card_type, count in self.query("MATCH (c:Card) RETURN c.type, count(*)"):
            cards_by_type[card_type] = count
        links: dict[str, int] = {}
        for relation in (*CORE_RELATIONS, *sorted(self.promoted_relations())):
            target = "Session" if relation in CARD_TO_SESSION else "Card"
            links[relation] = self.query(f"MATCH (:Card)-[r:`{relation}`]->(:{target}) RETURN count(r)")[0][0]
        for name, count in self.query(f"MATCH (:Card)-[r:{CUSTOM_TABLE}]->(:Card) RETURN r.type, count(*)"):
            links[name] = count
        sessions, oldest, newest = self.query("MATCH (s:Session) RETURN count(s), min(s.timestamp), "
                                              "max(s.timestamp)")[0]
        return {
            "cards": sum(cards_by_type.values()),
            "cards_by_type": cards_by_type,
            "sessions": sessions,
            "oldest_session": oldest,
            "newest_session": newest,
            "links": sum(links.values()),
            "links_by_relation": links,
        }
