"""What a person opening the memory wants first: the newest sessions, the HOT cards, the suggestions waiting.

The explorer's home screen is rendered from this document (``overview``), so it answers in one call and stays
small: a few sessions and cards, and the pending review count, whatever the store's size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..introspect.suggestions import SuggestionStore

if TYPE_CHECKING:
    from ..store_parts import StoreParts

RECENT_SESSIONS = 8
HOT_CARDS = 10


def store_overview(store: StoreParts, sessions: int = RECENT_SESSIONS, cards: int = HOT_CARDS) -> dict:
    """``{"sessions": [...], "hot_cards": [...], "pending_review": N}``, newest and hottest first."""
    with store.step() as graph:
        recent = graph.recent_sessions(sessions)
        hottest = graph.hottest_cards(cards)
    pending = len(SuggestionStore(store.layout.review).all("pending"))
    return {"sessions": recent, "hot_cards": hottest, "pending_review": pending}
