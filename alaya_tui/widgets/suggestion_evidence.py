"""The selected suggestion's evidence: what approving it does, and its subjects side by side.

Card kinds show both cards (from the ``card`` call: type, tier, importance, edges, content); relation kinds show
each relation with its uses and the example edges the suggestion recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Markdown, Static

from alaya_engine.foundations.human import share_bar

from ..formatting import number
from .suggestion_table import KIND_LABELS

SIMILARITY_BAR = 10


@dataclass
class Side:
    """One subject of a suggestion as its panel shows it."""

    name: str
    """The card id or relation name (the panel's border title)."""
    heading: str
    meta: str = ""
    note: str = ""
    """A warning (a card already merged away, or gone)."""
    body: str = ""
    """Markdown."""


def effect(suggestion: dict) -> str:
    """One sentence: what approving this suggestion does to the store (see ``alaya_engine.introspect.apply``)."""
    kind, subjects = suggestion["kind"], suggestion["subjects"]
    if kind == "merge_cards":
        return ("Approve: the card with the higher importance (then the longer content) absorbs the other — "
                "tags and sessions united, every edge re-pointed, the other id kept as an alias.")
    if kind == "similar_to":
        return "Approve: a SIMILAR_TO edge between the two cards, both ways."
    if kind == "merge_relations":
        return f"Approve: every {subjects[1]} edge is renamed {subjects[0]}."
    if kind == "promote_relation":
        return (f"Approve: {subjects[0]} gets a relation table of its own, like a core relation, and every "
                f"{subjects[0]} edge moves there.")
    if kind == "split_relation":
        return (f"Approve only acknowledges it: choosing finer names for {subjects[0]} is up to you "
                "(alaya link --rel NAME).")
    return ""


def headline(suggestion: dict) -> str:
    """Content markup: the kind, the similarity with its bar, the id."""
    parts = [f"[b]{escape(KIND_LABELS.get(suggestion['kind'], suggestion['kind']))}[/b]"]
    similarity = suggestion["evidence"].get("similarity")
    if similarity is not None:
        parts.append(f"similarity [b]{similarity:.2f}[/b] [$accent]{share_bar(similarity, SIMILARITY_BAR)}[/]")
    parts.append(f"[$text-muted]{escape(suggestion['id'])}[/]")
    return " · ".join(parts)


def card_side(subject: str, document: dict | None) -> Side:
    """A card of a pair; ``document`` is the ``card`` call's, None when the card is gone."""
    if document is None:
        return Side(subject, subject, note="This card is no longer in the store: reject this suggestion.")
    card = document["card"]
    edges = len(document.get("outgoing", [])) + len(document.get("incoming", []))
    tags = "  ".join(f"#{tag}" for tag in card.get("tags") or [])
    meta = (f"{card['type']} · {card['tier']} · importance {number(card.get('importance'))} · "
            f"{edges} {'edge' if edges == 1 else 'edges'}")
    return Side(subject, card["title"], meta + (f"\n{tags}" if tags else ""),
                note=f"already merged into {card['id']}" if card["id"] != subject else "",
                body=card["content"])


def relation_side(suggestion: dict, name: str) -> Side:
    """A relation of a relation suggestion, with the example edges its evidence recorded."""
    kind, evidence = suggestion["kind"], suggestion["evidence"]
    uses = evidence.get("uses")
    count = uses.get(name, 0) if isinstance(uses, dict) else uses
    meta = "custom relation" + (f" · {count:,} {'use' if count == 1 else 'uses'}" if count is not None else "")
    if kind == "merge_relations":
        keep = suggestion["subjects"][0]
        meta += " · kept" if name == keep else f" · renamed to {keep}"
    examples = evidence.get("examples")
    if isinstance(examples, dict):
        examples = examples.get(name)
    if examples:
        body = "**Example edges**\n\n" + "\n".join(f"- {example}" for example in examples)
    elif kind == "promote_relation":
        body = ""
    else:
        body = "*No example edges: introspect records them for split suggestions only.*"
    return Side(name, name, meta, body=body)


def sides(suggestion: dict, cards: list[dict | None]) -> list[Side]:
    if cards:
        return [card_side(subject, document) for subject, document in zip(suggestion["subjects"], cards)]
    return [relation_side(suggestion, name) for name in suggestion["subjects"]]


class SubjectPanel(VerticalScroll):
    """One side of the comparison, scrollable for long contents."""

    def compose(self) -> ComposeResult:
        yield Static("", classes="subject-heading", markup=False)
        yield Static("", classes="subject-meta", markup=False)
        yield Static("", classes="subject-note", markup=False)
        yield Markdown("", classes="subject-body")

    async def show(self, side: Side) -> None:
        self.border_title = side.name
        self.query_one(".subject-heading", Static).update(side.heading)
        self.query_one(".subject-meta", Static).update(side.meta)
        note = self.query_one(".subject-note", Static)
        note.update(side.note)
        note.display = bool(side.note)
        await self.query_one(".subject-body", Markdown).update(side.body)
        self.scroll_home(animate=False)


class SuggestionEvidence(Vertical):
    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.suggestion: dict | None = None
        self.sides: list[Side] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="evidence-head")
        yield Static("", id="evidence-effect", markup=False)
        with Horizontal(id="evidence-sides"):
            yield SubjectPanel(id="subject-first", classes="subject")
            yield SubjectPanel(id="subject-second", classes="subject")

    def show_message(self, message: str) -> None:
        """No suggestion to show (none pending, or still loading)."""
        self.suggestion, self.sides = None, []
        self.query_one("#evidence-head", Static).update(escape(message))
        self.query_one("#evidence-effect", Static).update("")
        self.query_one("#evidence-sides").display = False

    async def show(self, suggestion: dict, cards: list[dict | None]) -> None:
        """``cards``: the ``card`` documents of a card suggestion's subjects; empty for a relation suggestion."""
        self.suggestion, self.sides = suggestion, sides(suggestion, cards)
        self.query_one("#evidence-head", Static).update(headline(suggestion))
        self.query_one("#evidence-effect", Static).update(effect(suggestion))
        panels = list(self.query(SubjectPanel))
        for panel, side in zip(panels, [*self.sides, None]):
            panel.display = side is not None
            if side is not None:
                await panel.show(side)
        self.query_one("#evidence-sides").display = True
