"""GraphSnapshot: every card, card-to-card edge and mention of an entity, read once and answered from memory.

Recall asks the graph the same three things every time — the edges around a set
of cards, those cards' fields and the entities they mention — six queries that
cost 20-30 ms at 100k cards (the entities alone 2-3 ms even at 85 cards). A
snapshot answers them in well under a millisecond, with exactly the results of
:meth:`GraphStore.neighbours`, :meth:`GraphStore.cards` and
:meth:`GraphStore.card_entities`, so recall can use either. The cards stay
Arrow columns (~70 MB at 100k cards); the edges and the mentions are compressed
adjacency lists (numpy arrays sorted by card), the mentions read as the graph's
row numbers rather than ids (8 bytes a mention while reading, 4 after).

A card's content is not held: it is four fifths of the cards' bytes, and reading it for the snapshot also kept its
pages in the database's buffer pool (at an aged 100k cards the snapshot cost the owner server 513 MB with it,
about 280 MB without). The few cards a recall returns have it read by id (0.5 ms for ten at 100k cards).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .store import ARROW_CHUNK_ROWS, CARD_FIELDS, FIELDS_BUT_CONTENT

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import pyarrow as pa

SLICE_CARDS = 100_000
"""Cards (and their outgoing edges) read per query when the snapshot is built."""
INVERSE = {"CAUSES": "CAUSED_BY", "CAUSED_BY": "CAUSES"}
"""Incoming edges read as their inverse (Y CAUSES X means X CAUSED_BY Y), as :meth:`GraphStore.neighbours` does."""


class GraphSnapshot:
    """The cards and card-to-card edges of one graph at one write generation."""

    def __init__(self, generation: int, cards: "pa.Table", edges: "pa.Table", session_times: dict[str, int],
                 mentions: "Mentions", contents: "Callable[[list[str]], dict[str, str]]"):
        """``cards`` has the columns :data:`FIELDS_BUT_CONTENT`; ``contents`` reads cards' contents by id from the
        database (as :meth:`GraphStore.card_contents`); ``edges`` has ``source, relation, target, weight``
        with the relation already resolved (a custom edge's own name) and missing weights as 1.0;
        ``session_times`` maps each session to when it took place (ms); ``mentions`` the cards' entities."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        self.generation = generation
        self._session_times = session_times
        self._cards = cards.combine_chunks()
        self._ids: list[str] = self._cards.column("id").to_pylist()
        self.position = {card_id: index for index, card_id in enumerate(self._ids)}
        self._types = self._cards.column("type").dictionary_encode()
        inverse = edges.filter(pc.is_in(edges.column("relation"), pa.array(list(INVERSE))))
        inverse_relation = pc.if_else(pc.equal(inverse.column("relation"), "CAUSES"), "CAUSED_BY", "CAUSES")
        sources = pa.chunked_array(edges.column("source").chunks + inverse.column("target").chunks, pa.string())
        targets = pa.chunked_array(edges.column("target").chunks + inverse.column("source").chunks, pa.string())
        relations = pa.chunked_array(edges.column("relation").chunks + inverse_relation.chunks, pa.string())
        weights = pa.chunked_array(edges.column("weight").chunks + inverse.column("weight").chunks, pa.float64())
        source_rows = _positions(sources, self._cards.column("id"))
        order = np.argsort(source_rows, kind="stable")
        self._offsets = np.searchsorted(source_rows[order], np.arange(len(self._ids) + 1)).astype(np.int64)
        self._targets = _positions(targets, self._cards.column("id"))[order]
        encoded = relations.combine_chunks().dictionary_encode()
        self._relation_names: list[str] = encoded.dictionary.to_pylist()
        self._relations = encoded.indices.to_numpy(zero_copy_only=False)[order]
        self._weights = weights.combine_chunks().to_numpy(zero_copy_only=False)[order]
        replaced = edges.filter(pc.equal(edges.column("relation"), "SUPERSEDED_BY"))
        self._supersessions = _supersessions(replaced.column("source").to_pylist(),
                                             replaced.column("target").to_pylist(), self.cards)
        self._mentions = mentions
        self._contents = contents

    @classmethod
    def read(cls, connection, generation: int, contents: "Callable[[list[str]], dict[str, str]]",
             stopping: "Callable[[], bool]" = lambda: False) -> "GraphSnapshot":
        """Read the whole graph but the cards' contents through ``connection`` (a connection of its own, so the
        owner's keeps working); ``contents`` reads them later, as :meth:`__init__` says. ``stopping()`` is asked
        before each query, and a true answer ends the read with :class:`ReadStopped` (a million cards take ~25 s
        to read, in ~30 queries: a server stopping waited for all of them)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        def arrow(cypher: str) -> pa.Table:
            if stopping():
                raise ReadStopped
            return connection.execute(cypher).get_as_arrow(ARROW_CHUNK_ROWS)

        last = connection.execute("MATCH (c:Card) RETURN max(offset(id(c)))").get_next()[0]
        cards = _sliced(arrow, "MATCH (c:Card) {where} RETURN offset(id(c)) AS row, "
                               + ", ".join(f"c.{name} AS {name}" for name in FIELDS_BUT_CONTENT), "c", last)
        rows = _sliced(arrow, "MATCH (a:Card)-[r]->(b:Card) {where} RETURN a.id AS source, label(r) AS label, "
                              "r.type AS custom, b.id AS target, r.weight AS weight", "a", last)
        edges = pa.table({"source": rows.column("source"),
                          "relation": pc.coalesce(rows.column("custom"), rows.column("label")),
                          "target": rows.column("target"),
                          "weight": pc.fill_null(rows.column("weight").cast(pa.float64()), 1.0)})
        sessions = arrow("MATCH (s:Session) WHERE s.timestamp IS NOT NULL RETURN s.id AS id, "
                         "CAST(to_epoch_ms(s.timestamp), 'INT64') AS at")
        mentions = Mentions.read(arrow, cards.column("row"), last)
        return cls(generation, cards.drop_columns(["row"]), edges,
                   dict(zip(sessions.column("id").to_pylist(), sessions.column("at").to_pylist())), mentions, contents)

    def card_count(self) -> int:
        return len(self._ids)

    def cards(self, card_ids: list[str], content: bool = True) -> dict[str, dict[str, Any]]:
        """As :meth:`GraphStore.cards`: the cards with these ids (unknown ids absent), by id. Their content is read
        from the database; a card it no longer holds (forgotten since this snapshot) is left out."""
        rows = [self.position[card_id] for card_id in dict.fromkeys(card_ids) if card_id in self.position]
        if not rows:
            return {}
        taken = self._cards.take(rows)
        columns = [taken.column(name).to_pylist() for name in FIELDS_BUT_CONTENT]
        found = {values[0]: dict(zip(FIELDS_BUT_CONTENT, values)) for values in zip(*columns)}
        if not content:
            return found
        texts = self._contents(list(found))
        return {card_id: {name: texts[card_id] if name == "content" else card[name] for name in CARD_FIELDS}
                for card_id, card in found.items() if card_id in texts}

    def card_types(self, card_ids: list[str]) -> dict[str, str]:
        """As :meth:`GraphStore.card_types`."""
        known = [card_id for card_id in card_ids if card_id in self.position]
        if not known:
            return {}
        return dict(zip(known, self._types.take([self.position[card_id] for card_id in known]).to_pylist()))

    def session_times(self, session_ids: list[str]) -> dict[str, int]:
        """As :meth:`GraphStore.session_times`."""
        return {session_id: self._session_times[session_id] for session_id in session_ids
                if session_id in self._session_times}

    def supersessions(self) -> dict[str, tuple[tuple[str, ...], list[str]]]:
        """As :meth:`GraphStore.supersessions`."""
        return self._supersessions

    def neighbours(self, card_ids: list[str]) -> list[tuple[str, str, str, float]]:
        """As :meth:`GraphStore.neighbours`: (from, relation, to, weight) around ``card_ids``."""
        ids, names, edges = self._ids, self._relation_names, []
        for card_id in card_ids:
            row = self.position.get(card_id)
            if row is None:
                continue
            start, end = self._offsets[row], self._offsets[row + 1]
            edges.extend((card_id, names[relation], ids[target], weight) for target, relation, weight in zip(
                self._targets[start:end].tolist(), self._relations[start:end].tolist(),
                self._weights[start:end].tolist()))
        return edges

    def card_entities(self, card_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """As :meth:`GraphStore.card_entities`: the entities each card mentions, by name; cards without absent."""
        known = [card_id for card_id in dict.fromkeys(card_ids) if card_id in self.position]
        return {card_id: entities for card_id, entities in
                zip(known, self._mentions.of([self.position[card_id] for card_id in known])) if entities}


class Mentions:
    """Which entities each card of a snapshot mentions: per card (by snapshot row) a run of entity rows, ordered
    as :meth:`GraphStore.card_entities` lists them (by name, case aside, then id)."""

    def __init__(self, offsets, entity_rows, entities: "pa.Table"):
        self._offsets, self._entity_rows, self._entities = offsets, entity_rows, entities

    @classmethod
    def none(cls, cards: int) -> "Mentions":
        import numpy as np
        import pyarrow as pa

        return cls(np.zeros(cards + 1, np.int64), np.zeros(0, np.int32), pa.table({"id": pa.array([], pa.string())}))

    @classmethod
    def read(cls, arrow, card_offsets: "pa.ChunkedArray", last: int | None) -> "Mentions":
        """Every ``MENTIONS`` edge as graph row numbers (sliced by card like the cards), mapped to the snapshot's
        card rows through ``card_offsets`` (each snapshot card's graph row number)."""
        import numpy as np

        cards = len(card_offsets)
        entities = arrow("MATCH (e:Entity) RETURN offset(id(e)) AS row, e.id AS id, e.name AS name, e.kind AS kind, "
                         "e.aliases AS aliases")
        if cards == 0 or entities.num_rows == 0:
            return cls.none(cards)
        names, ids = entities.column("name").to_pylist(), entities.column("id").to_pylist()
        entities = entities.take(sorted(range(len(ids)), key=lambda row: (names[row].casefold(), ids[row])))
        card_rows, entity_rows = _row_lookup(card_offsets.to_numpy()), _row_lookup(entities.column("row").to_numpy())
        card_of, entity_of = [], []
        for edges in _slices(arrow, "MATCH (c:Card)-[:MENTIONS]->(e:Entity) {where} RETURN offset(id(c)) AS card, "
                                    "offset(id(e)) AS entity", "c", last):
            # a slice's cards are one run of snapshot rows, in slice order: sorted slices join sorted
            at_card = _rows_at(card_rows, edges.column("card").to_numpy())
            at_entity = _rows_at(entity_rows, edges.column("entity").to_numpy())
            known = (at_card >= 0) & (at_entity >= 0)
            pairs = _distinct(at_card[known].astype(np.int64) * entities.num_rows + at_entity[known])
            card_part, entity_part = np.divmod(pairs, entities.num_rows)
            card_of.append(card_part.astype(np.int32))
            entity_of.append(entity_part.astype(np.int32))
        card_of = np.concatenate(card_of)
        offsets = np.searchsorted(card_of, np.arange(cards + 1)).astype(np.int64)
        return cls(offsets, np.concatenate(entity_of), entities.drop_columns(["row"]))

    def of(self, rows: list[int]) -> list[list[dict[str, Any]]]:
        """The entities of each card row, read in one take (one take per card was ~0.07 ms each)."""
        import numpy as np

        runs = [(int(self._offsets[row]), int(self._offsets[row + 1])) for row in rows]
        if not any(end > start for start, end in runs):
            return [[] for _ in rows]
        taken = self._entities.take(np.concatenate([self._entity_rows[start:end] for start, end in runs]))
        entities = [{"id": identifier, "name": name, "kind": kind, "aliases": list(aliases or [])}
                    for identifier, name, kind, aliases in zip(*(taken.column(field).to_pylist()
                                                                  for field in ("id", "name", "kind", "aliases")))]
        found, at = [], 0
        for start, end in runs:
            found.append(entities[at:at + end - start])
            at += end - start
        return found


class ReadStopped(Exception):
    """A snapshot read ended early because its owner is stopping."""


def _sliced(arrow, template: str, node: str, last: int | None) -> "pa.Table":
    """The slices of :func:`_slices`, joined."""
    import pyarrow as pa

    return pa.concat_tables(list(_slices(arrow, template, node, last)))


def _slices(arrow, template: str, node: str, last: int | None) -> "Iterator[pa.Table]":
    """``template`` (its ``{where}`` filled) run once per :data:`SLICE_CARDS` cards, by the node's offset in the
    card table, in that order: the graph holds a query's whole result in its buffer pool before handing it over,
    and a million cards' fields did not fit in the default 1,024 MB ("the buffer pool is full")."""
    if last is None:
        yield arrow(template.format(where=""))
        return
    for start in range(0, last + 1, SLICE_CARDS):
        yield arrow(template.format(
            where=f"WHERE offset(id({node})) >= {start} AND offset(id({node})) < {start + SLICE_CARDS}"))


def _supersessions(old: list[str], new: list[str], cards) -> dict[str, tuple[tuple[str, ...], list[str]]]:
    """Superseded card → (its sessions, the cards that replaced it), from ``SUPERSEDED_BY`` edges (old → new)."""
    sessions = {card_id: tuple(card["source_sessions"] or ())
                for card_id, card in cards(sorted(set(old)), content=False).items()}
    found: dict[str, tuple[tuple[str, ...], list[str]]] = {}
    for stale, replacing in zip(old, new):
        if stale in sessions:
            found.setdefault(stale, (sessions[stale], []))[1].append(replacing)
    return found


def _distinct(values: "Any") -> "Any":
    """The distinct values, sorted (``np.unique``): by a sort and a mask, since numpy 2.4's ``unique`` hashes first
    and took 1.0 s for the 1.47M mentions of an aged 100k store, against 0.08 s this way (half of a snapshot read,
    during which the owner server's first recalls after a start ran 40-380 ms instead of ~15)."""
    import numpy as np

    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) else ordered


def _row_lookup(offsets: "Any") -> "Any":
    """Graph row number → row of a table whose rows have the graph row numbers ``offsets`` (-1: none)."""
    import numpy as np

    mapping = np.full(int(offsets.max()) + 1, -1, np.int32)
    mapping[offsets] = np.arange(len(offsets), dtype=np.int32)
    return mapping


def _rows_at(lookup: "Any", wanted: "Any") -> "Any":
    """The rows of graph row numbers ``wanted`` through ``lookup``; -1 for one past it (written after the table
    was read)."""
    import numpy as np

    inside = wanted < len(lookup)
    return np.where(inside, lookup[np.where(inside, wanted, 0)], -1)


def _positions(values: "pa.ChunkedArray", ids: "pa.Array") -> "Any":
    """Row numbers of ``values`` in ``ids``, vectorised (a dict lookup per edge took ~0.5 s at 400k edges)."""
    import pyarrow.compute as pc

    return pc.index_in(values, value_set=ids).to_numpy(zero_copy_only=False)
