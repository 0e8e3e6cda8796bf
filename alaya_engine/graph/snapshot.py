"""GraphSnapshot: every card and card-to-card edge of the graph, read once and answered from memory.

Recall asks the graph the same two things every time — the edges around a set
of cards, and those cards' fields — five queries that cost 20-30 ms at 100k
cards. A snapshot answers both in well under a millisecond, with exactly the
results of :meth:`GraphStore.neighbours` and :meth:`GraphStore.cards`, so
recall can use either. The cards stay Arrow columns (~70 MB at 100k cards)
and the edges a compressed adjacency list (source-sorted numpy arrays).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .store import ARROW_CHUNK_ROWS, CARD_FIELDS

if TYPE_CHECKING:
    import pyarrow as pa

SLICE_CARDS = 100_000
"""Cards (and their outgoing edges) read per query when the snapshot is built."""
INVERSE = {"CAUSES": "CAUSED_BY", "CAUSED_BY": "CAUSES"}
"""Incoming edges read as their inverse (Y CAUSES X means X CAUSED_BY Y), as :meth:`GraphStore.neighbours` does."""


class GraphSnapshot:
    """The cards and card-to-card edges of one graph at one write generation."""

    def __init__(self, generation: int, cards: "pa.Table", edges: "pa.Table", session_times: dict[str, int]):
        """``cards`` has the columns :data:`CARD_FIELDS`; ``edges`` has ``source, relation, target, weight``
        with the relation already resolved (a custom edge's own name) and missing weights as 1.0;
        ``session_times`` maps each session to when it took place (ms)."""
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

    @classmethod
    def read(cls, connection, generation: int) -> "GraphSnapshot":
        """Read the whole graph through ``connection`` (a connection of its own, so the owner's keeps working)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        def arrow(cypher: str) -> pa.Table:
            return connection.execute(cypher).get_as_arrow(ARROW_CHUNK_ROWS)

        last = connection.execute("MATCH (c:Card) RETURN max(offset(id(c)))").get_next()[0]
        cards = _sliced(arrow, "MATCH (c:Card) {where} RETURN " + ", ".join(f"c.{name} AS {name}"
                                                                            for name in CARD_FIELDS), "c", last)
        rows = _sliced(arrow, "MATCH (a:Card)-[r]->(b:Card) {where} RETURN a.id AS source, label(r) AS label, "
                              "r.type AS custom, b.id AS target, r.weight AS weight", "a", last)
        edges = pa.table({"source": rows.column("source"),
                          "relation": pc.coalesce(rows.column("custom"), rows.column("label")),
                          "target": rows.column("target"),
                          "weight": pc.fill_null(rows.column("weight").cast(pa.float64()), 1.0)})
        sessions = arrow("MATCH (s:Session) WHERE s.timestamp IS NOT NULL RETURN s.id AS id, "
                         "CAST(to_epoch_ms(s.timestamp), 'INT64') AS at")
        return cls(generation, cards, edges, dict(zip(sessions.column("id").to_pylist(),
                                                      sessions.column("at").to_pylist())))

    def card_count(self) -> int:
        return len(self._ids)

    def cards(self, card_ids: list[str]) -> dict[str, dict[str, Any]]:
        """As :meth:`GraphStore.cards`: the cards with these ids (unknown ids absent), by id."""
        rows = [self.position[card_id] for card_id in dict.fromkeys(card_ids) if card_id in self.position]
        if not rows:
            return {}
        taken = self._cards.take(rows)
        columns = [taken.column(name).to_pylist() for name in CARD_FIELDS]
        return {values[0]: dict(zip(CARD_FIELDS, values)) for values in zip(*columns)}

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


def _sliced(arrow, template: str, node: str, last: int | None) -> "pa.Table":
    """``template`` (its ``{where}`` filled) run once per :data:`SLICE_CARDS` cards, by the node's offset in the
    card table, and the slices joined: the graph holds a query's whole result in its buffer pool before handing it
    over, and a million cards' fields did not fit in the default 1,024 MB ("the buffer pool is full")."""
    import pyarrow as pa

    if last is None:
        return arrow(template.format(where=""))
    return pa.concat_tables([arrow(template.format(
        where=f"WHERE offset(id({node})) >= {start} AND offset(id({node})) < {start + SLICE_CARDS}"))
        for start in range(0, last + 1, SLICE_CARDS)])


def _supersessions(old: list[str], new: list[str], cards) -> dict[str, tuple[tuple[str, ...], list[str]]]:
    """Superseded card → (its sessions, the cards that replaced it), from ``SUPERSEDED_BY`` edges (old → new)."""
    sessions = {card_id: tuple(card["source_sessions"] or ()) for card_id, card in cards(sorted(set(old))).items()}
    found: dict[str, tuple[tuple[str, ...], list[str]]] = {}
    for stale, replacing in zip(old, new):
        if stale in sessions:
            found.setdefault(stale, (sessions[stale], []))[1].append(replacing)
    return found


def _positions(values: "pa.ChunkedArray", ids: "pa.Array") -> "Any":
    """Row numbers of ``values`` in ``ids``, vectorised (a dict lookup per edge took ~0.5 s at 400k edges)."""
    import pyarrow.compute as pc

    return pc.index_in(values, value_set=ids).to_numpy(zero_copy_only=False)
