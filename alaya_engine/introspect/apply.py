"""What approving a suggestion does, recorded in the L3 journal before the graph changes.

- ``merge_cards``: the better card (higher importance, then longer content) absorbs the other: union of
  source sessions and tags, every edge re-pointed, the other card's vector deleted, and its id kept as an
  alias (``raw/aliases.json``) so ``trace``, ``card`` and ``recall --from-nodes`` still accept it.
- ``similar_to``: a ``SIMILAR_TO`` edge both ways.
- ``merge_relations``: every ``CUSTOM`` edge named like the second relation is renamed to the first.
- ``split_relation``: acknowledged only; splitting a vague name needs a person to choose the new names.
- ``promote_relation``: refused for now (it needs a new rel table at run time); the suggestion stays pending.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import atomic_write_json
from ..domain import Card, Link
from ..errors import AlayaError
from ..graph.store import to_millis
from ..raw.journal import Journal
from ..relations import directed

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


def merge_cards(*, first: str, second: str, graph: "GraphStore", vectors: "VectorStore", embedder: "Embedder",
                journal: Journal, aliases: Aliases, now: int) -> dict:
    cards = graph.cards([first, second])
    missing = [card_id for card_id in (first, second) if card_id not in cards]
    if missing:
        raise AlayaError("unknown_card", f"card '{missing[0]}' is no longer in the store; reject this suggestion")
    keep, drop = sorted((cards[first], cards[second]), key=lambda c: (-c["importance"], -len(c["content"]), c["id"]))
    merged = Card(id=keep["id"], title=keep["title"], content=keep["content"], type=keep["type"],
                  tags=list(dict.fromkeys([*keep["tags"], *drop["tags"]])), importance=keep["importance"],
                  source_sessions=list(dict.fromkeys([*keep["source_sessions"], *drop["source_sessions"]])),
                  created_at=to_millis(min(keep["created_at"], drop["created_at"])), updated_at=now,
                  temperature=max(keep["temperature"], drop["temperature"]), tier=keep["tier"], source=keep["source"])
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


def link_similar(*, first: str, second: str, similarity: float, graph: "GraphStore", journal: Journal,
                 now: int) -> dict:
    links = directed(Link(first, second, "SIMILAR_TO", similarity, f"introspect: cosine {similarity:.2f}", now))
    journal.append("link.add", now, links=[link.to_json() for link in links])
    for link in links:
        graph.merge_link(link)
    return {"linked": [first, second]}


def merge_relations(*, keep: str, drop: str, graph: "GraphStore", journal: Journal, now: int) -> dict:
    journal.append("relation.merge", now, keep=keep, drop=drop)
    renamed = graph.query("MATCH ()-[r:CUSTOM {type: $drop}]->() SET r.type = $keep RETURN count(r)",
                          {"drop": drop, "keep": keep})[0][0]
    return {"kept": keep, "merged": drop, "edges_renamed": renamed}
