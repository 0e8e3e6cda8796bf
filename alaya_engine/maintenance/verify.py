"""``alaya verify``: do L3, L2 and L1 agree?

L2 is compared with the graph a replay of L3 describes (``replay.py``), L1
with L2. Every problem has a kind, the ids involved and the command that
repairs it. Kinds:

- ``l3_unreadable`` — an L3 file or journal event that cannot be read;
- ``journal_line_unreadable`` — a journal line that is not a readable event
  (a torn append, bad JSON, invalid UTF-8): replay skips it, never the lines
  after it;
- ``access_line_unreadable`` — the same in the access log (introspect skips it);
- ``card_without_l3`` / ``card_missing_from_l2`` — a card in the graph that no
  L3 record produces, or the reverse (a crash between the L3 and L2 writes);
- ``session_without_l3`` / ``session_missing_from_l2`` — the same for sessions;
- ``link_without_l3`` / ``link_missing_from_l2`` — the same for edges;
- ``missing_vector`` — a HOT/WARM card without its embedding in L1;
- ``missing_cold_vector`` — a COLD card without its 8-bit codes in L1 (a store
  from before COLD cards kept them: the next introspect adds them);
- ``duplicate_vector`` — a card with more than one embedding row (a float row
  and COLD codes count as two);
- ``wrong_dimension`` — L1 vectors narrower or wider than the store's model;
- ``unusable_vector`` — a card, relation or window vector that is not finite
  (NaN, infinity: a damaged data file) or all zero; no search can use it;
- ``stale_vector`` — the embedded text's hash differs from the card's content;
- ``orphan_vector`` — an L1 row whose card is not in L2;
- ``missing_metadata`` — a card without its ``card_meta`` or ``card_heat`` row;
- ``promotion_missing_from_l2`` — a relation the journal promoted that has no
  table of its own in the graph (a crash between the journal and the graph);
- ``missing_context`` / ``orphan_context`` — a distilled card without its
  context turns, or a context file whose session is not in L3;
- ``missing_windows`` / ``orphan_windows`` — an L3 session whose windows of raw
  turns are not all in L1 (an ingest killed between L3 and L1, or a store made
  before turn windows existed), or windows of a session L3 does not hold.

The graph database cannot keep an edge whose end is gone (cards are deleted
with ``DETACH DELETE``), so "every edge's endpoints exist" holds by
construction in L2; edges are checked against L3 instead, both ways.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..recall.access import AccessLog
from .replay import replay

if TYPE_CHECKING:
    from ..store_parts import StoreParts

REPAIR = {
    "l3_unreadable": "restore the file from a backup (alaya restore FILE) or delete it if it is junk",
    "journal_line_unreadable": "the events after it are safe; if it is the torn end of a command that failed, "
                               "delete the line, otherwise restore the journal from a backup",
    "access_line_unreadable": "delete the line (it only counts recalls)",
    "card_without_l3": "alaya rebuild --l2",
    "card_missing_from_l2": "re-run the interrupted command, or alaya rebuild --l2",
    "session_without_l3": "alaya rebuild --l2",
    "session_missing_from_l2": "alaya ingest the session again, or alaya rebuild --l2",
    "link_without_l3": "alaya rebuild --l2",
    "link_missing_from_l2": "alaya rebuild --l2",
    "promotion_missing_from_l2": "approve the promotion again, or alaya rebuild --l2",
    "missing_vector": "alaya rebuild --l1",
    "missing_cold_vector": "alaya introspect, or alaya rebuild --l1",
    "duplicate_vector": "alaya rebuild --l1",
    "wrong_dimension": "alaya rebuild --l1",
    "stale_vector": "alaya rebuild --l1",
    "unusable_vector": "alaya rebuild --l1",
    "orphan_vector": "alaya rebuild --l1",
    "missing_metadata": "alaya rebuild --l1",
    "missing_context": "alaya distill --force --session for the card's session",
    "orphan_context": "delete the context file, or ingest its session again",
    "missing_windows": "alaya ingest the session again, or alaya rebuild --l1",
    "orphan_windows": "alaya rebuild --l1",
}


@dataclass
class Problem:
    kind: str
    ids: list[str]
    detail: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "ids": self.ids, "detail": self.detail, "repair": REPAIR[self.kind]}


@dataclass
class VerifyReport:
    problems: list[Problem] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, ids: list[str], detail: str) -> None:
        self.problems.append(Problem(kind, ids, detail))

    def to_json(self) -> dict:
        return {"ok": not self.problems, "checked": self.checked,
                "counts": dict(Counter(problem.kind for problem in self.problems)),
                "problems": [problem.to_json() for problem in self.problems]}


def verify(engine: "StoreParts") -> VerifyReport:
    report = VerifyReport()
    expected = replay(engine.layout)
    for problem in expected.unreadable:
        report.add("l3_unreadable", [problem.path], problem.reason)
    for kind, lines in (("journal_line_unreadable", expected.bad_journal_lines),
                        ("access_line_unreadable", AccessLog(engine.layout.access_log).lines())):
        for line in lines:
            if line.document is None:
                report.add(kind, [str(line.path), str(line.number)], line.describe())
    with engine.step() as graph:
        cards = {card.id: card for card in graph.all_cards()}
        links = {link.key for link in graph.all_links()}
        sessions = graph.session_ids()
        promoted = graph.promoted_relations()
    store = engine.vectors()
    vector_ids, width = store.vector_rows()
    vector_ids += store.cold_ids()
    meta = store.meta_index()
    report.checked = {"sessions": len(expected.sessions), "cards": len(cards), "links": len(links),
                      "vectors": len(vector_ids)}

    _compare(report, "card", set(cards), set(expected.cards))
    _compare(report, "session", sessions, set(expected.sessions))
    for kind, keys in (("link_without_l3", links - set(expected.links)),
                       ("link_missing_from_l2", set(expected.links) - links)):
        for source, target, relation in sorted(keys):
            report.add(kind, [source, target], f"{source} -[{relation}]-> {target}")
    for name in sorted(expected.promoted - promoted):
        report.add("promotion_missing_from_l2", [name], f"relation {name} was promoted but has no table of its own")
    _check_vectors(report, engine, cards, vector_ids, width, meta)
    _check_contexts(report, engine, cards, expected.record_cards, set(expected.sessions))
    _check_windows(report, engine, expected.windows)
    _check_values(report, store.unusable_vectors() | {"turn_windows": engine.turn_windows().unusable_vectors()})
    return report


def _compare(report: VerifyReport, noun: str, in_l2: set[str], in_l3: set[str]) -> None:
    for item in sorted(in_l2 - in_l3):
        report.add(f"{noun}_without_l3", [item], f"{noun} {item} is in the graph but no L3 record produces it")
    for item in sorted(in_l3 - in_l2):
        report.add(f"{noun}_missing_from_l2", [item], f"{noun} {item} is recorded in L3 but missing from the graph")


def _check_vectors(report: VerifyReport, engine: "StoreParts", cards: dict, vector_ids: list[str], width: int,
                   meta: dict[str, tuple[str, str | None]]) -> None:
    dimension = engine.manifest["embedding"]["dimension"]
    if width != dimension:
        report.add("wrong_dimension", [], f"L1 vectors have {width} dimensions; the store's model has {dimension}")
    counted = Counter(vector_ids)
    for card_id, count in sorted(counted.items()):
        if count > 1:
            report.add("duplicate_vector", [card_id], f"card {card_id} has {count} embeddings")
    for card_id in sorted((set(counted) | set(meta)) - set(cards)):
        report.add("orphan_vector", [card_id], f"L1 holds card {card_id}, which is not in the graph")
    for card_id, card in sorted(cards.items()):
        content_hash, tier = meta.get(card_id, (None, None))
        if content_hash is None or tier is None:
            table = "card_heat" if content_hash else "card_meta"
            report.add("missing_metadata", [card_id], f"card {card_id} has no {table} row in L1")
            continue
        if card_id not in counted:
            report.add("missing_cold_vector" if tier == "COLD" else "missing_vector", [card_id],
                       f"{tier} card {card_id} has no embedding")
        if content_hash != card.content_hash():
            report.add("stale_vector", [card_id], f"card {card_id} changed since it was embedded")


def _check_values(report: VerifyReport, unusable: dict[str, list[str]]) -> None:
    for table, ids in unusable.items():
        for row_id in sorted(ids):
            report.add("unusable_vector", [row_id], f"{table} holds a vector for {row_id} that is not finite or "
                                                    "all zero")


def _check_contexts(report: VerifyReport, engine: "StoreParts", cards: dict, record_cards: set[str],
                    sessions: set[str]) -> None:
    contexts = engine.layout.contexts
    for card_id in sorted(record_cards & set(cards)):
        if not (contexts / f"{card_id}-context.json").exists():
            report.add("missing_context", [card_id], f"card {card_id} has no context file")
    for path in sorted(contexts.glob("*-context.json")):
        try:
            session_id = json.loads(path.read_text(encoding="utf-8"))["session_id"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            report.add("l3_unreadable", [str(path)], f"{type(exc).__name__}: {exc}")
            continue
        if session_id not in sessions:
            report.add("orphan_context", [path.name], f"{path.name} belongs to session {session_id}, not in L3")


def _check_windows(report: VerifyReport, engine: "StoreParts", expected: dict[str, int]) -> None:
    """``expected``: windows per readable L3 session, as the replay counted them."""
    stored = engine.turn_windows().session_counts()
    report.checked["windows"] = sum(stored.values())
    for session_id, count in sorted(expected.items()):
        if stored.get(session_id, 0) != count:
            report.add("missing_windows", [session_id], f"session {session_id} has {stored.get(session_id, 0)} of "
                                                        f"its {count} windows of raw turns in L1")
    for session_id in sorted(set(stored) - set(expected)):
        report.add("orphan_windows", [session_id], f"L1 holds windows of session {session_id}, which is not in L3")
