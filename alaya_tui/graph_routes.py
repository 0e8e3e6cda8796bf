"""The neighbourhood picture's other edges: those between cards already on the canvas that the columns do not draw.

The columns of :mod:`alaya_tui.graph_layout` draw one edge per card, the one that placed it (from the centre, or
from its first-hop card). Two neighbours linked to each other, or a second-hop card linked to two first-hop ones,
had their edge in the document but not on the screen, so the picture said they were unrelated. Each such edge is
routed here through the free cells: a cheapest orthogonal path (A*, bends cost extra) from a cell beside or above
or below one card's label to a cell beside or above or below the other's, the arrowhead at the card it points to.
A path never enters a label, an arrowhead or a cell another edge turns or joins in; it may cross a straight line at
a right angle (``┼``), at a price, so it goes around when it can. One line per pair of cards (a second relation
between the same two is not drawn again). An edge with no path in the room there is counted, never squeezed in.
"""

from __future__ import annotations

import heapq

from .graph_layout import DOWN, LEFT, RIGHT, UP, Layout, Placed

STEPS = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}
OPPOSITE = {UP: DOWN, DOWN: UP, LEFT: RIGHT, RIGHT: LEFT}
ARROWS = {RIGHT: "▶", LEFT: "◀", DOWN: "▼", UP: "▲"}
"""The arrowhead pointing that way (into the label of the card an edge points to)."""
TURN = 3
CROSS = 8
"""Extra cost of a bend and of crossing another edge's straight line: a path goes around rather than through."""
MAX_EXPANSIONS = 4000
"""Cells one edge's search may look at, and :data:`PICTURE_EXPANSIONS` all of a picture's: the layout runs on the
event loop at every resize, so an edge whose search runs out (or comes after the picture's ran out) is counted as
not drawn rather than keeping the screen waiting."""
PICTURE_EXPANSIONS = 15000
MARGIN = 2
"""Cells around the cards' rectangle a path may use: on a large terminal the picture sits in a small part of it,
and searching the rest only costs time."""


def route_other_edges(layout: Layout, document: dict) -> None:
    """Draw every edge of ``document`` between two placed cards that the columns did not draw."""
    placed = {item.node["card_id"]: item for item in layout.placed}
    drawn = {frozenset((item.parent, item.node["card_id"])) for item in layout.placed if item.parent}
    labels = {(x, item.y) for item in layout.placed for x in range(item.x, item.x + item.width)}
    wanted = []
    for edge in document["edges"]:
        pair = frozenset((edge["source"], edge["target"]))
        if len(pair) == 2 and pair not in drawn and pair <= placed.keys():
            drawn.add(pair)
            wanted.append(edge)
    budget = [PICTURE_EXPANSIONS]
    area = (min(item.x for item in layout.placed) - MARGIN, min(item.y for item in layout.placed) - MARGIN,
            max(item.x + item.width for item in layout.placed) + MARGIN,
            max(item.y for item in layout.placed) + MARGIN) if wanted else (0, 0, 0, 0)
    for edge in wanted:
        source, target = placed[edge["source"]], placed[edge["target"]]
        route = _route(layout, labels, source, target, area, budget) if budget[0] else None
        if route is None:
            layout.edges_left_out += 1
        else:
            _draw(layout, *route, edge["relation"])
            layout.other_edges.append(edge)


def _ports(layout: Layout, labels: set, node: Placed) -> list[tuple[int, int, int]]:
    """(x, y, direction towards the label) of the free cells an edge may leave or reach ``node`` by: either end of
    its label, and above or below the characters it shows."""
    ports = [(node.x - 1, node.y, RIGHT), (node.x + node.width, node.y, LEFT)]
    for x in range(node.x + 1, node.x + node.label_width - 1):  # not above or below the label's ends: a line
        ports += [(x, node.y - 1, DOWN), (x, node.y + 1, UP)]  # there would seem to join the edge beside it
    return [(x, y, toward) for x, y, toward in ports if _free(layout, labels, x, y)]


def _free(layout: Layout, labels: set, x: int, y: int) -> bool:
    return (0 <= x < layout.width and 0 <= y < layout.height and (x, y) not in labels
            and (x, y) not in layout.lines and (x, y) not in layout.arrows)


def _crossable(layout: Layout, x: int, y: int, moving: int) -> bool:
    """A straight line at a right angle to ``moving``, with nothing else in its cell."""
    directions = layout.lines.get((x, y), (0, ""))[0]
    return directions == (UP | DOWN if moving in (LEFT, RIGHT) else LEFT | RIGHT) and (x, y) not in layout.arrows


def _route(layout: Layout, labels: set, source: Placed, target: Placed, area: tuple[int, int, int, int],
           budget: list[int]) -> tuple[list, int] | None:
    """The cheapest path from a port of ``source`` to a port of ``target`` (its last cell the arrow's), as
    (x, y, direction moved in) per cell, and the direction from that last cell into the target's label; or None.
    It stays within ``area`` (left, top, right, bottom): the cards' own rectangle and a margin around it."""
    goals = {(x, y): toward for x, y, toward in _ports(layout, labels, target)}
    if not goals:
        return None
    avoid = {(item.x - 1, item.y) for item in layout.placed if item not in (source, target)} | {
        (item.x + item.width, item.y) for item in layout.placed if item not in (source, target)}
    # a line through the cell at either end of another card's label would seem to join that card
    low, high = target.x - 1, target.x + target.width

    def estimate(x: int, y: int) -> int:
        return max(0, low - x, x - high) + max(0, abs(y - target.y) - 1)

    queue: list[tuple[int, int, int, int, int]] = []
    came: dict[tuple[int, int, int], tuple[int, int, int] | None] = {}
    cost: dict[tuple[int, int, int], int] = {}
    for x, y, toward in _ports(layout, labels, source):
        state = (x, y, OPPOSITE[toward])  # leaving the label
        cost[state], came[state] = 0, None
        heapq.heappush(queue, (estimate(x, y), 0, *state))
    allowed = min(MAX_EXPANSIONS, budget[0])
    while queue and allowed:
        _, spent, x, y, moving = heapq.heappop(queue)
        state = (x, y, moving)
        if spent > cost.get(state, spent):
            continue
        allowed -= 1
        budget[0] -= 1
        if (x, y) in goals and came[state] is not None:
            return _states(came, state), goals[(x, y)]
        crossing = (x, y) in layout.lines
        for direction, (dx, dy) in STEPS.items():
            if direction == OPPOSITE[moving] or (crossing and direction != moving):
                continue  # no going back, and no turning on another edge's line
            nx, ny = x + dx, y + dy
            if (nx, ny) in avoid or not (area[0] <= nx <= area[2] and area[1] <= ny <= area[3]):
                continue
            if _free(layout, labels, nx, ny):
                step = 1
            elif 0 <= nx < layout.width and 0 <= ny < layout.height and _crossable(layout, nx, ny, direction):
                step = 1 + CROSS
            else:
                continue
            total = spent + step + (TURN if direction != moving else 0)
            following = (nx, ny, direction)
            if total < cost.get(following, total + 1):
                cost[following], came[following] = total, state
                heapq.heappush(queue, (total + estimate(nx, ny), total, *following))
    return None


def _states(came: dict, state: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """The path's (x, y, direction moved in) from its first cell to ``state``."""
    states = []
    while state is not None:
        states.append(state)
        state = came[state]
    return states[::-1]


def _draw(layout: Layout, path: list[tuple[int, int, int]], toward: int, relation: str) -> None:
    """Line cells along ``path``, the first joined to its label, the arrowhead (pointing into the target's label)
    in its last cell; a crossing keeps the relation of the line crossed."""
    x, y, moving = path[0]
    joins = OPPOSITE[moving]  # towards the source's label
    for (x, y, _), (_, _, leaving) in zip(path[:-1], path[1:]):
        _add(layout, x, y, joins | leaving, relation)
        joins = OPPOSITE[leaving]
    x, y, _ = path[-1]
    layout.arrows[(x, y)] = (ARROWS[toward], relation)


def _add(layout: Layout, x: int, y: int, directions: int, relation: str) -> None:
    before, kept = layout.lines.get((x, y), (0, relation))
    layout.lines[(x, y)] = (before | directions, kept if before else relation)
