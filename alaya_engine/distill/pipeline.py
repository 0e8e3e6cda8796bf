"""The distill pipeline: distiller output → L3 record → graph → vectors → session marked done.

A session counts as distilled only when its ``Session`` node carries the hash
of the content it was distilled from, and that mark is set last. A crash at
any point therefore leaves either no record (the session is distilled again)
or a record without the mark (the record is replayed: same card ids, MERGE
semantics, no duplicates and no second model call).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..foundations.domain import Card, Link, Session, card_id_for, millis_now
from ..foundations.errors import AlayaError
from ..foundations.relations import directed, is_core, relation_embedding_text
from ..raw.distilled import DistilledRecord, DistilledStore
from ..raw.journal import Journal
from ..raw.store import RawStore
from .base import Distillation, Distiller
from .similarity import SimilarityIndex

if TYPE_CHECKING:
    import numpy as np

    from ..embedding.base import Embedder
    from ..graph.store import GraphStore
    from ..vectors.store import VectorStore

log = logging.getLogger(__name__)

WRITE_EVERY = 8
"""Sessions distilled before one step writes them: their graph writes commit once, their links one statement per
rel table (per session, those statements and commits were most of the graph's time)."""
WRITE_WITHIN = 0.5
"""Seconds the first distilled session of a batch waits at most: a slow (LLM) distiller's sessions are each
written as soon as they are distilled."""


@dataclass
class SessionOutcome:
    session_id: str
    status: str
    """``distilled``, ``resumed`` (an L3 record replayed), ``skipped`` (nothing to extract), ``failed``,
    ``up_to_date`` or, with ``--dry-run``, ``would_distill`` or ``would_skip`` (nothing to extract)."""
    cards: list[dict] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)
    dropped_links: int = 0
    reason: str | None = None

    def to_json(self) -> dict:
        return {"session_id": self.session_id, "status": self.status, "cards": self.cards, "links": self.links,
                "dropped_links": self.dropped_links, "reason": self.reason}


@dataclass
class DistillReport:
    sessions: list[SessionOutcome]
    distiller: str
    dry_run: bool = False
    windows_embedded: int = 0
    """Windows of raw turns an ingest left waiting, embedded by this run."""

    def count(self, status: str) -> int:
        return sum(1 for outcome in self.sessions if outcome.status == status)

    @property
    def failed(self) -> int:
        return self.count("failed")

    def to_json(self) -> dict:
        return {
            "distiller": self.distiller,
            "dry_run": self.dry_run,
            "sessions_distilled": self.count("distilled") + self.count("resumed"),
            "sessions_skipped": self.count("skipped"),
            "sessions_failed": self.failed,
            "cards_created": sum(len(o.cards) for o in self.sessions if o.status != "up_to_date"),
            "links_created": sum(len(o.links) for o in self.sessions if o.status != "up_to_date"),
            "windows_embedded": self.windows_embedded,
            "sessions": [outcome.to_json() for outcome in self.sessions],
        }


@dataclass
class _Drafted:
    """A session distilled outside the step (or its L3 record read back to replay), its cards waiting for their
    vectors: the sessions of one step are embedded together."""
    record: DistilledRecord
    """Its ``SIMILAR_TO`` links not made yet (they need the vectors)."""
    session: Session | None
    """The session it was distilled from; None for a record replayed as it is (``resumed``)."""


@dataclass
class _Distilled:
    """A session distilled and embedded, waiting for the step that writes it."""
    record: DistilledRecord
    vectors: "np.ndarray"
    session: Session | None
    """The session it was distilled from; None for a record replayed as it is (``resumed``)."""


class DistillPipeline:
    def __init__(self, *, raw: RawStore, records: DistilledStore, graph: "GraphStore", vectors: "VectorStore",
                 embedder: "Embedder", distiller: Distiller, similar_threshold: float,
                 step: Callable[[], AbstractContextManager], journal: Journal,
                 clock: Callable[[Session], int] | None = None):
        """``step`` guards each write to the store; the distiller itself (maybe a slow LLM) runs outside it.
        ``clock`` dates a session's cards and links (default: now); the demo dates them at their session's time,
        as if each session had been distilled when it happened."""
        self.journal = journal
        self.clock = clock or (lambda _session: millis_now())
        self.raw = raw
        self.records = records
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.distiller = distiller
        self.similar_threshold = similar_threshold
        self.step = step
        self._known_relations = set(vectors.relation_names())
        self._pending: list[tuple[DistilledRecord, "np.ndarray"]] = []
        with step():
            ids, matrix = vectors.active_vectors()
            self.index = SimilarityIndex(ids, matrix, graph.card_sessions())

    def run(self, targets: list[tuple[str, str, str | None]], force: bool, dry_run: bool,
            progress: Callable[[int, int], None] | None = None) -> DistillReport:
        outcomes: list[SessionOutcome] = []
        queue: list[SessionOutcome | _Drafted] = []
        waiting_since: float | None = None
        for position, (session_id, content_hash, distilled_hash) in enumerate(targets, start=1):
            queue.append(self._distill(session_id, content_hash, distilled_hash, force))
            if waiting_since is None and isinstance(queue[-1], _Drafted):
                waiting_since = time.monotonic()
            if (waiting_since is None or len(queue) == WRITE_EVERY or position == len(targets)
                    or time.monotonic() - waiting_since >= WRITE_WITHIN):
                outcomes.extend(self._write(self._embedded(queue, dry_run), force))
                queue, waiting_since = [], None
                if progress:
                    progress(len(outcomes), len(targets))
        with self.step():
            self._flush()
            if not dry_run and any(o.status in ("distilled", "resumed") for o in outcomes):
                self.vectors.set_relation_frequencies(self.graph.counts()["links_by_relation"])
                self.vectors.refresh_full_text_index()
        return DistillReport(outcomes, distiller=self.distiller.name, dry_run=dry_run)

    def _distill(self, session_id: str, content_hash: str, distilled_hash: str | None, force: bool
                 ) -> SessionOutcome | _Drafted:
        """Distill one session, or read back its L3 record to replay, outside the step: what is left to embed and
        write, or the session's outcome when nothing is."""
        record = self._recorded(session_id, content_hash, force)
        if record is not None:
            return _outcome(record, "up_to_date") if distilled_hash == content_hash else _Drafted(record, None)
        session = self.raw.read(self.raw.find(session_id))
        try:
            distillation = self.distiller.distill(session)
        except AlayaError as error:
            log.warning("distill failed for %s: %s", session_id, error.message)
            return SessionOutcome(session_id, "failed", reason=error.message)
        return _Drafted(self._record(session, content_hash, distillation), session)

    def _embedded(self, queue: list[SessionOutcome | _Drafted], dry_run: bool) -> list[SessionOutcome | _Distilled]:
        """The queue with its sessions' cards embedded, all in one call (each session's as a call of its own would
        embed them: the same vectors), then each session's cards linked to the similar cards of the sessions before
        it, in the queue's order; with ``dry_run``, the outcome each would have."""
        drafted = [item for item in queue if isinstance(item, _Drafted)]
        vectors = iter(self.embedder.embed_each([[card.embedding_text() for card in item.record.cards]
                                                 for item in drafted]))
        embedded: list[SessionOutcome | _Distilled] = []
        for item in queue:
            if isinstance(item, SessionOutcome):
                embedded.append(item)
                continue
            record, matrix = item.record, next(vectors)
            if item.session is None:
                self.index.add(record.session_id, [card.id for card in record.cards], matrix)
                status = "resumed"
            else:
                self._link_similar(record, matrix)
                status = "would_distill" if record.cards else "would_skip"
            embedded.append(_outcome(record, status) if dry_run else _Distilled(record, matrix, item.session))
        return embedded

    def _write(self, queue: list[SessionOutcome | _Distilled], force: bool) -> list[SessionOutcome]:
        """Write the distilled sessions of ``queue`` in one step, all in L3 (their records together) then in the
        graph (one transaction for them all, their links last) and L1, and return every outcome of ``queue`` in its
        order. L1 is written in the same step: a backup taken between steps (on the owner server, beside an
        ``ingest --distill``) saw cards in the graph whose vectors were still waiting, and the restored store failed
        ``verify``."""
        if all(isinstance(item, SessionOutcome) for item in queue):
            return queue
        with self.step():
            distilled = [item for item in queue if isinstance(item, _Distilled) and item.session is not None]
            previous = {item.record.session_id: self.records.read(item.record.session_id) for item in distilled}
            self.records.write_many([(item.record, item.session) for item in distilled
                                     if not _current(previous[item.record.session_id], item.record.session_hash,
                                                     force)])
            with self.graph.transaction():
                waiting: list[Card] = []
                written = [(item, None) if isinstance(item, SessionOutcome)
                           else self._write_one(item, previous, force, waiting) for item in queue]
                self.graph.upsert_cards(waiting)
                links = [link for _, record in written if record is not None for link in record.links]
                self.graph.merge_links(links)
            self._embed_new_relations(links)
            self._flush()
        return [outcome for outcome, _ in written]

    def _write_one(self, distilled: _Distilled, previous: dict[str, DistilledRecord | None], force: bool,
                   waiting: list[Card]) -> tuple[SessionOutcome, DistilledRecord | None]:
        """Apply one session whose L3 record the step wrote, unless another run (an ``ingest --distill`` beside an
        introspect on the owner server) distilled it meanwhile (its ``previous`` record is current; the step left
        it alone): a second record would replace the first in L3 while the graph kept both runs' ``SIMILAR_TO``
        links (their similarity indexes differ). Returns the record applied, whose links are left to the
        caller, its cards to ``waiting`` (:meth:`_apply`)."""
        record = distilled.record
        if distilled.session is None:
            self._apply(record, distilled.vectors, waiting)
            return _outcome(record, "resumed"), record
        before = previous[record.session_id]
        if _current(before, record.session_hash, force):
            return _outcome(before, "up_to_date"), None
        self._apply(record, distilled.vectors, waiting, before)
        return _outcome(record, "distilled" if record.cards else "skipped"), record

    def _recorded(self, session_id: str, content_hash: str, force: bool) -> DistilledRecord | None:
        """The L3 record of this session if it was distilled from this content and is not to be redone."""
        record = self.records.read(session_id)
        return record if _current(record, content_hash, force) else None

    def _record(self, session: Session, content_hash: str, distillation: Distillation) -> DistilledRecord:
        """Give the drafts ids, turn contexts and every link but ``SIMILAR_TO`` (:meth:`_link_similar`)."""
        now = self.clock(session)
        cards, card_turns, ids_by_title = [], {}, {}
        valid_turns = range(len(session.turns))
        for draft in distillation.cards:
            card = Card(id=card_id_for(session.id, draft.title), title=draft.title, content=draft.content,
                        type=draft.type, tags=draft.tags, importance=draft.importance,
                        source_sessions=[session.id], created_at=now, updated_at=now, facts=draft.facts)
            cards.append(card)
            card_turns[card.id] = sorted({t for t in draft.turns if t in valid_turns}) or list(valid_turns)
            ids_by_title[draft.title] = card.id
        links = [Link(card.id, session.id, "EXTRACTED_FROM", created_at=now) for card in cards]
        for draft in distillation.links:
            source, target = ids_by_title.get(draft.from_title), ids_by_title.get(draft.to_title)
            if source and target and source != target:
                links.extend(directed(Link(source, target, draft.relation, draft.weight, draft.reason, now)))
        return DistilledRecord(session_id=session.id, session_hash=content_hash, distiller=self.distiller.name,
                               distilled_at=now, cards=cards, card_turns=card_turns, links=links,
                               dropped_links=distillation.dropped_links, skipped_reason=distillation.skipped_reason)

    def _link_similar(self, record: DistilledRecord, vectors: "np.ndarray") -> None:
        """``SIMILAR_TO`` links from the record's cards to other sessions' cards the index holds; then the cards
        join the index."""
        for card, vector in zip(record.cards, vectors):
            for other, score in self.index.similar(record.session_id, vector, self.similar_threshold):
                record.links.extend(directed(Link(card.id, other, "SIMILAR_TO", round(score, 4),
                                                  f"embedding cosine similarity {score:.2f}", record.distilled_at)))
        self.index.add(record.session_id, [card.id for card in record.cards], vectors)

    def _apply(self, record: DistilledRecord, vectors: "np.ndarray", waiting: list[Card],
               previous: DistilledRecord | None = None) -> None:
        """The record's cards to ``waiting``, which the caller writes to L2 in one statement for the step's sessions
        (a statement a session was 3 ms each); its links (left to the caller), L1 and the done-mark later in the
        step. Cards this session no longer yields are removed, and so are the links only its ``previous`` record
        named: the cards waiting are written first, so that what those removals read and change is the graph the
        sessions before left, as when each session's cards were written at once."""
        new_ids = {card.id for card in record.cards}
        stale = [card_id for card_id in self.graph.cards_extracted_from(record.session_id) if card_id not in new_ids]
        if stale or previous is not None:
            self.graph.upsert_cards(waiting)
            waiting.clear()
        if stale:
            self.graph.delete_cards(stale)
            self.vectors.delete_cards(stale)
            self.records.delete_contexts(stale)
        if previous is not None:
            self._unlink_dropped(previous, record, set(stale))
        waiting.extend(record.cards)
        self._pending.append((record, vectors))

    def _unlink_dropped(self, previous: DistilledRecord, record: DistilledRecord, removed: set[str]) -> None:
        """Remove the links between cards still in the store that the session's previous record named and its new
        one does not (a ``SIMILAR_TO`` the grown store no longer ranks among a card's best, say): rebuilt from L3,
        where the new record replaced the previous one, they would not exist. A link another session's record or
        the journal also names (the same ``SIMILAR_TO`` found from the other side, an ``alaya link``) stays."""
        kept = {link.key for link in record.links}
        dropped = {link.key: link for link in previous.links
                   if link.key not in kept and link.source not in removed and link.target not in removed}
        if not dropped:
            return
        named = self._named_elsewhere(set(dropped), record.session_id)
        for key in dropped.keys() - named:
            self.graph.delete_link(dropped[key])

    def _named_elsewhere(self, keys: set[tuple[str, str, str]], session_id: str) -> set[tuple[str, str, str]]:
        """Those of ``keys`` that the L3 record of another session of their cards, or a journal event, names."""
        cards = sorted({card_id for source, target, _ in keys for card_id in (source, target)})
        named = set()
        for other in self.graph.source_sessions(cards) - {session_id}:
            other_record = self.records.read(other)
            if other_record is not None:
                named |= keys & {link.key for link in other_record.links}
        for event in self.journal.events():
            named |= keys & {Link.from_json(link).key for link in event.get("links", ())}
        return named

    def _embed_new_relations(self, links: list[Link]) -> None:
        fresh: dict[str, str] = {}
        for link in links:
            if not is_core(link.relation) and link.relation not in self._known_relations:
                fresh.setdefault(link.relation, link.reason)
        if fresh:
            names = list(fresh)
            texts = [relation_embedding_text(name, fresh[name]) for name in names]
            self.vectors.upsert_relations(names, self.embedder.embed(texts), is_core=False,
                                          examples=[[fresh[name]] if fresh[name] else [] for name in names])
            self._known_relations.update(names)

    def _flush(self) -> None:
        import numpy as np

        if not self._pending:
            return
        cards = [card for record, _ in self._pending for card in record.cards]
        if cards:
            self.vectors.upsert_cards(cards, np.vstack([vectors for _, vectors in self._pending if len(vectors)]))
        self.graph.mark_distilled([(record.session_id, record.session_hash, record.distilled_at)
                                   for record, _ in self._pending])
        self._pending = []


def _current(record: DistilledRecord | None, content_hash: str, force: bool) -> bool:
    """Whether ``record`` was distilled from this content and is not to be redone."""
    return record is not None and record.session_hash == content_hash and not force


def _outcome(record: DistilledRecord, status: str) -> SessionOutcome:
    titles = {card.id: card.title for card in record.cards}
    return SessionOutcome(
        session_id=record.session_id,
        status=status,
        cards=[{"id": card.id, "title": card.title, "type": card.type} for card in record.cards],
        links=[{"from": titles.get(link.source, link.source), "relation": link.relation,
                "to": titles.get(link.target, link.target)}
               for link in record.links if link.relation != "EXTRACTED_FROM"],
        dropped_links=record.dropped_links,
        reason=record.skipped_reason,
    )
