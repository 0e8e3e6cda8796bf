"""Distill coverage: how much of what people said the offline distiller keeps, per dataset and language.

A memory can only recall what its cards hold, so before any ranking question comes this one: did a card come
out of the turn at all? The distiller runs directly on the parsed sessions (no store, no embedder), and each
card's context turns (``CardDraft.turns``, what ``trace`` reads) count as kept. Per dataset:

- ``sessions with a card``: the share of sessions that yield at least one card;
- ``user turns kept``: the share of user turns some card was distilled from;
- ``evidence turns kept``: the share of the turns the dataset's questions point at (``evidence_dia_ids``)
  that some card was distilled from; it bounds what recall can find.

Datasets, read from ``../shared/data/`` and never copied (one row says so when a folder is absent):
MemoryBank's Chinese and English everyday chat (``memorybank/{cn,en}_sessions``, 150 sessions each, with
``{cn,en}_probing_questions.jsonl``) and LoCoMo (``locomo/sessions``, ``queries.jsonl``). The whole run takes
seconds, so ``--quick`` runs it too.

agentset (``agentset/``) labels the knowledge itself, not only the turns questions point at: its rows
(:mod:`bench.agentset_coverage`) judge what the cards of a real store say, item by item. Building that store
takes tens of seconds, so ``--quick`` skips them unless ``distill_coverage`` is named (then its first 6 sessions).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.foundations.domain import Session
from alaya_engine.foundations.errors import AlayaError

from . import agentset_coverage
from .distill_speed import LOCOMO
from .plan import Plan
from .quality.memorybank import MEMORYBANK
from .report import Row, percent, skipped
from .show_cards import load_session

NAME = "distill_coverage"


@dataclass
class Dataset:
    """Session files and their questions; ``group`` names the memory a session or a question belongs to."""

    label: str
    sessions: list[Path]
    questions: Path
    session_group: Callable[[Path], str]
    question_group: Callable[[dict], str]


@dataclass
class Coverage:
    sessions: int = 0
    sessions_with_cards: int = 0
    user_turns: int = 0
    user_turns_kept: int = 0
    cards: int = 0
    refused: int = 0
    """Files ingest would refuse too (a day with no turns): not sessions."""


def datasets() -> list[Dataset | str]:
    """The datasets present, or for each absent one the folder looked in."""
    found: list[Dataset | str] = []
    for language in ("cn", "en"):
        folder = MEMORYBANK / f"{language}_sessions"
        label = f"MemoryBank-{'zh' if language == 'cn' else 'en'}"
        found.append(Dataset(label, sorted(folder.glob("*/*.json")), MEMORYBANK / f"{language}_probing_questions.jsonl",
                             lambda path: path.parent.name, lambda record: record["haystack"])
                     if folder.is_dir() else f"{label}: looked in {folder}")
    folder = LOCOMO / "sessions"
    found.append(Dataset("LoCoMo", sorted(folder.glob("session-*-*.json")), LOCOMO / "queries.jsonl",
                         lambda path: "conv-" + path.stem.split("-")[1], lambda record: record["sample_id"])
                 if folder.is_dir() else f"LoCoMo: looked in {folder}")
    return found


def run(plan: Plan) -> list[Row]:
    found = datasets()
    missing = [dataset for dataset in found if isinstance(dataset, str)]
    if len(missing) == len(found):
        return [skipped(NAME, "datasets not found", "; ".join(missing))] + agentset_coverage.run(plan, NAME)
    distiller = OfflineDistiller()
    rows = [skipped(NAME, "dataset not found", dataset) for dataset in missing]
    for dataset in found:
        if isinstance(dataset, Dataset):
            rows.extend(_measure(dataset, distiller))
    return rows + agentset_coverage.run(plan, NAME)


def _measure(dataset: Dataset, distiller: OfflineDistiller) -> list[Row]:
    coverage = Coverage()
    kept: set[tuple[str, str]] = set()
    for path in dataset.sessions:
        try:
            session = load_session(path)
        except AlayaError:
            coverage.refused += 1
            continue
        cards = distiller.distill(session).cards
        group = dataset.session_group(path)
        card_turns = {index for card in cards for index in card.turns}
        user_turns = [index for index, turn in enumerate(session.turns) if turn.role == "user"]
        coverage.sessions += 1
        coverage.sessions_with_cards += bool(cards)
        coverage.cards += len(cards)
        coverage.user_turns += len(user_turns)
        coverage.user_turns_kept += len(card_turns.intersection(user_turns))
        kept.update((group, _dia_id(session, index)) for index in card_turns)
    evidence = _evidence(dataset)
    label = dataset.label
    return [
        Row(NAME, f"{label}: sessions with a card", percent(coverage.sessions_with_cards, coverage.sessions), "%",
            f"{coverage.sessions_with_cards} of {coverage.sessions}, {coverage.cards} cards"
            + (f", {coverage.refused} empty files left out" if coverage.refused else "")),
        Row(NAME, f"{label}: user turns kept", percent(coverage.user_turns_kept, coverage.user_turns), "%",
            f"{coverage.user_turns_kept} of {coverage.user_turns}"),
        Row(NAME, f"{label}: evidence turns kept", percent(len(evidence & kept), len(evidence)), "%",
            f"{len(evidence & kept)} of {len(evidence)} (evidence_dia_ids of {dataset.questions.name})"),
    ]


def _dia_id(session: Session, index: int) -> str:
    return str(session.turns[index].extra.get("dia_id", f"{session.id}#{index}"))


def _evidence(dataset: Dataset) -> set[tuple[str, str]]:
    """Every (memory, dia_id) a question points at."""
    if not dataset.questions.is_file():
        return set()
    evidence = set()
    for line in dataset.questions.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            evidence.update((dataset.question_group(record), dia_id) for dia_id in record.get("evidence_dia_ids") or [])
    return evidence
