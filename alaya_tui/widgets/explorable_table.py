"""The relations leading beyond a recall result: name, how many cards wait there, similarity to the query."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from ..formatting import number


class ExplorableTable(DataTable):
    """Rows keyed by relation name; Enter navigates along the relation from the selected result."""

    BINDINGS = [Binding("enter", "select_cursor", "Follow")]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row")
        self.items: list[dict] = []

    def on_mount(self) -> None:
        self.add_column("Relation", key="rel")
        self.add_column("Cards", key="count")
        self.add_column("rel_sim", key="rel_sim_to_query")

    def show(self, items: list[dict]) -> None:
        self.items = list(items)
        self.clear()
        for item in self.items:
            self.add_row(item["rel"], Text(str(item["count"]), justify="right"),
                         Text(number(item["rel_sim_to_query"]), justify="right"), key=item["rel"])

    @property
    def selected(self) -> dict | None:
        if not self.items or not 0 <= self.cursor_row < len(self.items):
            return None
        return self.items[self.cursor_row]
