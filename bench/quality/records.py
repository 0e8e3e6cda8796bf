"""What the harness measures with: turns read from session files, questions whose evidence names turns, and
haystacks (the sessions of one store and the questions asked of it).

A turn is named by its key ``(session id, index in that session's turns)``, not by its dataset ``dia_id``:
MemoryBank's dia_ids (``20230427:0q``) repeat across users, and a cross-lingual store holds several users.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

TurnKey = tuple[str, int]


class MissingData(Exception):
    """The dataset's files are not where the loader looked; the message says where that was."""


@dataclass(frozen=True)
class Turn:
    session_id: str
    index: int
    dia_id: str
    speaker: str
    content: str

    @property
    def key(self) -> TurnKey:
        return self.session_id, self.index

    @property
    def text(self) -> str:
        """What a baseline indexes and returns: ``"speaker: content"``."""
        return f"{self.speaker}: {self.content}" if self.speaker else self.content


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    groups: tuple[str, ...]
    """The row groups it is scored in, e.g. ``("cat 1 multi-hop", "all cats 1-4")``."""
    evidence: frozenset[TurnKey]


@dataclass
class Haystack:
    """One store: the session files ingested together, their turns, and the questions asked of them."""

    name: str
    sessions: list[Path]
    turns: list[Turn]
    questions: list[Question]
    unknown_evidence: int = 0
    """Evidence ids naming no turn of the sessions the evidence is looked up in: left out of every denominator."""


def read_turns(paths: Iterable[Path]) -> list[Turn]:
    """Every turn of the session files, in file and turn order."""
    turns = []
    for path in paths:
        session = json.loads(path.read_text(encoding="utf-8"))
        turns.extend(Turn(session["id"], index, turn.get("dia_id", ""), turn.get("speaker", ""), turn["content"])
                     for index, turn in enumerate(session["turns"]))
    return turns


class EvidenceIndex:
    """Resolves a dataset's evidence ``dia_id`` list to turn keys within the turns that hold the answer."""

    def __init__(self, turns: list[Turn]):
        self.keys = {turn.dia_id: turn.key for turn in turns if turn.dia_id}

    def resolve(self, dia_ids: Iterable[str]) -> tuple[frozenset[TurnKey], int]:
        """The keys of the named turns, and how many names matched no turn."""
        named = set(dia_ids)
        return frozenset(self.keys[name] for name in named if name in self.keys), len(named - self.keys.keys())


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]
