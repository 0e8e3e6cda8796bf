"""The neighbourhood picture: cards as labels, edges as coloured box-drawing lines (laid out by
:mod:`alaya_tui.graph_layout`), a cursor that walks from card to card.

Drawn as text on an ordinary widget rather than with a graph library: the layout must fit 80×24 by dropping
nodes, centre the focus and never let two edges share a line, which a general-purpose layout does not promise.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from ..formatting import shorten
from ..graph_layout import BOX, Layout, Placed, lay_out
from ..graph_routes import route_other_edges

RELATION_COLOURS = {"CAUSED_BY": "red", "CAUSES": "bright_red", "DEPENDS_ON": "blue", "SIMILAR_TO": "green",
                    "CONTRADICTS": "magenta", "TEMPORAL_NEXT": "yellow"}
CUSTOM_COLOURS = ("cyan", "bright_magenta", "bright_green", "bright_blue", "bright_yellow", "bright_cyan")
TIER_MARKS = {"HOT": "●", "WARM": "◐", "COLD": "○"}


def relation_colour(relation: str) -> str:
    """A core relation's own colour; a custom one's from a small palette, the same every run for a name."""
    if relation in RELATION_COLOURS:
        return RELATION_COLOURS[relation]
    return CUSTOM_COLOURS[sum(relation.encode()) % len(CUSTOM_COLOURS)]


class NeighbourhoodView(Widget, can_focus=True):
    COMPONENT_CLASSES = {"neighbourhood--focus", "neighbourhood--hot", "neighbourhood--warm", "neighbourhood--cold",
                         "neighbourhood--muted", "neighbourhood--cursor"}
    BINDINGS = [
        Binding("enter", "choose", "Move here"),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("left", "cursor_side(-1)", "Left", show=False),
        Binding("right", "cursor_side(1)", "Right", show=False),
    ]

    class Highlighted(Message):
        def __init__(self, placed: Placed | None):
            super().__init__()
            self.placed = placed

    class Chosen(Message):
        def __init__(self, card_id: str):
            super().__init__()
            self.card_id = card_id

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.document: dict | None = None
        self.picture: Layout | None = None
        self.cursor = 0
        """Index into the layout's placed nodes (0, the focus, first)."""

    def show(self, document: dict) -> None:
        self.document = document
        self.cursor = 0
        self._lay_out()

    def _lay_out(self) -> None:
        if self.document is None or not self.size.width:
            return
        self.picture = lay_out(self.document, self.size.width, self.size.height)
        route_other_edges(self.picture, self.document)
        self.cursor = min(self.cursor, max(0, len(self.picture.placed) - 1))
        self.refresh()
        self.post_message(self.Highlighted(self.selected))

    def on_resize(self) -> None:
        self._lay_out()

    @property
    def selected(self) -> Placed | None:
        if self.picture is None or not self.picture.placed:
            return None
        return self.picture.placed[self.cursor]

    # Drawing ---------------------------------------------------------------------------------------------------------

    def render(self) -> Text:
        layout = self.picture
        if layout is None:
            return Text("")
        cells = [[(" ", Style())] * layout.width for _ in range(layout.height)]
        muted = self.get_component_rich_style("neighbourhood--muted", partial=True)
        for (x, y), (directions, relation) in layout.lines.items():
            cells[y][x] = (BOX.get(directions, "·"), Style(color=relation_colour(relation)) if relation else muted)
        for (x, y), (arrow, relation) in layout.arrows.items():
            cells[y][x] = (arrow, Style(color=relation_colour(relation), bold=True))
        for index, placed in enumerate(layout.placed):
            self._label(cells, placed, index == self.cursor)
        text = Text(no_wrap=True, overflow="crop")
        for number, row in enumerate(cells):
            for char, style in row:
                if char:
                    text.append(char, style)
            if number < len(cells) - 1:
                text.append("\n")
        return text

    def _label(self, cells: list, placed: Placed, selected: bool) -> None:
        """``● title`` in the node's cells: the mark coloured by tier, the focus bold, the cursor reversed."""
        node = placed.node
        tier = (node.get("tier") or "").lower()
        mark_style = self.get_component_rich_style(f"neighbourhood--{tier}", partial=True) \
            if tier in ("hot", "warm", "cold") else Style()
        style = self.get_component_rich_style("neighbourhood--focus", partial=True) if placed.column == 0 else Style()
        if selected and self.has_focus:
            style += self.get_component_rich_style("neighbourhood--cursor", partial=True)
        elif selected:
            style += Style(underline=True)
        title = shorten(node["title"], placed.width - 2)
        label = [(TIER_MARKS.get(node.get("tier"), "·"), mark_style + style), (" ", style)]
        label += [(char, style) for char in title]
        row, x = cells[placed.y], placed.x
        for char, char_style in label:
            width = cell_len(char)
            if x + width > placed.x + placed.width or x + width > len(row):
                break
            row[x] = (char, char_style)
            if width == 2:
                row[x + 1] = ("", char_style)  # the right half of a wide character
            x += width
        while x < min(placed.x + placed.width, len(row)) and (selected or placed.column == 0):
            row[x] = (" ", style)  # the cursor and the focus fill their whole cell range
            x += 1

    # Moving ----------------------------------------------------------------------------------------------------------

    def _move_to(self, index: int | None) -> None:
        if index is None or self.picture is None:
            self.app.bell()
            return
        self.cursor = index
        self.refresh()
        self.post_message(self.Highlighted(self.selected))

    def action_cursor_down(self) -> None:
        self._move_to(self._vertical(1))

    def action_cursor_up(self) -> None:
        self._move_to(self._vertical(-1))

    def _vertical(self, direction: int) -> int | None:
        """The nearest node of the same column above or below."""
        current = self.selected
        if current is None:
            return None
        same = [(index, placed) for index, placed in enumerate(self.picture.placed)
                if placed.column == current.column and (placed.y - current.y) * direction > 0]
        return min(same, key=lambda item: abs(item[1].y - current.y))[0] if same else None

    def action_cursor_side(self, direction: int) -> None:
        """To the nearest node (by row) of the next column on that side; from the focus, the first neighbour there."""
        current = self.selected
        if current is None:
            return
        wanted = current.column + direction
        near = [(index, placed) for index, placed in enumerate(self.picture.placed) if placed.column == wanted]
        self._move_to(min(near, key=lambda item: abs(item[1].y - current.y))[0] if near else None)

    def action_choose(self) -> None:
        if self.selected is not None:
            self.post_message(self.Chosen(self.selected.node["card_id"]))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
