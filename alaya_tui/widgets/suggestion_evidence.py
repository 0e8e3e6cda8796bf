"""The selected suggestion's evidence: what approving it does, and its subjects side by side.

Card kinds show both cards (from the ``card`` call: type, tier, importance, edges, content); relation kinds show
each relation with its uses and the example edges the suggestion recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Markdown, Static

from alaya_engine.foundations.human import share_bar

from ..formatting import number
from ..word_diff import word_diff
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
        return ("Approve: one card absorbs the other (edges re-pointed, the old id an alias); what differs is "
                "marked word by word below.")
    if kind == "similar_to":
        return "Approve: a SIMILAR_TO edge between the two cards, both ways."
    if kind == "contradicts":
        return ("The two sources disagree and neither replaced the other: approve records CONTRADICTS between them, "
                "both ways; both stay current. Left: said later.")
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
    sessions = ", ".join(card.get("source_sessions") or []) or "no session"
    meta = (f"{card['type']} · {card['tier']} · temperature {number(card.get('temperature'))} · "
            f"importance {number(card.get('importance'))} · {edges} {'edge' if edges == 1 else 'edges'}\n"
            f"created {card['created_at'][:10]} · updated {card['updated_at'][:10]} · {sessions}")
    return Side(subject, card["title"], meta + (f"\n{tags}" if tags else ""),
                note=f"already merged into {card['id']}" if card["id"] != subject else "",
                body=card["content"])


def merged_line(merged: dict | None) -> str:
    """What approving a card merge leaves, from ``review.show``'s ``merged``: the card that stays and its heat."""
    if not merged:
        return ""
    card = merged["card"]
    sessions = len(card.get("source_sessions") or [])
    return (f"Merged: {merged['kept']} absorbs {merged['absorbed']} · {card['tier']} · "
            f"temperature {number(card['temperature'])} · importance {number(card['importance'])} · "
            f"{sessions} {'session' if sessions == 1 else 'sessions'} · {len(card.get('tags') or [])} tags")


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
    """One side of the comparison, scrollable for long contents: the body as Markdown, or compared word by word
    with the other side's (``diff``). The contents come right under the title and the figures (type, tier, dates)
    after them: at 80×24 the panel has room for a few lines, and the difference is what a person decides on."""

    def compose(self) -> ComposeResult:
        yield Static("", classes="subject-heading", markup=False)
        yield Static("", classes="subject-note", markup=False)
        yield Markdown("", classes="subject-body")
        yield Static("", classes="subject-diff")
        yield Static("", classes="subject-meta", markup=False)

    async def show(self, side: Side, diff: Text | None = None) -> None:
        self.border_title = side.name
        self.query_one(".subject-heading", Static).update(side.heading)
        self.query_one(".subject-meta", Static).update(side.meta)
        note = self.query_one(".subject-note", Static)
        note.update(side.note)
        note.display = bool(side.note)
        body, compared = self.query_one(".subject-body", Markdown), self.query_one(".subject-diff", Static)
        body.display, compared.display = diff is None, diff is not None
        if diff is None:
            await body.update(side.body)
        else:
            compared.update(diff)
        self.scroll_home(animate=False)


class SuggestionEvidence(Vertical):
    COMPONENT_CLASSES = {"suggestion-evidence--removed", "suggestion-evidence--added"}

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

    async def show(self, suggestion: dict, cards: list[dict | None], merged: dict | None = None) -> None:
        """``cards``: the ``card`` documents of a card suggestion's subjects; empty for a relation suggestion.
        ``merged``: what approving a card merge leaves (``review.show``'s ``merged``)."""
        self.suggestion, self.sides = suggestion, sides(suggestion, cards)
        self.query_one("#evidence-head", Static).update(headline(suggestion))
        self.query_one("#evidence-effect", Static).update("\n".join(filter(None, [effect(suggestion),
                                                                                  merged_line(merged)])))
        diffs: list[Text | None] = [None, None]
        if len(cards) == 2 and all(cards):
            first, second = (document["card"]["content"] for document in cards)
            diffs = list(word_diff(first, second,
                                   self.get_component_rich_style("suggestion-evidence--removed", partial=True),
                                   self.get_component_rich_style("suggestion-evidence--added", partial=True)))
        panels = list(self.query(SubjectPanel))
        for panel, side, diff in zip(panels, [*self.sides, None], [*diffs, None]):
            panel.display = side is not None
            if side is not None:
                await panel.show(side, diff)
        self.query_one("#evidence-sides").display = True
