"""Introspect's suggestions as a person decides them: listed with their subjects' titles, shown with their
evidence, approved (applied exactly as an automatic change would be) or rejected."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..foundations.domain import millis_now
from ..foundations.errors import AlayaError
from ..raw.journal import Journal
from . import apply
from .suggestions import CARD_KINDS, STATUSES, SuggestionStore

LINKED_KINDS = {"similar_to": "SIMILAR_TO", "contradicts": "CONTRADICTS"}
"""Suggestion kinds whose approval links the two cards, and the relation it links them with."""

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
    """One suggestion with its cards; a pending card merge also says what the merged card would be (``merged``:
    the kept id, the absorbed id and the card), by the rule approving it applies."""
    suggestion = SuggestionStore(store.layout.review).get(suggestion_id).to_json()
    if suggestion["kind"] in CARD_KINDS:
        with store.step() as graph:
            cards = graph.cards(suggestion["subjects"])
        suggestion["cards"] = [{"id": c["id"], "title": c["title"], "type": c["type"], "content": c["content"]}
                               for c in (cards.get(i) for i in suggestion["subjects"]) if c]
        if suggestion["kind"] == "merge_cards" and suggestion["status"] == "pending" and len(cards) == 2:
            keep, drop = apply.keep_and_drop(*cards.values())
            merged = apply.merged_card(keep, drop, millis_now())
            suggestion["merged"] = {"kept": keep["id"], "absorbed": drop["id"], "card": merged.to_json()}
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
                elif suggestion.kind in LINKED_KINDS:
                    outcome = apply.link_cards(first=suggestion.subjects[0], second=suggestion.subjects[1],
                                               relation=LINKED_KINDS[suggestion.kind],
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
        item = {"id": suggestion.id, "kind": suggestion.kind, "status": suggestion.status, **outcome}
        decided.append({**item, **explain(item, suggestion.subjects)})
    return {"decided": decided}


def explain(item: dict, subjects: list[str]) -> dict:
    """What a decision changed and what to do next, in words every face prints as they are."""
    kind, sid = item["kind"], item["id"]
    if item["status"] == "rejected":
        return {"changed": "nothing in the store changed; this suggestion is never proposed again",
                "next": f"alaya review undo {sid} reopens it"}
    if kind == "merge_cards":
        return {"changed": f"{item['merged']} merged into {item['kept']} ({item['edges_repointed']} edges re-pointed; "
                           "the old id still leads to it)",
                "next": f"see the merged card: alaya trace {item['kept']}"}
    if kind in LINKED_KINDS:
        first, second, relation = *subjects, LINKED_KINDS[kind]
        return {"changed": f"{first} and {second} are linked {relation}, both ways",
                "next": f"recall follows it: alaya recall --from-nodes {first} --rel {relation} --depth 1"}
    if kind == "merge_relations":
        return {"changed": f"{item['edges_renamed']} {item['merged']} edges renamed {item['kept']}",
                "next": f"its uses now: alaya schema --relations ({item['kept']})"}
    if kind == "promote_relation":
        return {"changed": f"{item['promoted']} has a relation table of its own and behaves as a core relation "
                           f"here ({item['edges_moved']} edges moved there)",
                "next": f"link with it as with any core relation: alaya link A B --rel {item['promoted']}"}
    name = subjects[0]
    return {"changed": f"nothing in the store changed: {name} stays as it is and this suggestion is settled",
            "next": f"give its edges finer names by hand: alaya link A B --rel NEW_NAME --new-relation "
                    f"(alaya recall --rel {name} finds them); alaya review undo {sid} reopens it"}


UNDOABLE = "a rejection, or an approved split_relation (which changed nothing in the store)"


def review_undo(store: StoreParts, suggestion_id: str | None = None) -> dict:
    """Put the last decision (or the decision on ``suggestion_id``) back to pending.

    Only decisions that changed nothing in the store can be undone: a rejection, or an approved ``split_relation``.
    An approved merge or link rewrote cards and edges (journaled in L3); undoing it would need its own inverse
    change, so it is refused with what to do instead.
    """
    suggestions = SuggestionStore(store.layout.review)
    decided = [s for s in suggestions.all() if s.status != "pending"]
    if suggestion_id is not None:
        suggestion = suggestions.get(suggestion_id)
        if suggestion.status == "pending":
            raise AlayaError("not_decided", f"suggestion {suggestion_id} is still pending: nothing to undo")
    elif not decided:
        raise AlayaError("nothing_to_undo", "no suggestion has been decided yet: nothing to undo")
    else:
        suggestion = max(decided, key=lambda s: (s.updated_at, s.id))
    if not (suggestion.status == "rejected" or suggestion.kind == "split_relation"):
        raise AlayaError("cannot_undo", f"approving {suggestion.kind} {suggestion.id} changed the store and cannot be "
                                        f"undone here (only {UNDOABLE} can)")
    previous = suggestion.status
    suggestion.status = "pending"
    suggestion.updated_at = millis_now()
    suggestions.save()
    return {"undone": {"id": suggestion.id, "kind": suggestion.kind, "status": "pending", "was": previous}}
