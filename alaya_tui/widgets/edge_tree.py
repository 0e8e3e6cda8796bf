"""A card's edges from the ``card`` document, grouped by direction and relation; Enter on one opens that card."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree

from ..formatting import shorten

DIRECTIONS = (("outgoing", "→ Outgoing"), ("incoming", "← Incoming"))
TITLE_CHARS = 44


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

    def show(self, document: dict) -> None:
        self.groups = group_edges(document)
        self.clear()
        muted = self.get_component_rich_style("edge-tree--muted", partial=True)
        for direction, label in DIRECTIONS:
            relations = self.groups[direction]
            total = sum(len(edges) for edges in relations.values())
            branch = self.root.add(f"{label} ({total})", expand=True, allow_expand=bool(total))
            for relation, edges in relations.items():
                node = branch.add(f"{relation} ({len(edges)})", expand=True)
                for edge in edges:
                    text = Text(shorten(edge["title"], TITLE_CHARS))
                    if edge.get("weight") is not None and edge["weight"] != 1:
                        text.append(f"  w={edge['weight']:.2f}", style=muted)
                    node.add_leaf(text, data={**edge, "direction": direction})
        self.root.expand()
        self.call_after_refresh(self._cursor_to_first_edge)

    def _cursor_to_first_edge(self) -> None:
        """Start on the first edge, so Enter jumps right away."""
        for line in range(self.last_line + 1):
            node = self.get_node_at_line(line)
            if node is not None and node.data is not None:
                self.move_cursor_to_line(line)
                return
        self.move_cursor_to_line(0)
