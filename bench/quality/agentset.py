"""agentset as one haystack: agent-work and assistant sessions with every piece of knowledge labelled.

24 sessions (devops, coding, personal assistant; English, Chinese, mixed) go into one store, as one user's
memory would hold them. Beside the sessions and the questions (each with evidence turns and a category) the set
labels its knowledge items: one statement per item, its kind (cause, fix, decision, …) and every turn that
states it; six questions ask about an item that replaced an older one (``current_kid`` / ``stale_kid``).
``meta.jsonl`` is for reports only and never read here.

Sessions are taken in time order (``timestamp``), the order a user's memory grows in; ``limit`` keeps the first
ones, with the items they state and the questions whose evidence lies wholly inside them.

Read from ``../shared/data/agentset/`` or ``$ALAYA_AGENTSET``, never copied.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..distill_speed import LOCOMO
from .records import Haystack, MissingData, Question, TurnKey, read_jsonl, read_turns

AGENTSET = Path(os.environ.get("ALAYA_AGENTSET", LOCOMO.parent / "agentset"))
CATEGORIES = ("single", "cross-lingual", "update", "multi-hop", "contradiction")
OVERALL = "all"
GROUPS = [*CATEGORIES, OVERALL]
KINDS = ("cause", "fix", "decision", "rule", "preference", "fact", "gotcha", "plan")


@dataclass(frozen=True)
class Item:
    """One labelled piece of knowledge."""

    kid: str
    session_id: str
    turns: frozenset[TurnKey]
    """Every turn that states it."""
    kind: str
    statement: str


@dataclass(frozen=True)
class Update:
    """A question about knowledge that replaced older knowledge: the turns of the current item and the stale one."""

    qid: str
    current: frozenset[TurnKey]
    stale: frozenset[TurnKey]


@dataclass(frozen=True)
class Relation:
    """A labelled pair: ``newer`` supersedes (replaces) or contradicts (disagrees with) ``older``."""

    kind: str
    """``supersedes`` or ``contradicts``."""
    newer: Item
    older: Item


@dataclass
class Agentset:
    haystack: Haystack
    items: list[Item]
    updates: list[Update]
    relations: list[Relation] = field(default_factory=list)

    @property
    def session_ids(self) -> list[str]:
        return list(dict.fromkeys(turn.session_id for turn in self.haystack.turns))


def load(limit: int | None = None, root: Path = AGENTSET) -> Agentset:
    """The first ``limit`` sessions by time (all when None), their items and the questions they answer."""
    folder = root / "sessions"
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not paths or not (root / "labels.jsonl").is_file() or not (root / "questions.jsonl").is_file():
        raise MissingData(f"looked in {root} (sessions/, labels.jsonl and questions.jsonl)")
    paths = sorted(paths, key=lambda path: json.loads(path.read_text(encoding="utf-8"))["timestamp"])[:limit]
    turns = read_turns(paths)
    known = {turn.key for turn in turns}
    items, pairs = {}, []
    for record in read_jsonl(root / "labels.jsonl"):
        keys = frozenset((record["session_id"], index) for index in record["turns"])
        if keys <= known:
            items[record["kid"]] = Item(record["kid"], record["session_id"], keys, record["kind"],
                                        record["statement"])
            pairs.extend((kind, record["kid"], record[kind]) for kind in ("supersedes", "contradicts")
                         if record.get(kind))
    questions, updates = [], []
    for record in read_jsonl(root / "questions.jsonl"):
        evidence = frozenset((turn["session_id"], turn["turn"]) for turn in record["evidence"])
        if not evidence <= known:
            continue
        questions.append(Question(record["qid"], record["question"], (record["category"], OVERALL), evidence))
        if record.get("current_kid") and record.get("stale_kid"):
            updates.append(Update(record["qid"], items[record["current_kid"]].turns, items[record["stale_kid"]].turns))
    name = "agentset" if limit is None else f"agentset, first {len(paths)} sessions"
    relations = [Relation(kind, items[newer], items[older]) for kind, newer, older in pairs
                 if newer in items and older in items]
    return Agentset(Haystack(name, paths, turns, questions), list(items.values()), updates, relations)
