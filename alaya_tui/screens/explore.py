"""The explore screen: recall as navigation, the very document ``alaya recall --json`` prints, made walkable.

A query (free text or the small structured syntax of :mod:`alaya_tui.query`) gives ranked cards; a relation in
the explorable pane continues from the selected result when the relation leaves from it, else from the results
it leads on from, exactly as an agent would
(``{"from_nodes": explorable[i].from_nodes, "relations": [rel], "depth": 1}`` with the first query's text or
concepts as the goal, so distances stay measured against what was asked). Every request is a step of the
breadcrumb trail; back and forward restore the stored results without asking the engine again.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Header, Input, Static

from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..query import SYNTAX_HELP, QuerySyntaxError, format_query, parse_query
from ..widgets.breadcrumbs import Breadcrumbs
from ..widgets.explorable_table import ExplorableTable
from ..widgets.home_view import HomeView
from ..widgets.node_detail import NodeDetail
from ..widgets.results_table import WINDOW_KIND, ResultsTable
from ..widgets.title_table import TitleTable
from ..widgets.verdict_line import VerdictLine
from .card import CardScreen
from .neighbourhood import NeighbourhoodScreen
from .session import SessionScreen
from .trail import copy_id

EXPLORE_HELP = """\
# Explore

Recall is navigation: a query gives the cards nearest to it, ranked by **h-distance** (lower is closer);
the *explorable* relations lead further: `Tab` to that pane, then `Enter` on a relation follows it.

**h** is a card's distance to what you asked (0 = on target) and the **1 − h** bar its closeness (longer is closer);
**rel_sim** is how close the relation that reached the card (or an explorable relation) is to the query
(— for a card found by search).

## Query bar

- Free text: `gateway restart telegram messages lost`
- Structured: `concepts: gateway restart, telegram | rel: CAUSED_BY | depth: 2`
- Keys: `concepts` (`c`), `rel`, `depth` (`d`), `from` (card ids), `types`, `top`, `max`, `text`

## Keys

| key | what it does |
|---|---|
| `/` or `:` | focus the query bar (single-letter keys type into it until you leave it) |
| `Enter` in the query bar | recall (after the first query, a pause in typing recalls too) |
| `Enter` on a HOT card / a recent session (home) | open the card / the session's transcript |
| `Enter` on a result | open the card, or a window of raw turns as its session's transcript |
| `t` on a result | open the card with its trace (the source session) shown |
| `g` on a result or a HOT card | the card's neighbourhood, as a picture |
| `y` | copy the selected card's or window's id |
| `Enter` on an explorable relation | follow it, your query as the goal: from the selected result (From: this),      |
| | else from the results it leaves from |
| `Tab` / `Shift+Tab` | query bar → results → explorable relations |
| `[` / `]`, `Alt+←` / `Alt+→` | back / forward along the navigation path (back from the first step: home) |
| `Escape` | leave the query bar (single-letter keys then work); elsewhere one step back, as `[` |

Colours of the h bar: green below 0.15 (close to target), yellow below 0.22 (getting closer), red otherwise.
"""


START_HINT = "/ asks your memory · Enter opens · Tab next list · ? every key"
RESULTS_HINT = "Enter opens a card · t trace"
EXPLORABLE_HINT = " · Tab → Explorable, Enter follows a relation"
TYPING_PAUSE = 0.5
"""Seconds typing must pause before what is typed is recalled (each recall counts as an access of its cards)."""
HOME = "Home"
"""The first crumb: the home view, where back ends."""


@dataclass
class Step:
    """One request of the navigation path, with the document it returned."""

    request: dict
    result: dict
    label: str
    cursor_row: int = 0
    typed: bool = False
    """Recalled while typing: the next pause in typing replaces it rather than adding a step."""


class ExploreScreen(Screen):
    HELP = EXPLORE_HELP
    BINDINGS = [
        Binding("slash,colon", "focus_query", "Query", key_display="/", priority=True),
        Binding("left_square_bracket", "back", "Back"),
        Binding("right_square_bracket", "forward", "Forward"),
        Binding("alt+left", "back", "Back", show=False),
        Binding("alt+right", "forward", "Forward", show=False),
        Binding("escape", "escape", "Leave the query bar, else back", show=False),
        Binding("t", "trace", "Trace", show=False),
        Binding("g", "neighbourhood", "Graph", show=False),
        Binding("y", "copy_id", "Copy id", show=False),
    ]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend
        self.history: list[Step] = []
        self.position = -1
        self._ticket = 0
        self._typing_timer: Timer | None = None

    # The current step, as documents: what a test compares with ``alaya recall --json``.
    @property
    def request(self) -> dict | None:
        return self.history[self.position].request if self.position >= 0 else None

    @property
    def result(self) -> dict | None:
        return self.history[self.position].result if self.position >= 0 else None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder=f"Recall: {SYNTAX_HELP}", id="query")
        yield Breadcrumbs(id="breadcrumbs")
        yield HomeView(id="home")
        with Horizontal(id="explore-body"):
            yield ResultsTable(id="results")
            with Vertical(id="explore-side"):
                yield ExplorableTable(id="explorable")
                yield NodeDetail(id="node-detail")
        yield VerdictLine(id="verdict")
        yield Static(START_HINT, id="explore-message", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#results", ResultsTable).border_title = "Results"
        self.query_one("#explorable", ExplorableTable).border_title = "Explorable"
        self.query_one("#node-detail", NodeDetail).border_title = "Selected"
        self.app.store_changed_signal.subscribe(self, lambda _change: self.load_overview())
        self._show_home()
        self.load_overview()

    @work(thread=True, exclusive=True, group="overview", exit_on_error=False)
    def load_overview(self) -> None:
        document = call_or_report(self, "overview", None, lambda message: self.show_message(message, error=True))
        if document is not None:
            self.app.call_from_thread(self.query_one("#home", HomeView).show, document)

    @on(DataTable.RowSelected, "#home-cards")
    def _open_hot_card(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.app.push_screen(CardScreen(self.backend, str(event.row_key.value)))

    @on(DataTable.RowSelected, "#home-sessions")
    def _open_recent_session(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.app.push_screen(SessionScreen(self.backend, str(event.row_key.value)))

    # Asking the engine -------------------------------------------------------------------------------------------

    @on(Input.Submitted, "#query")
    def submit_query(self, event: Input.Submitted) -> None:
        self.ask(event.value)

    def ask(self, line: str) -> None:
        """Recall a line of the query syntax (what Enter in the query bar does)."""
        try:
            request = parse_query(line)
        except QuerySyntaxError as error:
            self.show_message(str(error), error=True)
            return
        if not request:
            self.show_message("Type a query first: " + SYNTAX_HELP, error=True)
            return
        self.query_one("#query", Input).value = line.strip()
        self.recall(request, line.strip())

    @on(DataTable.RowSelected, "#explorable")
    def navigate_along(self, event: DataTable.RowSelected) -> None:
        """Follow the relation from the selected result when it leaves from there, otherwise from the results it
        leaves from; the breadcrumb says which. The first query's words go along as the goal."""
        event.stop()
        relation = str(event.row_key.value)
        step = self.history[self.position]
        item = next(item for item in step.result["explorable"] if item["rel"] == relation)
        selected = self.query_one("#results", ResultsTable).selected
        titles = {node["card_id"]: node["title"] for node in step.result["nodes"]}
        if selected is not None and selected["card_id"] in item["from_nodes"]:
            starts, label = [selected["card_id"]], f"{relation} from {selected['title']}"
        else:
            starts = item["from_nodes"]
            where = titles.get(starts[0], starts[0]) if len(starts) == 1 else f"{len(starts)} cards"
            label = f"{relation} from {where} (not from the selected card)"
        goal = {key: step.request[key] for key in ("text", "concepts") if key in step.request}
        self.recall({"from_nodes": starts, "relations": [relation], "depth": 1, **goal}, label)

    @on(Input.Changed, "#query")
    def _typed(self, event: Input.Changed) -> None:
        """Once a query ran, a pause in typing recalls what is typed (Enter still recalls at once)."""
        if self.focused is not event.input or not self.history:
            return
        if self._typing_timer is not None:
            self._typing_timer.stop()
        self._typing_timer = self.set_timer(TYPING_PAUSE, lambda: self._search_as_typed(event.value))

    def _search_as_typed(self, line: str) -> None:
        try:
            request = parse_query(line)
        except QuerySyntaxError:
            return  # said when Enter is pressed; a half-typed key is not an error yet
        if request and request != self.request:
            self.recall(request, line.strip(), typed=True)

    def recall(self, request: dict, label: str, typed: bool = False) -> None:
        """Run a recall request in a worker; its result becomes the next step of the path."""
        self._ticket += 1
        self.show_message(f"Recalling {format_query(request)} …")
        self._recall_worker(request, label, self._ticket, typed)

    @work(thread=True, exclusive=True, group="recall", exit_on_error=False)
    def _recall_worker(self, request: dict, label: str, ticket: int, typed: bool) -> None:
        result = call_or_report(self, "recall", {"request": request}, lambda message: self._failed(message, ticket))
        if result is not None:
            self.app.call_from_thread(self._arrived, Step(request, result, label, typed=typed), ticket)

    def _failed(self, message: str, ticket: int) -> None:
        if ticket == self._ticket:
            self.show_message(message, error=True)

    def _arrived(self, step: Step, ticket: int) -> None:
        if ticket != self._ticket:
            return
        self._remember_cursor()
        current = self.history[self.position] if self.position >= 0 else None
        if current is not None and (current.request == step.request or (step.typed and current.typed)):
            self.history[self.position] = step  # a re-run query, or more typing, replaces its own step
        else:
            del self.history[self.position + 1:]
            self.history.append(step)
            self.position = len(self.history) - 1
        self._show_step()
        if step.result["nodes"] and not step.typed:
            self.query_one("#results", ResultsTable).focus()

    # Showing a step ------------------------------------------------------------------------------------------------

    def _show_home(self) -> None:
        self.add_class("-home")
        self.query_one("#breadcrumbs", Breadcrumbs).show([HOME, *(item.label for item in self.history)], 0)
        self.query_one("#query", Input).value = ""
        self.show_message(START_HINT)
        self.query_one("#home-cards").focus()

    def _show_step(self) -> None:
        self.remove_class("-home")
        step = self.history[self.position]
        results = self.query_one("#results", ResultsTable)
        results.show(step.result["nodes"], step.cursor_row)
        results.border_title = f"Results · {len(step.result['nodes'])}"
        selected = results.selected
        self.query_one("#explorable", ExplorableTable).show(step.result["explorable"],
                                                             selected["card_id"] if selected else None)
        self.query_one("#verdict", VerdictLine).show(step.result)
        self.query_one("#breadcrumbs", Breadcrumbs).show([HOME, *(item.label for item in self.history)],
                                                         self.position + 1)
        self.query_one("#query", Input).value = format_query(step.request)
        self._show_selected()
        if step.result["nodes"]:
            self.show_message(RESULTS_HINT + (EXPLORABLE_HINT if step.result["explorable"] else ""))
        else:
            back = " · [ goes back" if self.position > 0 else ""
            self.show_message((step.result.get("reason") or "nothing found") + back, error=True)

    def _remember_cursor(self) -> None:
        if self.position >= 0:
            self.history[self.position].cursor_row = self.query_one("#results", ResultsTable).cursor_row

    @on(DataTable.RowHighlighted, "#results")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        node = self.query_one("#results", ResultsTable).selected
        titles = {seen["card_id"]: seen["title"] for step in self.history[:self.position + 1]
                  for seen in step.result["nodes"]}
        self.query_one("#node-detail", NodeDetail).show(node, titles)
        self.query_one("#explorable", ExplorableTable).follow_from(node["card_id"] if node else None)

    @on(DataTable.RowSelected, "#results")
    def open_card(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open(self.query_one("#results", ResultsTable).selected)

    def _open(self, node: dict | None, trace: bool = False) -> None:
        """A card on the card screen (its trace shown with ``trace``); a window of raw turns as its transcript."""
        if node is None:
            return
        if node["kind"] == WINDOW_KIND:
            first, last = node["turn_range"]
            self.app.push_screen(SessionScreen(self.backend, node["session_id"], list(range(first, last + 1)),
                                               label=node["title"]))
        else:
            self.app.push_screen(CardScreen(self.backend, node["card_id"], show_trace=trace))

    @property
    def trail_label(self) -> str:
        """The current step, as the card and session screens' trail starts."""
        return self.history[self.position].label if self.position >= 0 else HOME

    def show_message(self, text: str, error: bool = False) -> None:
        message = self.query_one("#explore-message", Static)
        message.set_class(error, "-error")
        message.update(text)

    # Actions ---------------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """In the query bar ``/`` and ``:`` are text: the key goes on to it."""
        return action != "focus_query" or not isinstance(self.focused, Input)

    def action_focus_query(self) -> None:
        """Focus the query bar at once. Its key is a priority binding, handled as it arrives, and focus is set
        right here rather than after the messages already queued (``Widget.focus``): the keys typed right after
        ``/`` were already on their way to the results, and were taken for single-letter keys."""
        self.set_focus(self.query_one("#query", Input))

    def action_escape(self) -> None:
        """Escape: out of the query bar (so single-letter keys work again), elsewhere one step back."""
        if isinstance(self.focused, Input):
            self.query_one("#home-cards" if self.position < 0 else "#results").focus()
        else:
            self.action_back()

    def action_trace(self) -> None:
        self._open(self.query_one("#results", ResultsTable).selected, trace=True)

    def action_neighbourhood(self) -> None:
        """The selected result's (or HOT card's) neighbourhood; a window of raw turns has none."""
        if self.position >= 0:
            node = self.query_one("#results", ResultsTable).selected
            card_id = node["card_id"] if node and node["kind"] != WINDOW_KIND else None
        else:
            card_id = self.query_one("#home-cards", TitleTable).selected_key
        if card_id is None:
            self.app.bell()
            return
        self.app.push_screen(NeighbourhoodScreen(self.backend, card_id))

    def action_copy_id(self) -> None:
        """The selected result's id (a card's, or a window's), or the selected HOT card's or session's at home."""
        if self.position >= 0:
            node = self.query_one("#results", ResultsTable).selected
            identifier = node["card_id"] if node else None
        else:
            table = self.focused if isinstance(self.focused, TitleTable) else self.query_one("#home-cards", TitleTable)
            identifier = table.selected_key
        if identifier:
            copy_id(self, identifier)

    def action_back(self) -> None:
        self._go(self.position - 1)

    def action_forward(self) -> None:
        self._go(self.position + 1)

    def _go(self, position: int) -> None:
        """To step ``position`` of the path; -1 is the home view."""
        if not -1 <= position < len(self.history) or position == self.position:
            self.app.bell()
            return
        self._ticket += 1  # a request still in flight no longer becomes a step
        self._remember_cursor()
        self.position = position
        if position < 0:
            self._show_home()
        else:
            self._show_step()
            self.query_one("#results", ResultsTable).focus()
