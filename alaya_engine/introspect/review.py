"""Introspect's suggestions as a person decides them: listed with their subjects' titles, shown with their
evidence, approved (applied exactly as an automatic change would be) or rejected."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..foundations.domain import millis_now
from ..foundations.errors import AlayaError
from ..raw.journal import Journal
from . import apply
from .suggestions import CARD_KINDS, STATUSES, SuggestionStore

if TYPE_CHECKING:
    from ..store_parts import StoreParts
    from .apply import MergedText


def merge_cards(store: StoreParts, first: str, second: str, text: MergedText | None = None) -> dict:
    """The one card merge: what approving a suggestion and an LLM-confirmed merge both run."""
    with store.step() as graph:
        return apply.merge_cards(first=first, second=second, graph=graph, vectors=store.vectors(),
                                 embedder=store.embedder(), journal=Journal(store.layout.journal),
                                 aliases=apply.Aliases(store.layout.aliases), now=millis_now(), text=text)


def review_list(store: StoreParts, status: str | None = None) -> dict:
    """Suggestions (of one status, or all) with their subjects' titles (``titles``: a card's title, ``None`` for
    a card gone since, a relation's name), so a list reads without one more call per suggestion."""
    if status is not None and status not in STATUSES:
        raise AlayaError("bad_status", f"unknown status '{status}'; use one of {', '.join(STATUSES)}")
    suggestions = [s.to_json() for s in SuggestionStore(store.layout.review).all(status)]
    card_ids = sorted({subject for s in suggestions if s["kind"] in CARD_KINDS for subject in s["subjects"]})
    cards: dict = {}
    if card_ids:
        with store.step() as graph:
            cards = graph.cards(card_ids)
    for suggestion in suggestions:
        suggestion["titles"] = ([cards[i]["title"] if i in cards else None for i in suggestion["subjects"]]
                                if suggestion["kind"] in CARD_KINDS else list(suggestion["subjects"]))
    return {"suggestions": suggestions, "count": len(suggestions)}


def review_show(store: StoreParts, suggestion_id: str) -> dict:
    suggestion = SuggestionStore(store.layout.review).get(suggestion_id).to_json()
    if suggestion["kind"] in CARD_KINDS:
        with store.step() as graph:
            cards = graph.cards(suggestion["subjects"])
        suggestion["cards"] = [{"id": c["id"], "title": c["title"], "type": c["type"], "content": c["content"]}
                               for c in (cards.get(i) for i in suggestion["subjects"]) if c]
    return suggestion


def review_decide(store: StoreParts, suggestion_ids: list[str], approve: bool) -> dict:
    """Approve (apply) or reject suggestions; each is decided on its own, in order.

    Deciding a suggestion the way it was already decided is reported (``already``) and changes nothing, so
    re-running an ``approve`` that was interrupted finishes it; reversing a decision is refused.
    """
    suggestions = SuggestionStore(store.layout.review)
    journal = Journal(store.layout.journal)
    decided = []
    for suggestion_id in suggestion_ids:
        suggestion = suggestions.get(suggestion_id)
        wanted = "approved" if approve else "rejected"
        if suggestion.status == wanted:
            decided.append({"id": suggestion.id, "kind": suggestion.kind, "status": wanted, "already": True})
            continue
        if suggestion.status != "pending":
            raise AlayaError("already_decided", f"suggestion {suggestion_id} is already {suggestion.status}")
        outcome: dict = {}
        if approve:
            now = millis_now()
            with store.step() as graph:
                if suggestion.kind == "merge_cards":
                    outcome = merge_cards(store, suggestion.subjects[0], suggestion.subjects[1])
                elif suggestion.kind == "similar_to":
                    outcome = apply.link_similar(first=suggestion.subjects[0], second=suggestion.subjects[1],
                                                 similarity=suggestion.evidence["similarity"], graph=graph,
                                                 journal=journal, now=now)
                elif suggestion.kind == "merge_relations":
                    outcome = apply.merge_relations(keep=suggestion.subjects[0], drop=suggestion.subjects[1],
                                                    graph=graph, journal=journal, now=now)
                elif suggestion.kind == "promote_relation":
                    outcome = apply.promote_relation(name=suggestion.subjects[0], graph=graph,
                                                     vectors=store.vectors(), journal=journal, now=now)
        suggestion.status = wanted
        suggestion.updated_at = millis_now()
        suggestions.save()
        decided.append({"id": suggestion.id, "kind": suggestion.kind, "status": suggestion.status, **outcome})
    return {"decided": decided}
