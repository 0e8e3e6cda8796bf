"""GraphStore: the L2 schema and the queries the engine needs.

Traps this class is shaped around (measured with LadybugDB 0.22): exactly one
``Database`` per file per process (two silently lose writes), relation types
cannot be query parameters (so table names come from a whitelist), MERGE on
the key then SET, and timestamps stored as naive UTC.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..domain import Session
from ..errors import RUNTIME, AlayaError
from ..relations import CARD_TO_SESSION, CORE_RELATIONS, CUSTOM_TABLE
from .engines import load_engine

CARD_TYPES = ("concept", "pattern", "gotcha", "decision")

_NODE_TABLES = (
    "CREATE NODE TABLE IF NOT EXISTS Card(id STRING, title STRING, content STRING, type STRING, "
    "created_at TIMESTAMP, updated_at TIMESTAMP, source_sessions STRING[], tags STRING[], "
    "temperature DOUBLE, tier STRING, importance DOUBLE, source STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS Session(id STRING, timestamp TIMESTAMP, channel STRING, agent STRING, "
    "summary STRING, turns INT64, tokens INT64, content_hash STRING, path STRING, PRIMARY KEY(id))",
)
_EDGE_PROPERTIES = "weight DOUBLE, created_at TIMESTAMP, reason STRING"

_OPEN_PATHS: set[Path] = set()


def naive_utc(moment: datetime) -> datetime:
    """The graph stores naive timestamps; ours are always UTC."""
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


class GraphStore:
    """One open graph database; refuses a second opener of the same file in this process."""

    def __init__(self, path: Path, engine: str):
        self.path = path.resolve()
        self.engine_name = engine
        if self.path in _OPEN_PATHS:
            raise AlayaError("graph_already_open", f"graph database {self.path} is already open in this process", RUNTIME)
        module = load_engine(engine)
        try:
            self._db = module.Database(str(self.path))
        except RuntimeError as exc:
            raise AlayaError("graph_unavailable", f"cannot open graph database {self.path}: {exc}", RUNTIME) from None
        self._conn = module.Connection(self._db)
        _OPEN_PATHS.add(self.path)

    def close(self) -> None:
        if self.path in _OPEN_PATHS:
            self._conn.close()
            self._db.close()
            _OPEN_PATHS.discard(self.path)

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> list[list[Any]]:
        result = self._conn.execute(cypher, parameters or {})
        rows = []
        while result.has_next():
            rows.append(result.get_next())
        return rows

    def create_schema(self) -> None:
        for statement in _NODE_TABLES:
            self.query(statement)
        for relation in CORE_RELATIONS:
            target = "Session" if relation in CARD_TO_SESSION else "Card"
            self.query(f"CREATE REL TABLE IF NOT EXISTS {relation}(FROM Card TO {target}, {_EDGE_PROPERTIES})")
        self.query(f"CREATE REL TABLE IF NOT EXISTS {CUSTOM_TABLE}(FROM Card TO Card, type STRING, {_EDGE_PROPERTIES})")

    def upsert_session(self, session: Session, content_hash: str, path: str) -> None:
        summary = next((t.content for t in session.turns if t.role == "user" and t.content.strip()), "")
        self.query(
            "MERGE (s:Session {id: $id}) SET s.timestamp = $timestamp, s.channel = $channel, s.agent = $agent, "
            "s.summary = $summary, s.turns = $turns, s.tokens = $tokens, s.content_hash = $hash, s.path = $path",
            {
                "id": session.id,
                "timestamp": naive_utc(session.started_at),
                "channel": session.channel,
                "agent": session.agent,
                "summary": summary.strip()[:200],
                "turns": len(session.turns),
                "tokens": session.tokens,
                "hash": content_hash,
                "path": path,
            },
        )

    def session_hash(self, session_id: str) -> str | None:
        rows = self.query("MATCH (s:Session {id: $id}) RETURN s.content_hash", {"id": session_id})
        return rows[0][0] if rows else None

    def counts(self) -> dict[str, Any]:
        """Cards per type, sessions, and links per relation (custom ones by their own name)."""
        cards_by_type = dict.fromkeys(CARD_TYPES, 0)
        for card_type, count in self.query("MATCH (c:Card) RETURN c.type, count(*)"):
            cards_by_type[card_type] = count
        links: dict[str, int] = {}
        for relation in CORE_RELATIONS:
            target = "Session" if relation in CARD_TO_SESSION else "Card"
            links[relation] = self.query(f"MATCH (:Card)-[r:{relation}]->(:{target}) RETURN count(r)")[0][0]
        for name, count in self.query(f"MATCH (:Card)-[r:{CUSTOM_TABLE}]->(:Card) RETURN r.type, count(*)"):
            links[name] = count
        sessions, oldest, newest = self.query("MATCH (s:Session) RETURN count(s), min(s.timestamp), max(s.timestamp)")[0]
        return {
            "cards": sum(cards_by_type.values()),
            "cards_by_type": cards_by_type,
            "sessions": sessions,
            "oldest_session": oldest,
            "newest_session": newest,
            "links": sum(links.values()),
            "links_by_relation": links,
        }
