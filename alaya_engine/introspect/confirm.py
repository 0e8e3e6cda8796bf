"""LLM-confirmed merges: pending duplicate candidates put to the model, most similar first, a few per run.

A pair the model confirms is merged through the same code path as ``alaya review approve`` (journaled
``card.merge`` with the merged card, its text possibly the model's) and its suggestion approved; a pair it
calls different is rejected, so it is never asked again. The decision, model and reason are kept in the
suggestion's evidence. An unusable answer leaves the pair pending with the error noted (asked again next run);
a failing endpoint ends this run's questions and leaves the rest pending. The model is asked outside the
store's step lock, so recalls are answered while it thinks; each decision is saved at once.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..foundations.errors import AlayaError
from .apply import MergedText
from .merge_judge import JudgeUnavailable, MergeJudge, UnusableAnswer
from .suggestions import Suggestion, SuggestionStore

if TYPE_CHECKING:
    from ..graph.store import GraphStore


@dataclass
class MergeConfirmation:
    """What the engine lends consolidate to confirm merges."""

    judge: MergeJudge
    merge: Callable[[str, str, MergedText], dict]
    """The review-approve merge (takes its own store step)."""
    resolve: Callable[[str], str]
    """A card id, merged-away ids followed to the card that absorbed them."""
    limit: int
    """At most this many pairs asked per run."""


@dataclass
class ConfirmReport:
    model: str
    asked: int = 0
    merged: list[dict] = field(default_factory=list)
    rejected: int = 0
    unusable: int = 0
    error: str | None = None
    """Why the questions stopped early (endpoint unreachable, refused, …); the pairs left stay pending."""

    def to_json(self) -> dict:
        return asdict(self)


def confirm_merges(confirmation: MergeConfirmation, *, store: SuggestionStore, graph: "GraphStore", now: int,
                   step: Callable[[], AbstractContextManager]) -> ConfirmReport:
    report = ConfirmReport(model=confirmation.judge.name)
    candidates = sorted((s for s in store.all("pending") if s.kind == "merge_cards"),
                        key=lambda s: (-s.evidence.get("similarity", 0.0), s.id))
    try:
        for suggestion in candidates[:confirmation.limit]:
            first, second = (confirmation.resolve(subject) for subject in suggestion.subjects)
            if first == second:  # merged meanwhile, through another pair
                _decide(store, suggestion, "approved", now, already_merged=True)
                continue
            with step():
                cards = graph.cards([first, second])
            if len(cards) < 2:
                continue  # a card is gone: a person rejects this one
            report.asked += 1
            try:
                verdict = confirmation.judge.judge(cards[first], cards[second])
                outcome = confirmation.merge(first, second, verdict.text) if verdict.same else {}
            except UnusableAnswer as exc:
                report.unusable += 1
                _note_failure(store, suggestion, str(exc), now)
                continue
            except AlayaError as exc:  # the merge refused (a card vanished between the read and the merge)
                _note_failure(store, suggestion, exc.message, now)
                continue
            if verdict.same:
                report.merged.append({"suggestion": suggestion.id, **outcome})
            else:
                report.rejected += 1
            _decide(store, suggestion, "approved" if verdict.same else "rejected", now, decided_by="llm",
                    llm_model=confirmation.judge.name, llm_reason=verdict.reason)
    except JudgeUnavailable as exc:
        report.error = str(exc)
    finally:
        confirmation.judge.close()
    return report


def _decide(store: SuggestionStore, suggestion: Suggestion, status: str, now: int, **evidence) -> None:
    suggestion.status, suggestion.updated_at = status, now
    suggestion.evidence.pop("llm_error", None)
    suggestion.evidence.update(evidence)
    store.save()


def _note_failure(store: SuggestionStore, suggestion: Suggestion, error: str, now: int) -> None:
    suggestion.evidence["llm_error"] = error
    suggestion.updated_at = now
    store.save()
