"""A bordered panel listing one memory layer's figures as label/value rows."""

from __future__ import annotations

from rich.table import Table
from textual.widgets import Static


class LayerPanel(Static):
    """Shows ``rows`` under ``title``; empty until the first :meth:`show`."""

    def __init__(self, title: str, *, id: str | None = None):
        super().__init__("loading…", id=id, classes="layer-panel")
        self.border_title = title
        self.rows: list[tuple[str, str]] = []

    def show(self, rows: list[tuple[str, str]]) -> None:
        self.rows = rows
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
        for label, value in rows:
            table.add_row(label, value)
        self.update(table)
