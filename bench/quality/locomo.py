"""LoCoMo as haystacks: one per conversation (its sessions only: the same names recur across conversations),
asked its questions of categories 1–4 that carry evidence (category 5, adversarial, has no answer).

Read from ``../shared/data/locomo/`` or ``$ALAYA_LOCOMO`` (CC BY-NC), never copied.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ..distill_speed import LOCOMO
from .records import EvidenceIndex, Haystack, MissingData, Question, read_jsonl, read_turns

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
OVERALL = "all cats 1-4"
GROUPS = [f"cat {number} {name}" for number, name in CATEGORIES.items()] + [OVERALL]
_SESSION = re.compile(r"session-(\d+)-(\d+)\.json")


def conversations(root: Path) -> dict[str, list[Path]]:
    """Conversation number → its session files in session order, conversations in number order."""
    found: dict[str, list[tuple[int, Path]]] = defaultdict(list)
    for path in (root / "sessions").glob("session-*-*.json"):
        if match := _SESSION.fullmatch(path.name):
            found[match.group(1)].append((int(match.group(2)), path))
    return {conv: [path for _, path in sorted(found[conv])] for conv in sorted(found, key=int)}


def haystacks(limit: int | None = None, root: Path = LOCOMO) -> list[Haystack]:
    """The first ``limit`` conversations (all when None)."""
    found = conversations(root)
    if not found or not (root / "queries.jsonl").is_file():
        raise MissingData(f"looked in {root} (sessions/ and queries.jsonl)")
    records: dict[str, list[dict]] = defaultdict(list)
    for record in read_jsonl(root / "queries.jsonl"):
        records[record["sample_id"].split("-", 1)[1]].append(record)
    result = []
    for conv, paths in list(found.items())[:limit]:
        turns = read_turns(paths)
        index = EvidenceIndex(turns)
        questions, unknown = [], 0
        for record in records[conv]:
            if record["category"] not in CATEGORIES or not record.get("evidence_dia_ids"):
                continue
            evidence, missing = index.resolve(record["evidence_dia_ids"])
            unknown += missing
            if evidence:
                group = f"cat {record['category']} {CATEGORIES[record['category']]}"
                questions.append(Question(record["qid"], record["question"], (group, OVERALL), evidence))
        result.append(Haystack(f"conv {conv}", paths, turns, questions, unknown))
    return result
