"""The selected result node in more detail: its id, how it was reached, the two distance terms, and its content
rendered as Markdown, as the card screen renders it (lists stay lists, ``**bold**`` is bold)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.widgets import Markdown, Static

from ..card_markdown import card_markdown
from ..formatting import number, unit_label

PREVIEW_CHARS = 2000
"""Enough content for the pane; the card screen shows all of it."""


def node_summary(node: dict, titles: dict[str, str]) -> str:
    """Content markup: title, id and kind, how it was reached (from which card, by its title when known), the
    distance terms and tags."""
    via = titles.get(node["via"] or "", node["via"] or "?")
    reached = "found by search" if node["matched_rel"] is None else f"{escape(node['matched_rel'])} from {escape(via)}"
    tags = ", ".join(node.get("tags") or []) or "—"
    return "\n".join([
        f"[b]{escape(node['title'])}[/b]",
        f"[$text-muted]{escape(node['card_id'])} · {unit_label(node['kind'])} · {escape(node['source'])}[/]",
        f"reached: {reached} · depth {node['depth']}",
        f"score {number(node['score'])} · concept {number(node['concept_distance'])} · "
        f"relation {number(node['relation_distance'])}",
        f"tags: {escape(tags)}",
    ])


class NodeDetail(VerticalScroll):
    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.node: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="node-summary")
        yield Markdown("", id="node-content", open_links=False)

    def show(self, node: dict | None, titles: dict[str, str] | None = None) -> None:
        """``titles``: card id → title of the cards seen on the way, to name the card a relation came from."""
        self.node = node
        self.query_one("#node-summary", Static).update(node_summary(node, titles or {}) if node else "")
        content = card_markdown(node["title"], node["content"][:PREVIEW_CHARS]) if node else ""
        self.query_one("#node-content", Markdown).update(content)
        self.scroll_home(animate=False)
