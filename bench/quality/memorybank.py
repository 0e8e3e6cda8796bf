"""MemoryBank-SiliconFriend as haystacks: one per user, in one language or across two.

The Chinese bank (``cn_sessions/cn-uN/``, ``cn_probing_questions.jsonl``) and its English translation
(``en_sessions/en-uN/``, ``en_probing_questions.jsonl``) line up: user N is the same person in both, with the same
days and exchange ids (``dia_id`` ``<YYYYMMDD>:<k>q`` / ``:<k>r``), and question ``qK`` of user N is the same
question. 92 of the 100 questions carry evidence turn ids; the others are not asked.

- :func:`monolingual`: a store holds user N's sessions, asked user N's questions in the same language;
- :func:`crosslingual`: a store holds user N's sessions in the memory language plus, as same-language
  distractors for the question, the sessions of the ``DISTRACTORS`` next users (N+1, N+2, N+3, wrapping) in the
  question's language; user N's questions are asked in the question's language, their evidence the labels of the
  memory language's question file resolved in user N's memory-language sessions. Three other users are three
  times as much distractor text as memory, with the same shape (an everyday chat with the AI companion), so a
  method that prefers its own language over the answer shows it.

Read from ``../shared/data/memorybank/`` or ``$ALAYA_MEMORYBANK`` (MIT), never copied.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..distill_speed import LOCOMO
from .records import EvidenceIndex, Haystack, MissingData, Question, read_jsonl, read_turns

MEMORYBANK = Path(os.environ.get("ALAYA_MEMORYBANK", LOCOMO.parent / "memorybank"))
LANGUAGES = {"cn": "Chinese", "en": "English"}
DISTRACTORS = 3


def users(language: str, root: Path = MEMORYBANK) -> dict[int, list[Path]]:
    """User number → the user's day-session files in day order, users in number order."""
    folder = root / f"{language}_sessions"
    found = {int(user.name.rsplit("-u", 1)[1]): sorted(user.glob("*.json")) for user in folder.glob(f"{language}-u*")}
    if not found or not (root / f"{language}_probing_questions.jsonl").is_file():
        raise MissingData(f"looked in {root} ({language}_sessions/{language}-uN/ and "
                          f"{language}_probing_questions.jsonl)")
    return dict(sorted(found.items()))


def probing(language: str, root: Path = MEMORYBANK) -> dict[tuple[int, str], dict]:
    """(user number, question number ``qK``) → the probing question's record."""
    questions = {}
    for record in read_jsonl(root / f"{language}_probing_questions.jsonl"):
        user = int(record["haystack"].rsplit("-u", 1)[1])
        questions[user, record["qid"].rsplit("-", 1)[1]] = record
    return questions


def _ask(asked: dict[tuple[int, str], dict], labels: dict[tuple[int, str], dict], user: int,
         memory_turns: list, group: str) -> tuple[list[Question], int]:
    """User ``user``'s questions from ``asked`` with the evidence ``labels`` gives them in ``memory_turns``."""
    index = EvidenceIndex(memory_turns)
    questions, unknown = [], 0
    for (owner, number), record in asked.items():
        label = labels.get((owner, number), {}).get("evidence_dia_ids")
        if owner != user or not label:
            continue
        evidence, missing = index.resolve(label)
        unknown += missing
        if evidence:
            questions.append(Question(record["qid"], record["question"], (group,), evidence))
    return questions, unknown


def monolingual_group(language: str) -> str:
    return LANGUAGES[language]


def monolingual(language: str, limit: int | None = None, root: Path = MEMORYBANK) -> list[Haystack]:
    """One store per user (the first ``limit`` users; all when None)."""
    found = users(language, root)
    records = probing(language, root)
    result = []
    for user, paths in list(found.items())[:limit]:
        turns = read_turns(paths)
        questions, unknown = _ask(records, records, user, turns, monolingual_group(language))
        result.append(Haystack(f"{language}-u{user}", paths, turns, questions, unknown))
    return result


def crosslingual_group(question_language: str, memory_language: str) -> str:
    return f"{question_language} questions over {memory_language} memory"


def crosslingual(question_language: str, memory_language: str, limit: int | None = None,
                 root: Path = MEMORYBANK) -> list[Haystack]:
    """One store per user (the first ``limit``; distractors drawn from all users)."""
    memories, distractors = users(memory_language, root), users(question_language, root)
    asked, labels = probing(question_language, root), probing(memory_language, root)
    numbers = list(distractors)
    result = []
    for user, paths in list(memories.items())[:limit]:
        position = numbers.index(user)
        others = [numbers[(position + step) % len(numbers)] for step in range(1, DISTRACTORS + 1)]
        memory_turns = read_turns(paths)
        sessions = paths + [path for other in others for path in distractors[other]]
        questions, unknown = _ask(asked, labels, user, memory_turns,
                                  crosslingual_group(question_language, memory_language))
        result.append(Haystack(f"{question_language}→{memory_language}-u{user}", sessions,
                               memory_turns + read_turns(sessions[len(paths):]), questions, unknown))
    return result
