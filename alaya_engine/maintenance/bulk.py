"""Bulk loading: many cards, links and vectors into a store with no cards yet, in a few big writes.

The distill pipeline writes row by row, right for a handful of cards but minutes for 100k; here the graph is
loaded with ``COPY … FROM $arrow`` in one transaction and each LanceDB table with one ``add``. ``rebuild``
builds its fresh layers with it, and the benchmarks their stores. The result is the store the pipeline would
have written from the same input; what it refuses and how it fails are in docs/architecture.md ("Bulk load").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..foundations.domain import CARD_TYPES, TIERS, Card, Fact, Link
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.relations import CARD_TO_SESSION, CUSTOM_TABLE, MENTIONS_TABLE, is_core, relation_embedding_text

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from ..graph.entities import EntityReader
    from ..graph.store import GraphStore
    from ..store_parts import StoreParts

log = logging.getLogger(__name__)

SESSION_COLUMNS = ("id", "timestamp", "channel", "agent", "summary", "turns", "tokens", "content_hash", "path",
                   "distilled_hash", "distilled_at", "share")
"""Keys of a ``sessions`` row: the ``Session`` node columns; ``timestamp``/``distilled_at`` in epoch milliseconds."""


def bulk_load(engine: "StoreParts", cards: list[Card], links: list[Link], vectors: "np.ndarray", *,
              sessions: list[dict[str, Any]] | None = None,
              access: dict[str, tuple[int, int]] | None = None,
              promoted: Iterable[str] = (),
              reader: "EntityReader | None" = None,
              timings: dict[str, float] | None = None) -> None:
    """Load ``cards`` (with ``vectors[i]`` the embedding of ``cards[i]``) and ``links`` into a store with no cards.

    ``sessions``: ``Session`` nodes to create first (dicts keyed by :data:`SESSION_COLUMNS`; missing keys are
    null), so ``EXTRACTED_FROM`` links can point at them; ids already in the graph are refused.
    ``access``: card id → (access_count, last_accessed ms) for ``card_heat`` (default 0, 0).
    ``promoted``: relation names that have a rel table of their own (checked like a promotion, refused if not).
    ``reader``: reads a card's entities instead of the store's reader, for a caller that knows them already (the
    synthetic benchmark store, whose cards are made of a few thousand sentences, reads each sentence once).
    ``timings``: if given, filled with the seconds each step took.
    """
    import numpy as np

    steps = _Steps(timings)
    dimension = engine.manifest["embedding"]["dimension"]
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape != (len(cards), dimension):
        raise AlayaError("bad_vectors", f"vectors must be a ({len(cards)}, {dimension}) matrix, one row per card; "
                                        f"got shape {matrix.shape}")
    cards, matrix = _last_card_wins(cards, matrix)
    for card in cards:
        if card.type not in CARD_TYPES:
            raise AlayaError("bad_card", f"card {card.id} has type {card.type!r}; allowed: {', '.join(CARD_TYPES)}")
        if card.tier not in TIERS:
            raise AlayaError("bad_card", f"card {card.id} has tier {card.tier!r}; allowed: {', '.join(TIERS)}")
    links = list({link.key: link for link in links}.values())
    sessions = list(sessions or [])
    promoted = frozenset(promoted)
    store = engine.vectors()
    steps.lap("validate")
    with engine.step() as graph:
        _refuse_non_empty(graph, store)
        _check_links(graph, cards, links, sessions)
        for name in sorted(promoted):
            graph.check_promotable(name)
        steps.lap("check store")
        _load_graph(graph, cards, links, sessions, promoted, reader, steps)
        new_relations = _new_custom_relations(links, promoted, store)
        for core in (False, True):
            names = [name for name in new_relations if (name in promoted) == core]
            if names:
                store.upsert_relations(names, engine.embedder().embed(
                    [relation_embedding_text(name, new_relations[name]) for name in names]), is_core=core,
                    examples=[[new_relations[name]] if new_relations[name] else [] for name in names])
        store.set_relation_frequencies(graph.counts()["links_by_relation"])
        steps.lap("relations")
        _load_vectors(store, cards, matrix, access or {})
        steps.lap("vectors")
        store.refresh_full_text_index()
        steps.lap("full-text index")
        store.write_stats()
    log.info("bulk loaded %d cards, %d links, %d sessions in %.1f s", len(cards), len(links), len(sessions),
             steps.total)


def _last_card_wins(cards: list[Card], matrix: "np.ndarray") -> tuple[list[Card], "np.ndarray"]:
    last = {card.id: position for position, card in enumerate(cards)}
    if len(last) == len(cards):
        return list(cards), matrix
    keep = sorted(last.values())
    return [cards[position] for position in keep], matrix[keep]


def _refuse_non_empty(graph: "GraphStore", store) -> None:
    from ..vectors.store import CARD_META, CARD_VECTORS

    in_graph = graph.query("MATCH (c:Card) RETURN count(c)")[0][0]
    in_l1 = sum(store.table(name).count_rows() for name in (CARD_VECTORS, CARD_META))
    if in_graph or in_l1:
        raise AlayaError("store_not_empty", f"bulk loading needs a store with no cards; this one has {in_graph} in "
                                            f"the graph and {in_l1} rows in L1. Load into a freshly initialised home")


def _check_links(graph: "GraphStore", cards: list[Card], links: list[Link], sessions: list[dict]) -> None:
    card_ids = {card.id for card in cards}
    existing = {row[0] for row in graph.query("MATCH (s:Session) RETURN s.id")}
    given = [row.get("id") for row in sessions]
    if any(not isinstance(sid, str) or not sid for sid in given):
        raise AlayaError("bad_session", "every session row needs a non-empty string 'id'")
    clash = next((sid for sid in given if sid in existing), None) or _first_repeat(given)
    if clash:
        raise AlayaError("session_conflict", f"session {clash} is given twice or already in the graph")
    session_ids = existing | set(given)
    for link in links:
        targets, kind = (session_ids, "session") if link.relation in CARD_TO_SESSION else (card_ids, "card")
        if link.source not in card_ids:
            raise AlayaError("bad_link", f"{link.relation} link from unknown card {link.source!r}")
        if link.target not in targets:
            raise AlayaError("bad_link", f"{link.relation} link from {link.source} to unknown {kind} {link.target!r}")


def _first_repeat(values: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None


def _load_graph(graph: "GraphStore", cards: list[Card], links: list[Link], sessions: list[dict],
                promoted: frozenset[str], reader: "EntityReader | None", steps) -> None:
    """Every table and COPY in one transaction: the graph gets all of it or none of it."""
    with graph.transaction():
        for name in sorted(promoted):
            graph.create_relation_table(name)
        if sessions:
            _copy(graph, "Session", _session_columns(sessions))
        steps.lap("graph sessions")
        _copy(graph, "Card", _card_columns(cards))
        steps.lap("graph cards")
        by_table: dict[str, list[Link]] = {}
        for link in links:
            own_table = is_core(link.relation) or link.relation in promoted
            by_table.setdefault(link.relation if own_table else CUSTOM_TABLE, []).append(link)
        for table, members in by_table.items():
            _copy(graph, table, _link_columns(members, custom=table == CUSTOM_TABLE), rel=True)
        steps.lap("graph links")
        _load_entities(graph, cards, reader)
        steps.lap("graph entities")
    steps.lap("graph commit")


def _load_entities(graph: "GraphStore", cards: list[Card], reader: "EntityReader | None") -> None:
    """The cards' ``Entity`` nodes and ``MENTIONS``, as writing the cards one by one would leave them."""
    from ..graph.entities import plan_entities

    writer = graph.entity_writer
    if writer is None:
        return
    read = reader or writer.reader
    entities, edges = plan_entities((card.id, read(card)) for card in cards)
    _copy(graph, "Entity", {"id": _strings([entity.id for entity in entities]),
                            "name": _strings([entity.name for entity in entities]),
                            "kind": _strings([entity.kind for entity in entities]),
                            "aliases": _string_lists([entity.aliases for entity in entities])})
    _copy(graph, MENTIONS_TABLE, {"from": _strings([edge.card for edge in edges]),
                                  "to": _strings([edge.entity for edge in edges]),
                                  "name": _strings([edge.name for edge in edges]),
                                  "kind": _strings([edge.kind for edge in edges])}, rel=True)
    writer.reset()


def _copy(graph: "GraphStore", table: str, columns: dict[str, "pa.Array"], rel: bool = False) -> None:
    """COPY one table from Arrow, its columns in the table's own order (a rel table: FROM and TO keys first)."""
    import pyarrow as pa

    declared = [row[1] for row in graph.query(f"CALL table_info('{table}') RETURN *")]
    order = (["from", "to"] if rel else []) + declared
    missing = [name for name in order if name not in columns]
    if missing:
        raise AlayaError("schema_mismatch", f"bulk load does not know how to fill {table}.{missing[0]}; "
                                            "update alaya_engine/maintenance/bulk.py for the new schema", RUNTIME)
    arrow = pa.table({name: columns[name] for name in order})
    if arrow.num_rows:
        graph.query(f"COPY `{table}` FROM $rows", {"rows": arrow})


def _timestamps(millis: list[int | None]) -> "pa.Array":
    """Naive UTC timestamps, as the graph stores them (GraphStore.from_millis)."""
    import pyarrow as pa

    return pa.array([None if value is None else int(value) * 1000 for value in millis], pa.int64()) \
        .cast(pa.timestamp("us"))


def _strings(values: list) -> "pa.Array":
    import pyarrow as pa

    return pa.array(values, pa.string())


def _string_lists(values: list) -> "pa.Array":
    import pyarrow as pa

    return pa.array([list(value or []) for value in values], pa.list_(pa.string()))


def _card_columns(cards: list[Card]) -> dict[str, "pa.Array"]:
    import pyarrow as pa

    return {
        "id": _strings([card.id for card in cards]),
        "title": _strings([card.title for card in cards]),
        "content": _strings([card.content for card in cards]),
        "type": _strings([card.type for card in cards]),
        "created_at": _timestamps([card.created_at for card in cards]),
        "updated_at": _timestamps([card.updated_at for card in cards]),
        "source_sessions": _string_lists([card.source_sessions for card in cards]),
        "tags": _string_lists([card.tags for card in cards]),
        "temperature": pa.array([float(card.temperature) for card in cards], pa.float64()),
        "tier": _strings([card.tier for card in cards]),
        "importance": pa.array([float(card.importance) for card in cards], pa.float64()),
        "source": _strings([card.source for card in cards]),
        "facts": _facts([card.facts for card in cards]),
    }


def _facts(per_card: list[list[Fact]]) -> "pa.Array":
    """Each card's facts as a list of structs, ``valid_from`` a naive UTC timestamp like every graph time."""
    import pyarrow as pa

    struct = pa.struct([("subject", pa.string()), ("attribute", pa.string()), ("value", pa.string()),
                        ("valid_from", pa.timestamp("us"))])
    rows = [[{"subject": fact.subject, "attribute": fact.attribute, "value": fact.value,
              "valid_from": fact.valid_from * 1000} for fact in facts] for facts in per_card]
    return pa.array(rows, pa.list_(struct))


def _session_columns(sessions: list[dict]) -> dict[str, "pa.Array"]:
    import pyarrow as pa

    unknown = sorted({key for row in sessions for key in row} - set(SESSION_COLUMNS))
    if unknown:
        raise AlayaError("bad_session", f"unknown session field {unknown[0]!r}; allowed: {', '.join(SESSION_COLUMNS)}")
    column = {name: [row.get(name) for row in sessions] for name in SESSION_COLUMNS}
    return {
        **{name: _strings(column[name]) for name in ("id", "channel", "agent", "summary", "content_hash", "path",
                                                     "distilled_hash", "share")},
        "timestamp": _timestamps(column["timestamp"]),
        "distilled_at": _timestamps(column["distilled_at"]),
        "turns": pa.array(column["turns"], pa.int64()),
        "tokens": pa.array(column["tokens"], pa.int64()),
    }


def _link_columns(links: list[Link], custom: bool) -> dict[str, "pa.Array"]:
    import pyarrow as pa

    columns = {
        "from": _strings([link.source for link in links]),
        "to": _strings([link.target for link in links]),
        "weight": pa.array([float(link.weight) for link in links], pa.float64()),
        "created_at": _timestamps([link.created_at for link in links]),
        "reason": _strings([link.reason for link in links]),
    }
    if custom:
        columns["type"] = _strings([link.relation for link in links])
    return columns


def _new_custom_relations(links: list[Link], promoted: frozenset[str], store) -> dict[str, str]:
    """Custom and promoted relation names not yet in the ``relations`` table → the reason of their first link
    (a promoted relation with no edge left is still embedded, so recall keeps knowing its name)."""
    known = set(store.relation_names())
    fresh: dict[str, str] = {}
    for link in links:
        if not is_core(link.relation) and link.relation not in known:
            fresh.setdefault(link.relation, link.reason)
    for name in sorted(promoted - known):
        fresh.setdefault(name, "")
    return fresh


def _load_vectors(store, cards: list[Card], matrix: "np.ndarray", access: dict[str, tuple[int, int]]) -> None:
    """One ``add`` per table, with the on-disk schemas; a COLD card's vector goes to ``cold_vectors`` as codes."""
    import numpy as np
    import pyarrow as pa

    from ..vectors.store import CARD_HEAT, CARD_META, CARD_VECTORS, COLD_VECTORS, quantise_rows

    vectors_table = store.table(CARD_VECTORS)
    active = [position for position, card in enumerate(cards) if card.tier != "COLD"]
    flat = pa.array(np.ascontiguousarray(matrix[active]).reshape(-1), pa.float32())
    vectors_table.add(pa.table({
        "id": _strings([cards[p].id for p in active]),
        "vector": pa.FixedSizeListArray.from_arrays(flat, store.dimension),
        "tier": _strings([cards[p].tier for p in active]),
        "type": _strings([cards[p].type for p in active]),
    }, schema=vectors_table.schema))
    cold = [position for position, card in enumerate(cards) if card.tier == "COLD"]
    if cold:
        codes, scales = quantise_rows(matrix[cold])
        cold_table = store.table(COLD_VECTORS)
        cold_table.add(pa.table({
            "id": _strings([cards[p].id for p in cold]),
            "code": pa.FixedSizeListArray.from_arrays(pa.array(codes.reshape(-1), pa.int8()), store.dimension),
            "scale": scales}, schema=cold_table.schema))
    store.table(CARD_META).add(store.meta_rows(cards))
    store.table(CARD_HEAT).add(store.new_heat_rows(cards, access))


class _Steps:
    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings if timings is not None else {}
        self.started = self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round(now - self.last, 3)
        self.last = now

    @property
    def total(self) -> float:
        return time.perf_counter() - self.started

