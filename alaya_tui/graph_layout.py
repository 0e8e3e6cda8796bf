"""Where the neighbourhood picture puts each card and each edge, in terminal cells (no widgets: testable alone).

The focused card sits in the middle; its neighbours stand in a column on each side (the hottest first,
alternating right and left), and with room for a second hop each neighbour's own neighbours stand further out,
in a block of rows of their own, so no two edges share a line. Edges are box-drawing lines through a vertical
bus per column; each keeps its relation (for its colour) and its direction (an arrow at the card it points to).
Nodes that do not fit are left out and counted: a small terminal shows fewer nodes, never overlapping ones. The
other edges between the nodes placed (two neighbours linked to each other, say) are routed afterwards by
:mod:`alaya_tui.graph_routes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len

from .formatting import shorten

NODE_MIN = 12
"""Cells of a node's label below which a column is not drawn."""
NODE_MAX = 34
GAP = 5
"""Cells between two columns of nodes: the bus and the arrow."""
TWO_HOPS_WIDTH = 5 * NODE_MIN + 4 * GAP + 20
"""Below this width only the first hop is drawn."""

UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
BOX = {UP | DOWN: "│", LEFT | RIGHT: "─", DOWN | RIGHT: "┌", DOWN | LEFT: "┐", UP | RIGHT: "└", UP | LEFT: "┘",
       UP | DOWN | RIGHT: "├", UP | DOWN | LEFT: "┤", DOWN | LEFT | RIGHT: "┬", UP | LEFT | RIGHT: "┴",
       UP | DOWN | LEFT | RIGHT: "┼", UP: "│", DOWN: "│", LEFT: "─", RIGHT: "─"}


@dataclass
class Placed:
    """A node on the canvas: its card, hop, and the cells its label takes (``x`` to ``x + width``, row ``y``)."""

    node: dict
    x: int
    y: int
    width: int
    column: int
    """-2 … 2, the focus 0, negative on the left."""
    relation: str = ""
    outgoing: bool = True
    """The edge that placed it leaves the card nearer the focus (its arrow points at this node)."""
    parent: str = ""
    """The card id of the node nearer the focus it was placed beside ("" for the focus): their edge is drawn."""
    label_width: int = 0
    """Cells the label shows (its mark and title), at most ``width``."""


@dataclass
class Layout:
    width: int
    height: int
    placed: list[Placed] = field(default_factory=list)
    lines: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)
    """(x, y) → (directions, relation): the edges' cells; a bus shared by several edges has no relation ("")."""
    arrows: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)
    """(x, y) → (arrow character, relation)."""
    left_out: int = 0
    hops_shown: int = 1
    other_edges: list[dict] = field(default_factory=list)
    """The document's edges between placed nodes drawn besides the columns' (see :mod:`alaya_tui.graph_routes`)."""
    edges_left_out: int = 0
    """Edges between placed nodes for which no free path was found."""


def lay_out(document: dict, width: int, height: int) -> Layout:
    """The picture of a ``neighbourhood`` document in ``width`` × ``height`` cells."""
    layout = Layout(width, height, left_out=len(document["nodes"]) + document.get("left_out", 0))
    if width < 3 * NODE_MIN + 2 * GAP or height < 1 or not document["nodes"]:
        return layout
    focus = document["nodes"][0]
    by_id = {node["card_id"]: node for node in document["nodes"]}
    two_hops = width >= TWO_HOPS_WIDTH and any(node["hop"] == 2 for node in document["nodes"])
    layout.hops_shown = 2 if two_hops else 1
    columns = 5 if two_hops else 3
    node_width = min(NODE_MAX, (width - (columns - 1) * GAP) // columns)
    first = _links(document, focus["card_id"], by_id, hop=1)
    children = _children(document, [link[0] for link in first], by_id) if two_hops else {}
    sides = (first[0::2], first[1::2])  # hottest first: right, left, right, …
    centre = (width - node_width) // 2
    layout.placed.append(Placed(focus, centre, height // 2, node_width, 0))
    shown = 1
    for side, links in zip((1, -1), sides):
        shown += _place_side(layout, by_id, side, links, children, centre, node_width)
    layout.left_out = len(document["nodes"]) - shown + document.get("left_out", 0)
    for item in layout.placed:
        item.label_width = min(item.width, 2 + cell_len(shorten(item.node["title"], item.width - 2)))
    return layout


def _links(document: dict, card_id: str, by_id: dict, hop: int) -> list[tuple[str, str, bool]]:
    """(neighbour, relation, outgoing) for each card of ``hop`` linked to ``card_id``, in the document's order."""
    found: dict[str, tuple[str, str, bool]] = {}
    for edge in document["edges"]:
        for near, far, outgoing in ((edge["source"], edge["target"], True), (edge["target"], edge["source"], False)):
            if near == card_id and by_id.get(far, {}).get("hop") == hop and far not in found:
                found[far] = (far, edge["relation"], outgoing)
    order = {node["card_id"]: index for index, node in enumerate(document["nodes"])}
    return sorted(found.values(), key=lambda link: order[link[0]])


def _children(document: dict, parents: list[str], by_id: dict) -> dict[str, list[tuple[str, str, bool]]]:
    """Each second-hop card under the first neighbour (in the hottest-first order) it is linked to."""
    taken: set[str] = set()
    children = {}
    for parent in parents:
        mine = [link for link in _links(document, parent, by_id, hop=2) if link[0] not in taken]
        taken.update(link[0] for link in mine)
        children[parent] = mine
    return children


def _place_side(layout: Layout, by_id: dict, side: int, links: list, children: dict, centre: int,
                node_width: int) -> int:
    """The first-hop column on one side, each node in a block with its children; returns the nodes placed."""
    height = layout.height
    kept = links[:height]
    room = height - len(kept)
    blocks = []
    for card_id, *_ in kept:
        wanted = children.get(card_id, [])
        take = min(len(wanted), room + 1)  # a block of one row holds one child beside its parent
        room -= max(0, take - 1)
        blocks.append(wanted[:take])
    used = sum(max(1, len(block)) for block in blocks)
    gap = 1 if height - used >= len(blocks) - 1 else 0
    total = used + gap * (len(blocks) - 1)
    top = min(max(0, height // 2 - (total - 1) // 2), max(0, height - total))  # centred on the focus
    step = node_width + GAP
    inner_x = centre + side * step
    outer_x = centre + 2 * side * step
    placed = 0
    rows: list[int] = []
    for (card_id, relation, outgoing), block in zip(kept, blocks):
        size = max(1, len(block))
        row = top + (size - 1) // 2
        parent = Placed(by_id[card_id], inner_x, row, node_width, side, relation, outgoing,
                        layout.placed[0].node["card_id"])
        layout.placed.append(parent)
        rows.append(row)
        placed += 1
        child_rows = []
        for offset, (child, child_relation, child_outgoing) in enumerate(block):
            layout.placed.append(Placed(by_id[child], outer_x, top + offset, node_width, 2 * side,
                                        child_relation, child_outgoing, card_id))
            child_rows.append(top + offset)
            placed += 1
        if child_rows:
            _bus(layout, side, inner_x, node_width, row, [(r, rel) for r, (_, rel, _) in zip(child_rows, block)],
                 [leaves for _, _, leaves in block])
        top += size + gap
    if rows:
        _bus(layout, side, centre, node_width, layout.height // 2, [(r, rel) for r, (_, rel, _) in zip(rows, kept)],
             [outgoing for _, _, outgoing in kept])
    return placed


def _bus(layout: Layout, side: int, from_x: int, node_width: int, from_row: int, targets: list[tuple[int, str]],
         outgoing: list[bool]) -> None:
    """Lines from the node at ``from_x`` (row ``from_row``) to nodes one column further out on ``side``."""
    start = from_x + node_width if side > 0 else from_x - 1
    bus = start + side * 1
    end = start + side * (GAP - 1)  # the arrow's cell, next to the target's label
    _line(layout, start, from_row, LEFT | RIGHT, "")
    _line(layout, bus, from_row, LEFT if side > 0 else RIGHT, "")
    for row, relation in targets:
        low, high = sorted((row, from_row))
        for y in range(low, high + 1):
            _line(layout, bus, y, (DOWN if y < high else 0) | (UP if y > low else 0), "")
        _line(layout, bus, row, RIGHT if side > 0 else LEFT, "")
        for x in range(bus + side, end + side, side):
            _line(layout, x, row, LEFT | RIGHT, relation)
    for (row, relation), leaves in zip(targets, outgoing):
        # the head at the edge's target: beside the outer card, or beside the bus for an edge pointing inwards
        rightwards = leaves == (side > 0)
        layout.arrows[(end if leaves else bus + side, row)] = ("▶" if rightwards else "◀", relation)


def _line(layout: Layout, x: int, y: int, directions: int, relation: str) -> None:
    if not (0 <= x < layout.width and 0 <= y < layout.height):
        return
    before, kept = layout.lines.get((x, y), (0, relation))
    layout.lines[(x, y)] = (before | directions, kept)
