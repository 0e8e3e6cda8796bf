"""Bring L2 and L1 to what L3 describes after a pull brought other machines' journal events or records.

Another machine's link, merge or forgetting is replayed, not re-run: the replay of the whole L3 (``replay.py``, the
same one a rebuild and verify use) says which cards and links the graph must hold, and only the difference is
written — cards added or changed (and embedded), cards and links gone. Two machines holding the same L3 then hold
the same graph, whatever order their events arrived in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..introspect.apply import Aliases
from ..maintenance.replay import replay

if TYPE_CHECKING:
    from ..foundations.domain import Card
    from ..store_parts import StoreParts


def _same(live: Card, wanted: Card) -> bool:
    return (live.title, live.content, live.type, live.tags, live.source_sessions) == \
        (wanted.title, wanted.content, wanted.type, wanted.tags, wanted.source_sessions)


def converge(parts: StoreParts) -> dict:
    """Write the difference between the graph and the replay of L3; returns what changed."""
    state = replay(parts.layout)
    vectors = parts.vectors()
    with parts.step() as graph:
        live_cards = {card.id: card for card in graph.all_cards()}
        live_links = {link.key: link for link in graph.all_links()}
        gone = sorted(live_cards.keys() - state.cards.keys())
        fresh = [card for card_id, card in state.cards.items()
                 if card_id not in live_cards or not _same(live_cards[card_id], card)]
        for name in sorted(state.promoted - graph.promoted_relations()):
            graph.promote_relation(name)
        with graph.transaction():
            graph.delete_cards(gone)
            for card in fresh:
                graph.upsert_card(card)
            for key in live_links.keys() - state.links.keys():
                if live_links[key].source not in gone:
                    graph.delete_link(live_links[key])
            graph.merge_links([link for key, link in state.links.items() if key not in live_links])
        if gone:
            vectors.delete_cards(gone)
        embedded = [card for card in fresh if card.tier != "COLD"]
        if embedded:
            vectors.upsert_cards(embedded, parts.embedder().embed([card.embedding_text() for card in embedded]))
        if gone or fresh:
            vectors.refresh_full_text_index()
    aliases = Aliases(parts.layout.aliases)
    for drop, keep in state.aliases.items():
        if aliases.resolve(drop) == drop:
            aliases.add(drop, keep)
    return {"cards_added_or_changed": len(fresh), "cards_removed": len(gone),
            "links_added": len(state.links.keys() - live_links.keys()),
            "links_removed": len(live_links.keys() - state.links.keys())}
