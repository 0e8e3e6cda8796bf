"""The card screen: one card from the ``card`` document, its edges, and (``t``) the session it came from (``trace``)."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown, Sparkline, Static, Tree

from alaya_engine.foundations.domain import Fact
from alaya_engine.memex.importer import memex_card_id
from alaya_engine.raw.windows import parse_window_id
from alaya_engine.server.backend import Backend

from ..card_markdown import card_markdown, wikilink_slug
from ..errors import call_or_report
from ..formatting import number
from ..loading import loaded
from ..widgets.breadcrumbs import Breadcrumbs
from ..widgets.edge_tree import EdgeTree
from ..widgets.trace_view import DISTILLED_MARK, TraceView, pick_session
from .neighbourhood import NeighbourhoodScreen
from .session import SessionScreen
from .trail import card_trail, copy_id

CARD_HELP = """\
# Card

The card as the engine stores it: its content (Markdown), type, tier, temperature, how often recall returned it,
the sessions it was distilled from, and its edges to other cards grouped by direction and relation. The **heat**
line draws its temperature day by day since it was made (up to 60 days), replayed from the access log with
introspect's formula up to the last introspect; recalls since then count at the next one.

## Keys

| key | what it does |
|---|---|
| `Enter` on an edge | open the card at the other end |
| `t` | show or hide the trace: the full source session, the turns this card came from highlighted |
| `n` / `p` in the trace | next / previous highlighted turn |
| `o` | open the source session as a transcript, the card's turns highlighted, its cards beside it |
| `g` | the card's neighbourhood: the cards one and two hops away, as a picture |
| `y` | copy the card's id |
| `Tab` / `Shift+Tab` | edges → content → trace |
| `Escape` | hide the trace, else back to the previous screen |
| `1`–`5` (or `F2`–`F6`) | explore, status, tiers, review, timeline |
| `?` / `F1` | this help |
| `q` | quit |
"""


def read_session(path: str) -> dict:
    """A session's full L3 file (the session JSON the store keeps); ``{"error": ...}`` when unreadable."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return {"error": f"⚠ cannot read the session file {path}: {error}"}
    if not isinstance(document, dict) or not isinstance(document.get("turns"), list):
        return {"error": f"⚠ {path} is not a session file with turns"}
    return {"turns": document["turns"]}


LOADING = "loading…"


def heat_summary(document: dict) -> str:
    """``0.69 → 0.65 over 3 days · recalled 2× · 1 recall since 2026-04-18``: what the sparkline shows, in words."""
    points = document["points"]
    if not points:
        return ""
    days = len(points)
    span = f"{number(points[0]['temperature'])} → {number(points[-1]['temperature'])} over {days} " \
           f"{'day' if days == 1 else 'days'}"
    recalled = f"recalled {document['accesses']}×" if document["accesses"] else "never recalled"
    since = document["since"]
    later = f" · {since} {'recall' if since == 1 else 'recalls'} since {document['as_of']}" if since else ""
    return f"{span} · {recalled}{later}"


class CardScreen(Screen):
    HELP = CARD_HELP
    BINDINGS = [
        Binding("escape", "back", "Back", show=False),  # as on every screen; the footer keeps room for g at 80
        Binding("t", "toggle_trace", "Trace"),
        Binding("o", "open_session", "Session"),
        Binding("g", "neighbourhood", "Graph"),
        Binding("y", "copy_id", "Copy id", show=False),
    ]

    def __init__(self, backend: Backend, card_id: str, *, show_trace: bool = False, via: str = ""):
        super().__init__()
        self.backend = backend
        self.card_id = card_id
        self.via = via
        """The relation followed to this card (``→ CAUSED_BY``), for the trail; empty when opened directly."""
        self.show_trace_on_mount = show_trace
        self.document: dict | None = None
        """The ``card`` call's document."""
        self.trace_document: dict | None = None
        """The ``trace`` call's document, once the trace was opened."""
        self.heat_document: dict | None = None
        """The ``card.heat`` call's document."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Breadcrumbs(id="card-trail")
        with Vertical(id="card-head"):
            yield Static(LOADING, id="card-title", markup=False)
            with Horizontal(id="card-badges"):
                yield Static("", id="card-type", classes="badge", markup=False)
                yield Static("", id="card-tier", classes="badge", markup=False)
                yield Static("", id="card-meta", markup=False)
            yield Static("", id="card-tags", markup=False)
            with Horizontal(id="card-heat"):
                yield Static("heat", id="card-heat-label", markup=False)
                yield Sparkline([], id="card-sparkline")
                yield Static("", id="card-heat-text", markup=False)
        with Horizontal(id="card-body"):
            with VerticalScroll(id="card-content-scroll"):
                yield Markdown("", id="card-content", open_links=False)
            with Vertical(id="card-side"):
                yield EdgeTree(id="edges")
                yield Static("", id="edge-detail", markup=False)
        yield TraceView(id="trace")
        yield Static(LOADING, id="card-message", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#card-content-scroll").border_title = "Content"
        self.query_one("#edges", EdgeTree).border_title = "Edges"
        self.query_one("#trace", TraceView).border_title = "Trace"
        self.query_one("#edges", EdgeTree).focus()
        self.query_one("#card-content-scroll").loading = True  # shown at once, filled when the card arrives
        self._show_trail()
        self.load_card()
        if parse_window_id(self.card_id) is None:
            self.load_heat()
        else:
            self.query_one("#card-heat").display = False  # a window of raw turns has no temperature
        if self.show_trace_on_mount:
            self.action_toggle_trace()

    @work(thread=True, exclusive=True, group="card", exit_on_error=False)
    def load_card(self) -> None:
        document = call_or_report(self, "card", {"card_id": self.card_id}, self._show_error)
        if document is not None:
            self.app.call_from_thread(self._show_card, document)

    @work(thread=True, exclusive=True, group="heat", exit_on_error=False)
    def load_heat(self) -> None:
        """The temperature day by day (``card.heat``), apart from the card so the card never waits for it."""
        document = call_or_report(self, "card.heat", {"card_id": self.card_id},
                                  lambda message: self.query_one("#card-heat-text", Static).update(message))
        if document is not None:
            self.app.call_from_thread(self._show_heat, document)

    def _show_heat(self, document: dict) -> None:
        self.heat_document = document
        points = document["points"]
        self.query_one("#card-sparkline", Sparkline).data = [point["temperature"] for point in points]
        self.query_one("#card-heat-text", Static).update(heat_summary(document))

    async def _show_card(self, document: dict) -> None:
        self.document = document
        card = document["card"]
        self.query_one("#card-title", Static).update(card["title"])
        card_type = self.query_one("#card-type", Static)
        card_type.update(card["type"])
        card_type.add_class(f"-{card['type']}")
        tier = self.query_one("#card-tier", Static)
        tier.update(card["tier"])
        tier.add_class(f"-{card['tier'].lower()}")
        sessions = ", ".join(card.get("source_sessions") or []) or "—"
        self.query_one("#card-meta", Static).update(
            f"temperature {number(card.get('temperature'))} · accessed {card.get('access_count', 0)}× · "
            f"importance {number(card.get('importance'))} · {card.get('source', '')} · {card['id']}\n"
            f"sessions: {sessions}")
        tags = card.get("tags") or []
        self.query_one("#card-tags", Static).update("  ".join(f"#{tag}" for tag in tags) or "no tags")
        self.query_one("#edges", EdgeTree).show(document)
        if str(self.query_one("#card-message", Static).content) == LOADING:
            self.show_message("")
        self.sub_title = card["title"]
        self._show_trail()
        facts = [Fact.from_json(fact).describe() for fact in card.get("facts") or []]
        listed = "\n\n**Facts**\n\n" + "\n".join(f"- {fact}" for fact in facts) if facts else ""
        await self.query_one("#card-content", Markdown).update(card_markdown(card["title"], card["content"]) + listed)
        loaded(self.query_one("#card-content-scroll"))

    @property
    def edge_groups(self) -> dict[str, dict[str, list[dict]]]:
        """``{"outgoing"|"incoming": {relation: [edge, ...]}}`` as the edge tree shows them."""
        return self.query_one("#edges", EdgeTree).groups

    @on(Tree.NodeHighlighted, "#edges")
    def _edge_highlighted(self, event: Tree.NodeHighlighted) -> None:
        edge = event.node.data
        detail = self.query_one("#edge-detail", Static)
        if not edge:
            detail.update("")
            return
        arrow = "→" if edge["direction"] == "outgoing" else "←"
        detail.update(f"{arrow} {edge['relation']} {edge['title']}\n{edge.get('reason') or ''}".rstrip())

    @on(Tree.NodeSelected, "#edges")
    def _edge_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        edge = event.node.data
        if edge:
            arrow = "→" if edge["direction"] == "outgoing" else "←"
            self.app.push_screen(CardScreen(self.backend, edge["card_id"], via=f"{arrow} {edge['relation']}"))

    @on(Markdown.LinkClicked, "#card-content")
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        """A wikilink opens the card it names when that card is linked from this one; other links open outside."""
        slug = wikilink_slug(event.href)
        if slug is None:
            self.app.open_url(event.href)
            return
        named = {memex_card_id(name) for name in (slug, PurePosixPath(slug).name)}  # [[slug]] or [[folder/slug]]
        target = next((edge["card_id"] for edge in (self.document or {}).get("outgoing", [])
                       if edge["card_id"] in named), None)
        if target is not None:
            self.app.push_screen(CardScreen(self.backend, target))
        else:
            self.show_message(f"[[{slug}]] names no card in this store (the link is broken)", error=True)

    # The trace ----------------------------------------------------------------------------------------------------

    def action_toggle_trace(self) -> None:
        trace = self.query_one("#trace", TraceView)
        showing = not self.has_class("-show-trace")
        self.set_class(showing, "-show-trace")
        if showing:
            trace.focus()
            if self.trace_document is None:
                self.show_message("tracing…")
                self.load_trace()
        elif self.focused is None or trace in self.focused.ancestors_with_self:
            self.query_one("#edges", EdgeTree).focus()

    @work(thread=True, exclusive=True, group="trace", exit_on_error=False)
    def load_trace(self) -> None:
        document = call_or_report(self, "trace", {"card_id": self.card_id}, self._show_error)
        if document is None:
            return
        sessions = [{**session, **read_session(session["path"])} for session in document["sessions"]]
        self.app.call_from_thread(self._show_trace, document, sessions)

    async def _show_trace(self, document: dict, sessions: list[dict]) -> None:
        self.trace_document = document
        await self.query_one("#trace", TraceView).show(sessions, document["context_turns"], Path(self.backend.home))
        count = len(document["context_turns"])
        self.show_message(f"trace: {count} {'turn' if count == 1 else 'turns'} distilled into this card, highlighted")

    # The source session -----------------------------------------------------------------------------------------

    def action_open_session(self) -> None:
        self.show_message("opening the source session…")
        self.load_source_session()

    @work(thread=True, exclusive=True, group="source-session", exit_on_error=False)
    def load_source_session(self) -> None:
        document = self.trace_document or call_or_report(self, "trace", {"card_id": self.card_id}, self._show_error)
        if document is None:
            return
        if not document["sessions"]:
            self.app.call_from_thread(self.show_message, "This card has no source session.", True)
            return
        sessions = [{**session, **read_session(session["path"])} for session in document["sessions"]]
        session = sessions[pick_session(sessions, document["context_turns"])]
        cited = [turn["index"] for turn in document["context_turns"]]
        self.app.call_from_thread(self._open_session, session["id"], cited)

    def _open_session(self, session_id: str, cited: list[int]) -> None:
        self.show_message("")
        self.app.push_screen(SessionScreen(self.backend, session_id, cited, mark=DISTILLED_MARK))

    # Misc ------------------------------------------------------------------------------------------------------------

    @property
    def trail_label(self) -> str:
        title = self.document["card"]["title"] if self.document else "…"
        return f"{self.via} {title}" if self.via else title

    def _show_trail(self) -> None:
        labels = card_trail(self.app)
        self.query_one("#card-trail", Breadcrumbs).show(labels, len(labels) - 1)

    def action_copy_id(self) -> None:
        copy_id(self, self.document["card"]["id"] if self.document else self.card_id)

    def action_neighbourhood(self) -> None:
        self.app.push_screen(NeighbourhoodScreen(self.backend, self.document["card"]["id"] if self.document
                                                 else self.card_id))

    def action_back(self) -> None:
        if self.has_class("-show-trace"):
            self.action_toggle_trace()
            return
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def _show_error(self, text: str) -> None:
        loaded(self.query_one("#card-content-scroll"))
        self.show_message(text, error=True)

    def show_message(self, text: str, error: bool = False) -> None:
        message = self.query_one("#card-message", Static)
        message.set_class(error, "-error")
        message.update(text)
