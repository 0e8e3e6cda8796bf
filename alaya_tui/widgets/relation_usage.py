"""Relation usage from the ``schema`` call: the core relations, then the custom ones by use, with the hints."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from alaya_engine.foundations.human import share_bar

BAR_WIDTH = 10


def relation_rows(report: dict) -> list[dict]:
    """The ``relations`` document's entries as shown: core first (in the engine's order), then custom."""
    return [*report["core"], *report["custom"]]


class RelationUsage(Static):
    COMPONENT_CLASSES = {"relation-usage--core", "relation-usage--custom", "relation-usage--hint",
                         "relation-usage--muted"}

    def __init__(self, *, id: str | None = None):
        super().__init__("loading…", id=id)
        self.report: dict | None = None

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def show(self, report: dict) -> None:
        self.report = report
        self._redraw()

    def _redraw(self) -> None:
        if self.report is None:
            return
        hint = self.get_component_rich_style("relation-usage--hint", partial=True)
        muted = self.get_component_rich_style("relation-usage--muted", partial=True)
        table = Table(box=None, expand=True, padding=(0, 1), show_edge=False, header_style=muted)
        table.add_column("Relation", no_wrap=True)
        table.add_column("Kind", no_wrap=True)
        table.add_column("Uses", justify="right", no_wrap=True)
        table.add_column("Share", no_wrap=True)
        table.add_column("Hint", style=hint, ratio=1, no_wrap=True, overflow="ellipsis")
        total = self.report["total_edges"] or 1
        for usage in relation_rows(self.report):
            kind = "core" if usage["is_core"] else "custom"
            tone = self.get_component_rich_style(f"relation-usage--{kind}", partial=True)
            table.add_row(Text(usage["name"], style=tone if usage["uses"] else muted), Text(kind, style=muted),
                          f"{usage['uses']:,}", Text(share_bar(usage["uses"] / total, BAR_WIDTH), style=tone),
                          usage["hint"] or "")
        self.update(table)
