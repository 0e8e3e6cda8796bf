"""Replay L3 into the graph it describes, in memory: what ``rebuild`` loads and ``verify`` compares against.

Journal events are replayed in the order they were appended, each distillation record slotted in before the
first event stamped later than it, each with the meaning its live command gave it. The event-by-event meaning,
and why a link may wait for its missing end, are in docs/maintenance.md ("How L3 is replayed").
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..foundations.domain import Card, Link
from ..foundations.errors import AlayaError
from ..foundations.jsonl import LogLine
from ..foundations.paths import Layout
from ..foundations.relations import CARD_TO_SESSION, check_promotable, is_core
from ..introspect.forget import card_from_forget_event
from ..memex.importer import REASON as MEMEX_LINK_REASON
from ..memex.importer import RELATION as MEMEX_LINK_RELATION
from ..raw.distilled import DistilledRecord
from ..raw.journal import Journal
from ..raw.store import RawStore
from ..raw.windows import session_windows

log = logging.getLogger(__name__)

LinkKey = tuple[str, str, str]


@dataclass
class ReplayProblem:
    """An L3 file that could not be read; the replay goes on without it."""

    path: str
    reason: str


@dataclass
class ReplayedGraph:
    sessions: dict[str, dict] = field(default_factory=dict)
    """Session id → a ``Session`` node row (keys of ``bulk.SESSION_COLUMNS``)."""
    cards: dict[str, Card] = field(default_factory=dict)
    links: dict[LinkKey, Link] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    forgotten: dict[str, dict] = field(default_factory=dict)
    """Card id → its last ``card.forget`` event (what ``card.restore`` brings back)."""
    record_cards: set[str] = field(default_factory=set)
    """Cards that came from a distillation record (they have a context file)."""
    promoted: set[str] = field(default_factory=set)
    """Relations promoted to a rel table of their own (what a rebuild creates)."""
    unreadable: list[ReplayProblem] = field(default_factory=list)
    bad_journal_lines: list[LogLine] = field(default_factory=list)
    """Journal lines that could not be read (skipped; the events after them still count)."""
    windows: dict[str, int] = field(default_factory=dict)
    """Session id → how many windows of raw turns its content makes (what verify expects in L1)."""
    _incident: dict[str, set[LinkKey]] = field(default_factory=dict)
    _extracted: dict[str, set[str]] = field(default_factory=dict)
    _waiting: dict[str, dict[LinkKey, Link]] = field(default_factory=dict)
    """Missing card id → the links that wait for it (see the module's doc)."""

    def upsert_card(self, card: Card) -> None:
        self.cards[card.id] = card
        for link in self._waiting.pop(card.id, {}).values():
            self.merge_link(link, wait=True)

    def merge_link(self, link: Link, wait: bool = False) -> None:
        """Merge ``link``; with ``wait``, one whose end is missing waits for that card (see the module's doc)."""
        targets = self.sessions if link.relation in CARD_TO_SESSION else self.cards
        if link.source not in self.cards or link.target not in targets:
            if wait:
                missing = link.source if link.source not in self.cards else link.target
                self._waiting.setdefault(missing, {})[link.key] = link
            return
        key = link.key
        self.links[key] = link
        for end in (link.source, link.target):
            self._incident.setdefault(end, set()).add(key)
        if link.relation in CARD_TO_SESSION:
            self._extracted.setdefault(link.target, set()).add(link.source)

    def delete_link(self, key: LinkKey) -> None:
        link = self.links.pop(key, None)
        if link is None:
            return
        for end in (link.source, link.target):
            self._incident.get(end, set()).discard(key)
        if link.relation in CARD_TO_SESSION:
            self._extracted.get(link.target, set()).discard(link.source)

    def delete_card(self, card_id: str) -> None:
        for key in list(self._incident.get(card_id, ())):
            self.delete_link(key)
        self._incident.pop(card_id, None)
        self._waiting.pop(card_id, None)
        self.cards.pop(card_id, None)

    def cards_extracted_from(self, session_id: str) -> set[str]:
        return set(self._extracted.get(session_id, ()))

    def outgoing(self, card_id: str) -> list[Link]:
        return [self.links[key] for key in self._incident.get(card_id, ()) if key[0] == card_id]


def replay(layout: Layout) -> ReplayedGraph:
    """The graph L3 describes. Unreadable files are listed in ``unreadable``, never fatal."""
    graph = ReplayedGraph()
    _load_sessions(layout, graph)
    records = sorted(_records(layout, graph), key=lambda record: record.distilled_at)
    waiting = 0
    for line in Journal(layout.journal).lines():
        if line.document is None:
            graph.bad_journal_lines.append(line)
            continue
        event = line.document
        while waiting < len(records) and records[waiting].distilled_at <= event["at"]:
            _apply_record(graph, records[waiting])
            waiting += 1
        _apply_event(graph, event)
    for record in records[waiting:]:
        _apply_record(graph, record)
    return graph


def _load_sessions(layout: Layout, graph: ReplayedGraph) -> None:
    raw = RawStore(layout.sessions, layout.contexts)
    for path in raw.iter_paths():
        try:
            session = raw.read(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            graph.unreadable.append(ReplayProblem(str(path), f"{type(exc).__name__}: {exc}"))
            continue
        graph.sessions[session.id] = {
            "id": session.id, "timestamp": session.timestamp, "channel": session.channel, "agent": session.agent,
            "summary": session.summary, "turns": len(session.turns), "tokens": session.tokens,
            "content_hash": session.content_hash(), "path": str(path.relative_to(layout.home)),
            "distilled_hash": None, "distilled_at": None,
        }
        graph.windows[session.id] = len(session_windows(session))


def _records(layout: Layout, graph: ReplayedGraph) -> Iterator[DistilledRecord]:
    for path in sorted(layout.distilled.glob("*.json")):
        try:
            yield DistilledRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            graph.unreadable.append(ReplayProblem(str(path), f"{type(exc).__name__}: {exc}"))


def _apply_record(graph: ReplayedGraph, record: DistilledRecord) -> None:
    session = graph.sessions.get(record.session_id)
    if session is None:
        log.warning("distillation record of a session that is not in L3: %s", record.session_id)
        return
    fresh = {card.id for card in record.cards}
    for stale in graph.cards_extracted_from(record.session_id) - fresh:
        graph.delete_card(stale)
    for card in record.cards:
        graph.upsert_card(card)
        graph.record_cards.add(card.id)
    for link in record.links:
        graph.merge_link(link, wait=True)
    session["distilled_hash"], session["distilled_at"] = record.session_hash, record.distilled_at


def _apply_event(graph: ReplayedGraph, event: dict) -> None:
    op = event.get("op")
    try:
        if op == "link.add":
            for link in event["links"]:
                graph.merge_link(Link.from_json(link), wait=True)
        elif op == "link.remove":
            for link in event["links"]:
                graph.delete_link(Link.from_json(link).key)
        elif op == "card.merge":
            graph.upsert_card(Card.from_json(event["card"]))
            for link in event["links"]:
                graph.merge_link(Link.from_json(link), wait=True)
            graph.delete_card(event["drop"])
            graph.aliases[event["drop"]] = event["keep"]
        elif op == "card.forget":
            graph.forgotten[event["card"]["id"]] = event
            graph.delete_card(event["card"]["id"])
        elif op == "card.restore":
            _restore(graph, event)
        elif op == "relation.merge":
            _rename_relation(graph, event["drop"], event["keep"])
        elif op == "relation.promote":
            check_promotable(event["name"])
            graph.promoted.add(event["name"])
        elif op == "card.import":
            _import(graph, event)
        else:
            log.warning("journal event of unknown kind %r skipped", op)
    except (KeyError, TypeError, ValueError, AlayaError) as exc:
        graph.unreadable.append(ReplayProblem(f"journal event {op} at {event.get('at')}",
                                              f"{type(exc).__name__}: {exc}"))


def _restore(graph: ReplayedGraph, event: dict) -> None:
    saved = graph.forgotten.get(event["card_id"])
    if saved is None or event["card_id"] in graph.cards:
        return
    card, links = card_from_forget_event(saved, event["at"])
    graph.upsert_card(card)
    for link in links:
        graph.merge_link(link)


def _rename_relation(graph: ReplayedGraph, drop: str, keep: str) -> None:
    if any(is_core(name) or name in graph.promoted for name in (drop, keep)):
        return
    for key in [key for key in graph.links if key[2] == drop]:
        link = graph.links[key]
        graph.delete_link(key)
        graph.merge_link(Link(link.source, link.target, keep, link.weight, link.reason, link.created_at))


def _import(graph: ReplayedGraph, event: dict) -> None:
    card = Card.from_json(event["card"])
    graph.upsert_card(card)
    for link in graph.outgoing(card.id):
        if link.relation == MEMEX_LINK_RELATION and link.reason == MEMEX_LINK_REASON:
            graph.delete_link(link.key)
    for link in event["links"]:
        graph.merge_link(Link.from_json(link))
