"""The relations leading beyond a recall result: name, how many cards wait there, similarity to the query, and
whether the relation leaves from the selected result (``this``: Enter follows it from there) or only from other
results (``—``)."""

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
        self.selected_card: str | None = None

    def on_mount(self) -> None:
        self.add_column("Relation", key="rel")
        self.add_column("Cards", key="count")
        self.add_column("rel_sim", key="rel_sim_to_query")
        self.add_column("From", key="from")

    def show(self, items: list[dict], selected_card: str | None = None) -> None:
        self.items = list(items)
        self.selected_card = selected_card
        self.clear()
        for item in self.items:
            self.add_row(item["rel"], Text(str(item["count"]), justify="right"),
                         Text(number(item["rel_sim_to_query"]), justify="right"), leaves_from(item, selected_card),
                         key=item["rel"])

    def follow_from(self, selected_card: str | None) -> None:
        """Say, per relation, whether it leaves from the newly selected result."""
        if selected_card == self.selected_card:
            return
        self.selected_card = selected_card
        for item in self.items:
            self.update_cell(item["rel"], "from", leaves_from(item, selected_card))

    @property
    def selected(self) -> dict | None:
        if not self.items or not 0 <= self.cursor_row < len(self.items):
            return None
        return self.items[self.cursor_row]


def leaves_from(item: dict, selected_card: str | None) -> str:
    """``this`` when the relation leaves from the selected result, else ``—`` (Enter then follows it from the
    results it leaves from): four cells, so the column fits the pane at 80 columns."""
    return "this" if selected_card in item["from_nodes"] else "—"
