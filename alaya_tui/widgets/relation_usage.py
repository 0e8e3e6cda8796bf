"""Relation usage from the ``schema`` call: the core relations, then the custom ones by use, with the hints."""

from __future__ import annotations

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.geometry import Region

from alaya_engine.foundations.human import share_bar

from .row_cursor import RowCursor

BAR_WIDTH = 10


def relation_rows(report: dict) -> list[dict]:
    """The ``relations`` document's entries as shown: core first (in the engine's order), then custom."""
    return [*report["core"], *report["custom"]]


class RelationUsage(RowCursor):
    """Enter on a relation posts :class:`RowCursor.Chosen` (the tiers screen lists its edges)."""

    COMPONENT_CLASSES = {"relation-usage--core", "relation-usage--custom", "relation-usage--hint",
                         "relation-usage--muted"}

    def __init__(self, *, id: str | None = None):
        super().__init__("loading…", id=id)
        self.report: dict | None = None

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def show(self, report: dict) -> None:
        self.report = report
        self.cursor = min(self.cursor, max(0, self.row_count - 1))
        self._redraw()

    @property
    def row_count(self) -> int:
        return len(relation_rows(self.report)) if self.report else 0

    @property
    def selected(self) -> str | None:
        return relation_rows(self.report)[self.cursor]["name"] if self.row_count else None

    def _move(self, step: int) -> None:
        super()._move(step)
        self.scroll_visible_row()

    def scroll_visible_row(self) -> None:
        """Keep the cursor's row in the scrolling pane (the header is the first line)."""
        if self.parent is not None:
            self.parent.scroll_to_region(Region(0, self.cursor, 1, 2), animate=False)

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
        for index, usage in enumerate(relation_rows(self.report)):
            kind = "core" if usage["is_core"] else "custom"
            tone = self.get_component_rich_style(f"relation-usage--{kind}", partial=True)
            selected = Style(reverse=True) if self.has_focus and index == self.cursor else None
            table.add_row(Text(usage["name"], style=tone if usage["uses"] else muted), Text(kind, style=muted),
                          f"{usage['uses']:,}", Text(share_bar(usage["uses"] / total, BAR_WIDTH), style=tone),
                          usage["hint"] or "", style=selected)
        self.update(table)
