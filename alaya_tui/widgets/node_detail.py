"""The selected result node in more detail: its id, how it was reached, the two distance terms, a preview."""

from __future__ import annotations

from textual.markup import escape
from textual.widgets import Static

from ..formatting import number, shorten

PREVIEW_CHARS = 320


class NodeDetail(Static):
    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id)
        self.node: dict | None = None

    def show(self, node: dict | None) -> None:
        self.node = node
        if node is None:
            self.update("")
            return
        reached = ("found by search" if node["matched_rel"] is None
                   else f"{escape(node['matched_rel'])} from {escape(node['via'] or '?')}")
        tags = ", ".join(node.get("tags") or []) or "—"
        lines = [
            f"[b]{escape(node['title'])}[/b]",
            f"[$text-muted]{escape(node['card_id'])} · {escape(node['source'])}[/]",
            f"reached: {reached} · depth {node['depth']}",
            f"score {number(node['score'])} · concept {number(node['concept_distance'])} · "
            f"relation {number(node['relation_distance'])}",
            f"tags: {escape(tags)}",
            "",
            f"[$text-muted]{escape(shorten(node['content'], PREVIEW_CHARS))}[/]",
        ]
        self.update("\n".join(lines))
