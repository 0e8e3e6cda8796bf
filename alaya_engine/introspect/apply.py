"""What approving a suggestion does, recorded in the L3 journal before the graph changes.

- ``merge_cards``: the better card (higher importance, then longer content) absorbs the other: union of
  source sessions and tags, the hotter temperature and tier, every edge re-pointed, the other card's vector
  deleted, and its id kept as an alias (``raw/aliases.json``) so ``trace``, ``card`` and ``recall --from-nodes``
  still accept it. When an LLM confirmed the merge, the kept card may take its merged title and content
  (``MergedText``).
- ``similar_to``: a ``SIMILAR_TO`` edge both ways.
- ``contradicts``: a ``CONTRADICTS`` edge both ways (both cards stay current: the sources disagree).
- ``merge_relations``: every ``CUSTOM`` edge named like the second relation is renamed to the first.
- ``split_relation``: acknowledged only; splitting a vague name needs a person to choose the new names.
- ``promote_relation``: the relation gets a rel table of its own and its ``CUSTOM`` edges move there
  (``GraphStore.promote_relation``); from then on it behaves as core in this store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.atomic import atomic_write_json
from ..foundations.domain import Card, Link, latest_facts
from ..foundations.errors import AlayaError
from ..foundations.relations import CUSTOM_TABLE, directed
from ..graph.store import facts_from_graph, to_millis
from ..raw.journal import Journal

if TYPE_CHECKING:
    from ..embedding.base import Embedder
    from ..graph.store import GraphStore
    from ..vectors.store import VectorStore


class Aliases:
    """Old card id → the card that absorbed it; chains are followed to the end."""

    def __init__(self, path: Path):
        self.path = path

    def load(self) -> dict[str, str]:
        return json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}

    def resolve(self, card_id: str) -> str:
        table = self.load()
        seen = set()
        while card_id in table and card_id not in seen:
            seen.add(card_id)
            card_id = table[card_id]
        return card_id

    def add(self, old: str, new: str) -> None:
        table = self.load()
        table[old] = new
        atomic_write_json(self.path, table)


@dataclass(frozen=True)
class MergedText:
    """A merged card's new title and/or content (from the LLM that confirmed the merge; checked by its parser).
    ``None`` keeps the kept card's own."""

    title: str | None = None
    content: str | None = None


def merge_cards(*, first: str, second: str, graph: "GraphStore", vectors: "VectorStore", embedder: "Embedder",
                journal: Journal, aliases: Aliases, now: int, text: MergedText | None = None) -> dict:
    """Merge two cards, named by any id they have had: a card merged away earlier stands for its absorber.

    ``text`` replaces the kept card's title and/or content; it is part of the journaled card, so a rebuild
    replays it.

    Re-running a merge that was killed half-way finishes it: every step is idempotent, and a card already
    deleted by a journaled merge whose alias was not yet written is completed from that journal event.
    """
    named = second
    first, second = aliases.resolve(first), aliases.resolve(second)
    if first == second:
        return {"kept": first, "merged": named, "edges_repointed": 0, "already_merged": True}
    cards = graph.cards([first, second])
    missing = [card_id for card_id in (first, second) if card_id not in cards]
    for card_id in missing:
        if _finish_interrupted_merge(card_id, graph, vectors, embedder, journal, aliases):
            return merge_cards(first=first, second=second, graph=graph, vectors=vectors, embedder=embedder,
                               journal=journal, aliases=aliases, now=now, text=text)
    if missing:
        raise AlayaError("unknown_card", f"card '{missing[0]}' is no longer in the store; reject this suggestion")
    keep, drop = keep_and_drop(cards[first], cards[second])
    merged = merged_card(keep, drop, now, text)
    edges = graph.edges_of(drop["id"])
    links = [Link(merged.id, e["card_id"], e["relation"], e["weight"] or 1.0, e["reason"] or "", now)
             for e in edges["outgoing"] if e["card_id"] != merged.id]
    links += [Link(e["card_id"], merged.id, e["relation"], e["weight"] or 1.0, e["reason"] or "", now)
              for e in edges["incoming"] if e["card_id"] != merged.id]
    links += [Link(merged.id, session, "EXTRACTED_FROM", created_at=now) for session in merged.source_sessions]
    journal.append("card.merge", now, keep=merged.id, drop=drop["id"], card=merged.to_json(),
                   links=[link.to_json() for link in links])
    graph.upsert_card(merged)
    for link in links:
        graph.merge_link(link)
    graph.delete_cards([drop["id"]])
    vectors.delete_cards([drop["id"]])
    if merged.tier != "COLD":
        vectors.upsert_cards([merged], embedder.embed([merged.embedding_text()]))
    aliases.add(drop["id"], merged.id)
    return {"kept": merged.id, "merged": drop["id"], "edges_repointed": len(links)}


TIER_HEAT = {"HOT": 2, "WARM": 1, "COLD": 0}


def keep_and_drop(first: dict, second: dict) -> tuple[dict, dict]:
    """Which of two cards (as the graph returns them) absorbs the other: the higher importance, then the longer
    content, then the smaller id."""
    keep, drop = sorted((first, second), key=lambda c: (-c["importance"], -len(c["content"]), c["id"]))
    return keep, drop


def merged_card(keep: dict, drop: dict, now: int, text: MergedText | None = None) -> Card:
    """The card a merge leaves: ``keep``'s id, type and text, both cards' tags, sessions and facts (the newest value
    of each), the earlier creation, and the hotter temperature and tier, so merging never cools live knowledge."""
    text = text or MergedText()
    tier = max((keep["tier"], drop["tier"]), key=lambda name: TIER_HEAT.get(name, -1))
    return Card(id=keep["id"], title=text.title or keep["title"], content=text.content or keep["content"],
                type=keep["type"],
                tags=list(dict.fromkeys([*keep["tags"], *drop["tags"]])), importance=keep["importance"],
                source_sessions=list(dict.fromkeys([*keep["source_sessions"], *drop["source_sessions"]])),
                created_at=to_millis(min(keep["created_at"], drop["created_at"])), updated_at=now,
                temperature=max(keep["temperature"], drop["temperature"]), tier=tier, source=keep["source"],
                facts=latest_facts(facts_from_graph(keep["facts"]) + facts_from_graph(drop["facts"])))


def _finish_interrupted_merge(drop: str, graph: "GraphStore", vectors: "VectorStore", embedder: "Embedder",
                              journal: Journal, aliases: Aliases) -> bool:
    """The tail of a merge killed after the graph lost ``drop``: its L1 rows and its alias."""
    event = None
    for candidate in journal.events("card.merge"):
        if candidate["drop"] == drop:
            event = candidate
    if event is None or not graph.cards([event["keep"]]):
        return False
    merged = Card.from_json(event["card"])
    vectors.delete_cards([drop])
    if merged.tier != "COLD":
        vectors.upsert_cards([merged], embedder.embed([merged.embedding_text()]))
    aliases.add(drop, merged.id)
    return True


def link_cards(*, first: str, second: str, relation: str, similarity: float, graph: "GraphStore", journal: Journal,
               now: int) -> dict:
    """An approved ``similar_to`` or ``contradicts``: the symmetric edge, both ways."""
    links = directed(Link(first, second, relation, similarity, f"introspect: cosine {similarity:.2f}", now))
    journal.append("link.add", now, links=[link.to_json() for link in links])
    for link in links:
        graph.merge_link(link)
    return {"linked": [first, second]}


def merge_relations(*, keep: str, drop: str, graph: "GraphStore", journal: Journal, now: int) -> dict:
    """Rename ``CUSTOM`` edges; a promoted relation has a table of its own and is refused, like a core one."""
    promoted = [name for name in (keep, drop) if name in graph.promoted_relations()]
    if promoted:
        raise AlayaError("relation_promoted", f"relation {promoted[0]} was promoted to a table of its own and "
                                              "cannot be merged any more; reject this suggestion")
    journal.append("relation.merge", now, keep=keep, drop=drop)
    renamed = graph.query(f"MATCH ()-[r:{CUSTOM_TABLE} {{type: $drop}}]->() SET r.type = $keep RETURN count(r)",
                          {"drop": drop, "keep": keep})[0][0]
    return {"kept": keep, "merged": drop, "edges_renamed": renamed}


def promote_relation(*, name: str, graph: "GraphStore", vectors: "VectorStore", journal: Journal, now: int) -> dict:
    """Journaled first (``relation.promote``), after the name is checked, so a rebuild creates the same table."""
    graph.check_promotable(name)
    journal.append("relation.promote", now, name=name)
    moved = graph.promote_relation(name)
    vectors.mark_core([name])
    return {"promoted": name, "edges_moved": moved}
