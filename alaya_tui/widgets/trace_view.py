"""A card's source session, turn by turn, with the turns it was distilled from highlighted (class ``-context``)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ..formatting import shorten

TOOL_ARGUMENT_CHARS = 200
DISTILLED_MARK = "distilled into this card"
CITED_TURNS = Binding.Group("Cited turns")
"""``n`` and ``p`` share one footer label."""


def turn_text(turn: dict) -> str:
    """The body of a turn as plain text: its content, then one line per tool call."""
    content = turn.get("content")
    body = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=1)
    calls = [f"⚙ {call.get('name', '?')} "
             f"{shorten(json.dumps(call.get('arguments', {}), ensure_ascii=False), TOOL_ARGUMENT_CHARS)}"
             for call in turn.get("tool_calls") or []]
    return "\n".join(part for part in [body.rstrip(), *calls] if part)


def in_home(path: str, home: Path) -> str:
    """``path`` relative to the store's home (``raw/sessions/…``) when it lies inside, else as it is."""
    try:
        return str(Path(path).relative_to(home))
    except ValueError:
        return path


def pick_session(sessions: list[dict], context_turns: list[dict]) -> int:
    """Which loaded session the context turns belong to: the one whose turns at those indices match them most."""
    best, best_score = 0, -1
    for position, session in enumerate(sessions):
        turns = session.get("turns") or []
        score = sum(1 for context in context_turns
                    if 0 <= context.get("index", -1) < len(turns)
                    and turns[context["index"]].get("content") == context.get("content"))
        if score > best_score:
            best, best_score = position, score
    return best


def turn_time(turn: dict) -> str:
    """``HH:MM`` (UTC) of a turn that has a time, else empty."""
    millis = turn.get("timestamp")
    if not isinstance(millis, (int, float)) or millis <= 0:
        return ""
    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc).strftime("%H:%M")


class TurnView(Vertical):
    """One turn: a header (index, speaker, time, tool name) and its text."""

    def __init__(self, index: int, turn: dict, in_context: bool, mark: str = DISTILLED_MARK):
        role = str(turn.get("role", "?"))
        super().__init__(classes=f"turn -{role}" + (" -context" if in_context else ""))
        self.turn_index = index
        self.in_context = in_context
        self.role = role
        self.turn = turn
        self.mark = mark

    def compose(self):
        speaker = str(self.turn.get("speaker") or self.role)
        header = f"#{self.turn_index} {speaker}" + (f" ({self.role})" if speaker != self.role else "")
        if turn_time(self.turn):
            header += f" · {turn_time(self.turn)}"
        if self.turn.get("tool_name"):
            header += f" · {self.turn['tool_name']}"
        if self.in_context:
            header += f"   ◆ {self.mark}"
        yield Static(header, classes="turn-header", markup=False)
        yield Static(turn_text(self.turn) or "(empty)", classes="turn-body", markup=False)


class TraceView(VerticalScroll):
    """Scrollable; filled by :meth:`show` with the sessions read from their L3 files."""

    BINDINGS = [
        Binding("n", "next_context", "Next cited turn", group=CITED_TURNS),
        Binding("p", "previous_context", "Previous cited turn", group=CITED_TURNS),
    ]

    def __init__(self, *, id: str | None = None, mark: str = DISTILLED_MARK):
        super().__init__(id=id)
        self.mark = mark
        """What a highlighted turn's header says it is."""
        self.highlighted: list[int] = []
        """Indices of the highlighted turns, in session order."""
        self.loaded = False
        self._current = -1

    async def show(self, sessions: list[dict], context_turns: list[dict], home: Path) -> None:
        """``sessions``: the trace document's sessions, each with ``turns`` (or ``error``) read from its file;
        their paths are shown inside ``home`` (the store, named in the header) when they lie in it."""
        await self.remove_children()
        widgets = []
        wanted = {turn["index"] for turn in context_turns}
        target = pick_session(sessions, context_turns) if sessions else -1
        self.highlighted = []
        for position, session in enumerate(sessions):
            widgets.append(Static(f"Session {session['id']} · {session.get('timestamp', '')} · "
                                  f"{session.get('channel', '')}\n{in_home(session.get('path', ''), home)}",
                                  classes="session-header", markup=False))
            if session.get("error"):
                widgets.append(Static(session["error"], classes="trace-error", markup=False))
                continue
            for position_in_file, turn in enumerate(session.get("turns") or []):
                index = turn.get("index", position_in_file)  # a stretch of turns carries their positions
                in_context = position == target and index in wanted
                if in_context:
                    self.highlighted.append(index)
                widgets.append(TurnView(index, turn, in_context, self.mark))
        if not sessions:
            widgets.append(Static("This card has no source session.", classes="trace-error"))
        await self.mount_all(widgets)
        self.loaded = True
        self._current = -1
        if self.highlighted:
            self.call_after_refresh(self.action_next_context)

    def action_next_context(self) -> None:
        self._jump(+1)

    def action_previous_context(self) -> None:
        self._jump(-1)

    def _jump(self, step: int) -> None:
        """Scroll the next (or previous) highlighted turn to the top of the pane."""
        turns = list(self.query(TurnView).filter(".-context"))
        if not turns:
            return
        self._current = (self._current + step) % len(turns)
        self.scroll_to_widget(turns[self._current], top=True, animate=False)
