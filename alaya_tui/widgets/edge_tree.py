"""A card's edges from the ``card`` document, grouped by direction and relation; Enter on one opens that card.

Each edge is named by the title of the card at its other end, cut to the width of the pane (it follows a resize),
so a wide terminal shows whole titles and a narrow one keeps every line on screen.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree

from ..formatting import shorten

DIRECTIONS = (("outgoing", "→ Outgoing"), ("incoming", "← Incoming"))
MIN_TITLE_CELLS = 20
"""Titles never get fewer cells than this, however narrow the pane (the tree scrolls sideways then)."""
LEAF_DEPTH = 2
"""Guides before an edge's title: its direction's and its relation's."""


def group_edges(document: dict) -> dict[str, dict[str, list[dict]]]:
    """``{"outgoing": {relation: [edge, ...]}, "incoming": {...}}``, relations by name, edges by weight then title."""
    groups: dict[str, dict[str, list[dict]]] = {}
    for direction, _label in DIRECTIONS:
        by_relation: dict[str, list[dict]] = {}
        for edge in document.get(direction, []):
            by_relation.setdefault(edge["relation"], []).append(edge)
        groups[direction] = {relation: sorted(edges, key=lambda e: (-(e.get("weight") or 0), e["title"]))
                             for relation, edges in sorted(by_relation.items())}
    return groups


class EdgeTree(Tree[dict]):
    """Leaves carry their edge (``relation``, ``card_id``, ``title``, ``weight``, ``reason``) as data."""

    BINDINGS = [Binding("enter", "select_cursor", "Open card")]
    COMPONENT_CLASSES = {"edge-tree--muted"}

    def __init__(self, *, id: str | None = None):
        super().__init__("Edges", id=id)
        self.show_root = False
        self.groups: dict[str, dict[str, list[dict]]] = {}
        self._drawn_width = 0

    def show(self, document: dict) -> None:
        self.groups = group_edges(document)
        self.clear()
        self._drawn_width = self._width()
        for direction, label in DIRECTIONS:
            relations = self.groups[direction]
            total = sum(len(edges) for edges in relations.values())
            branch = self.root.add(f"{label} ({total})", expand=True, allow_expand=bool(total))
            for relation, edges in relations.items():
                node = branch.add(f"{relation} ({len(edges)})", expand=True)
                for edge in edges:
                    data = {**edge, "direction": direction}
                    node.add_leaf(self._label(data), data=data)
        self.root.expand()
        self.call_after_refresh(self._cursor_to_first_edge)

    def _label(self, edge: dict) -> Text:
        """The title of the card at the other end, in the cells its line leaves, then the weight when not 1."""
        weight = f"  w={edge['weight']:.2f}" if edge.get("weight") is not None and edge["weight"] != 1 else ""
        room = self._width() - LEAF_DEPTH * self.guide_depth - len(weight) - 1
        text = Text(shorten(edge["title"], max(MIN_TITLE_CELLS, room)))
        if weight:
            text.append(weight, style=self.get_component_rich_style("edge-tree--muted", partial=True))
        return text

    def _width(self) -> int:
        """The cells a line has, a vertical scrollbar's always left out: it comes and goes with the lines shown,
        and titles cut before it came would run under it."""
        return self.content_region.width - self.styles.scrollbar_size_vertical

    def on_resize(self) -> None:
        """Titles follow the pane's width (the lines are relabelled in place: the cursor stays where it is)."""
        if self._width() == self._drawn_width:
            return
        self._drawn_width = self._width()
        for branch in self.root.children:
            for relation in branch.children:
                for leaf in relation.children:
                    leaf.set_label(self._label(leaf.data))

    def _cursor_to_first_edge(self) -> None:
        """Start on the first edge, so Enter jumps right away."""
        for line in range(self.last_line + 1):
            node = self.get_node_at_line(line)
            if node is not None and node.data is not None:
                self.move_cursor_to_line(line)
                return
        self.move_cursor_to_line(0)
