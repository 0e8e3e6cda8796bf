"""Entity nodes and ``MENTIONS`` edges, kept as a function of the cards in the graph.

Every ``MENTIONS`` edge (Card → Entity) carries the name the card used and the kind it read it as; an entity's
shown name, aliases and kind are recomputed from its edges, and an entity no card mentions any more is deleted.
So the entities are derived from the cards alone, and a rebuild (which bulk-loads the same cards through
:func:`plan_entities`) makes the same ones without any journal event. The one thing that carries over between
cards is an alias a text declared ("you can call me X"): later mentions of X go to the declaring name's entity,
and an entity already made for X is folded into it (:class:`AliasBook`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..foundations.entities import (
    ENTITY_ID_PREFIX,
    KIND_RANK,
    Entity,
    Reading,
    best_name,
    entity_id,
    entity_key,
    stronger_kind,
)

if TYPE_CHECKING:
    from ..foundations.domain import Card


class Queries(Protocol):
    """What the writer needs of the graph (:class:`.store.GraphStore`, which imports this module)."""

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> list[list[Any]]: ...

EntityReader = Callable[["Card"], Reading]
"""What the graph calls to read a card's entities (set by the engine: the reader lives above this layer)."""

ENTITY_DDL = ("CREATE NODE TABLE IF NOT EXISTS Entity(id STRING, name STRING, kind STRING, aliases STRING[], "
                "PRIMARY KEY(id))")
MENTIONS_DDL = "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Card TO Entity, name STRING, kind STRING)"


@dataclass(frozen=True)
class Edge:
    """One ``MENTIONS`` edge: the card, the entity, the name the card used and the kind it read it as."""

    card: str
    entity: str
    name: str
    kind: str


class AliasBook:
    """Alias key → entity id, for the aliases texts declared (a name whose key differs from its entity's)."""

    def __init__(self, aliases: dict[str, str] | None = None):
        self.aliases = dict(aliases or {})

    @classmethod
    def of(cls, entities: Iterable[tuple[str, list[str]]]) -> "AliasBook":
        book = cls()
        for identifier, aliases in entities:
            book.note(identifier, aliases)
        return book

    def note(self, identifier: str, aliases: list[str]) -> None:
        """Keep ``aliases`` of the entity ``identifier`` that have a key of their own."""
        for alias in aliases:
            key = entity_key(alias)
            if key and entity_id(key) != identifier:
                self.aliases.setdefault(key, identifier)

    def forget(self, identifier: str) -> None:
        for key in [key for key, target in self.aliases.items() if target == identifier]:
            del self.aliases[key]

    def id_of(self, name: str) -> str:
        key = entity_key(name)
        return self.aliases.get(key, entity_id(key))

    def declare(self, alias: str, name: str) -> tuple[str, str] | None:
        """Say ``alias`` names ``name``'s entity. Returns (entity folded, entity it folds into) when the alias had
        an entity of its own; None otherwise. An alias already declared for another entity keeps the first."""
        target, key = self.id_of(name), entity_key(alias)
        if not key or entity_id(key) == target or key in self.aliases:
            return None
        own = entity_id(key)
        self.aliases[key] = target
        for other, pointed in list(self.aliases.items()):
            if pointed == own:
                self.aliases[other] = target
        return own, target


def read_edges(card_id: str, reading: Reading, book: AliasBook) -> tuple[list[Edge], list[tuple[str, str]]]:
    """A card's edges, its declared aliases applied first; and the entities those declarations fold."""
    folds = [fold for alias, name in reading.aliases if (fold := book.declare(alias, name))]
    seen: dict[tuple[str, str], Edge] = {}
    for mention in reading.mentions:
        if entity_key(mention.name):
            edge = Edge(card_id, book.id_of(mention.name), mention.name, mention.kind)
            seen.setdefault((edge.entity, edge.name), edge)
    return list(seen.values()), folds


def summarise(identifier: str, names: Iterable[str], kinds: Iterable[str]) -> Entity:
    """An entity from the names and kinds its edges carry (see :func:`.foundations.entities.best_name`)."""
    names = {name for name in names if name}
    key = identifier[len(ENTITY_ID_PREFIX):]
    shown = best_name(names, key)
    kind = "other"
    for candidate in kinds:
        if candidate in KIND_RANK:
            kind = stronger_kind(kind, candidate)
    return Entity(identifier, shown, kind, sorted(names - {shown}))


def plan_entities(readings: Iterable[tuple[str, Reading]]) -> tuple[list[Entity], list[Edge]]:
    """The entities and edges of cards written one after another into an empty graph: what a bulk load copies."""
    book = AliasBook()
    edges: dict[str, list[Edge]] = {}
    for card_id, reading in readings:
        found, folds = read_edges(card_id, reading, book)
        for folded, into in folds:
            edges.setdefault(into, []).extend(Edge(edge.card, into, edge.name, edge.kind)
                                              for edge in edges.pop(folded, ()))
        for edge in found:
            edges.setdefault(edge.entity, []).append(edge)
    entities, flat = [], []
    for identifier in sorted(edges):
        unique = list({(edge.card, edge.name): edge for edge in edges[identifier]}.values())
        entities.append(summarise(identifier, (edge.name for edge in unique), (edge.kind for edge in unique)))
        flat.extend(unique)
    return entities, flat


class EntityWriter:
    """The entity part of one open graph: writes a card's edges, folds aliased entities, drops orphans.

    Holds the alias book of the graph (read once; only this class changes entities, so it stays true), dropped
    after a rollback.
    """

    def __init__(self, graph: Queries, reader: EntityReader):
        self.graph = graph
        self.reader = reader
        self._book: AliasBook | None = None

    def book(self) -> AliasBook:
        if self._book is None:
            rows = self.graph.query("MATCH (e:Entity) WHERE size(e.aliases) > 0 RETURN e.id, e.aliases")
            self._book = AliasBook.of((identifier, list(aliases)) for identifier, aliases in rows)
        return self._book

    def reset(self) -> None:
        self._book = None

    def write(self, cards: list["Card"]) -> None:
        """Replace these cards' ``MENTIONS`` with what their text says now."""
        if not cards:
            return
        ids = [card.id for card in cards]
        before = self.mentioned_by(ids)
        if before:
            self.graph.query("MATCH (c:Card)-[r:MENTIONS]->(:Entity) WHERE c.id IN $ids DELETE r", {"ids": ids})
        book = self.book()
        edges: list[Edge] = []
        folds: list[tuple[str, str]] = []
        for card in cards:
            found, folded = read_edges(card.id, self.reader(card), book)
            edges.extend(found)
            folds.extend(folded)
        shrunk = set(before)  # entities that may have lost names: recomputed from all their edges
        for folded, into in folds:
            rows = self.graph.query("MATCH (c:Card)-[m:MENTIONS]->(:Entity {id: $id}) RETURN c.id, m.name, m.kind",
                                    {"id": folded})
            edges.extend(Edge(card_id, into, name, kind) for card_id, name, kind in rows)
            self.graph.query("MATCH (e:Entity {id: $id}) DETACH DELETE e", {"id": folded})
            shrunk.discard(folded)
            shrunk.add(into)
        redirect: dict[str, str] = {}
        for folded, into in folds:
            redirect = {old: (into if new == folded else new) for old, new in redirect.items()}
            redirect[folded] = into
        edges = list({(e.card, redirect.get(e.entity, e.entity), e.name):
                      Edge(e.card, redirect.get(e.entity, e.entity), e.name, e.kind) for e in edges}.values())
        if edges:
            self.graph.query("UNWIND $ids AS x MERGE (e:Entity {id: x})", {"ids": sorted({e.entity for e in edges})})
            self.graph.query("UNWIND $rows AS row MATCH (c:Card {id: row.card}) MATCH (e:Entity {id: row.entity}) "
                             "CREATE (c)-[:MENTIONS {name: row.name, kind: row.kind}]->(e)",
                             {"rows": [edge.__dict__ for edge in edges]})
        self.extend([edge for edge in edges if edge.entity not in shrunk])
        self.refresh(sorted(shrunk))

    def extend(self, edges: list[Edge]) -> None:
        """Add the names and kinds of new ``edges`` to their entities: what :meth:`refresh` would make when edges
        were only added (an entity's name and aliases are all its edges' names, its kind the strongest of theirs),
        without reading every edge of an entity a thousand cards mention."""
        if not edges:
            return
        added: dict[str, list[Edge]] = {}
        for edge in edges:
            added.setdefault(edge.entity, []).append(edge)
        rows = self.graph.query("UNWIND $ids AS x MATCH (e:Entity {id: x}) RETURN e.id, e.name, e.kind, e.aliases",
                                {"ids": sorted(added)})
        book, updates = self.book(), []
        for identifier, name, kind, aliases in rows:
            names = [*([name] if name else []), *(aliases or []), *(edge.name for edge in added[identifier])]
            kinds = [*([kind] if kind else []), *(edge.kind for edge in added[identifier])]
            entity = summarise(identifier, names, kinds)
            book.note(identifier, entity.aliases)
            updates.append(entity.to_json())
        self.graph.query("UNWIND $rows AS row MATCH (e:Entity {id: row.id}) "
                         "SET e.name = row.name, e.kind = row.kind, e.aliases = row.aliases", {"rows": updates})

    def forget(self, card_ids: list[str]) -> list[str]:
        """Before these cards are deleted: the entities they mention (to :meth:`refresh` afterwards)."""
        return self.mentioned_by(card_ids)

    def mentioned_by(self, card_ids: list[str]) -> list[str]:
        if not card_ids:
            return []
        rows = self.graph.query("UNWIND $ids AS x MATCH (c:Card {id: x}) OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity) "
                                "WITH e WHERE e IS NOT NULL RETURN DISTINCT e.id", {"ids": card_ids})
        return [identifier for (identifier,) in rows]

    def refresh(self, identifiers: list[str]) -> None:
        """Recompute these entities from their edges; delete those no card mentions. Each distinct name and kind
        is collected once: an entity a hundred thousand cards mention (a user's name, a store's main service) made
        the plain collect fill the graph's whole buffer pool when a million-card store forgot a few cards."""
        if not identifiers:
            return
        book = self.book()
        rows = self.graph.query("UNWIND $ids AS x MATCH (e:Entity {id: x}) OPTIONAL MATCH (:Card)-[m:MENTIONS]->(e) "
                                "RETURN e.id, collect(DISTINCT m.name), collect(DISTINCT m.kind)", {"ids": identifiers})
        orphans, updates = [], []
        for identifier, names, kinds in rows:
            names = [name for name in names or () if name]
            book.forget(identifier)
            if not names:
                orphans.append(identifier)
                continue
            entity = summarise(identifier, names, [kind for kind in kinds or () if kind])
            book.note(identifier, entity.aliases)
            updates.append(entity.to_json())
        if orphans:
            self.graph.query("UNWIND $ids AS x MATCH (e:Entity {id: x}) DETACH DELETE e", {"ids": orphans})
        if updates:
            self.graph.query("UNWIND $rows AS row MATCH (e:Entity {id: row.id}) "
                             "SET e.name = row.name, e.kind = row.kind, e.aliases = row.aliases", {"rows": updates})
