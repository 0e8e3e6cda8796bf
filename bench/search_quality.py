"""How much of the exact vector search the two-stage search keeps, on real texts.

Synthetic card vectors are composed from a few hundred topic vectors, so their principal directions carry
nearly everything and any projection looks good on them. Real sentence embeddings spread over many more
directions. This benchmark embeds up to 100k real texts with the store's default embedder:

- LoCoMo turns, observations and session summaries (read from ``../shared/data/locomo/`` or ``$ALAYA_LOCOMO``,
  never copied), when present;
- comment and docstring lines of the Python standard library and the installed packages (prose lines of
  30–200 characters with at least five words), shuffled with a fixed seed.

Queries: 300 LoCoMo questions as one concept each, and 300 pairs of questions as one free text
``"a; b"`` (three concepts: the whole and its two parts); without LoCoMo, held-out comment lines instead. For
each query the exact top 20 (one product over the whole matrix) is compared with
:meth:`ResidentVectors.vector_search` forced into two stages, under the shipped settings, with half the
candidates (the margin), two earlier ones (no residual allowance; no allowance and twice the candidates), and
with the coarse stage's lists (:mod:`alaya_engine.recall.partition`), which the shipped search uses only above
``PARTITION_ROWS``.
Reported: the share of exact top-20 members found, and the share of queries whose top-20 set is identical.

``--quick``: 1k texts and 20 queries; the full run: 100k texts and 600 queries (~4 minutes, most of it the
embedding).
"""

from __future__ import annotations

import json
import random
import re
import statistics
import sysconfig
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from alaya_engine.embedding.local import LocalEmbedder
from alaya_engine.foundations.config import default_config
from alaya_engine.recall import index as card_index
from alaya_engine.recall import partition
from alaya_engine.recall.query import build_query

from .distill_speed import LOCOMO
from .plan import Plan
from .report import Row

NAME = "search_quality"
TOP = 20
PROSE = re.compile(r"^(?:#\s*)?[A-Za-z][^=(){}\[\];:\"'`]{29,199}$")
SETTINGS = {
    "shipped": {},
    "half the candidates": {"CANDIDATE_SHARE": card_index.CANDIDATE_SHARE * 2,
                            "MIN_CANDIDATES": card_index.MIN_CANDIDATES // 2},
    "no allowance": {"RESIDUAL_ALLOWANCE": 0.0},
    "no allowance, 2x candidates": {"RESIDUAL_ALLOWANCE": 0.0, "CANDIDATE_SHARE": card_index.CANDIDATE_SHARE // 2},
    f"lists (as above {partition.PARTITION_ROWS:,} rows)": {"partition.PARTITION_ROWS": 0},
}


def _locomo() -> tuple[list[str], list[str]]:
    """LoCoMo texts and questions, or two empty lists without the data."""
    path = LOCOMO / "locomo10.json"
    if not path.exists():
        return [], []
    texts, questions = [], []
    for conversation in json.loads(path.read_text(encoding="utf-8")):
        for key, turns in conversation["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                texts += [turn["text"] for turn in turns if turn.get("text")]
        for observations in (conversation.get("observation") or {}).values():
            for facts in (observations.values() if isinstance(observations, dict) else ()):
                texts += [fact[0] if isinstance(fact, list) else str(fact) for fact in facts]
        texts += [str(summary) for summary in (conversation.get("session_summary") or {}).values()]
        questions += [item["question"] for item in conversation["qa"]]
    return texts, questions


def _prose_lines(enough: int | None = None) -> list[str]:
    """Comment and docstring lines of the installed Python code, in a fixed order; with ``enough``, files are read
    in path order only until that many are found (``--quick``: reading them all takes seconds)."""
    lines: set[str] = set()
    folders = sorted({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]})
    for path in sorted(path for folder in folders for path in Path(folder).rglob("*.py")):
        if enough is not None and len(lines) >= enough:
            break
        try:
            text = path.read_text(encoding="utf-8", errors="ignore")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip().strip("\"'").strip()
            if len(line.split()) >= 5 and PROSE.match(line):
                lines.add(line.lstrip("# "))
    ordered = sorted(lines)
    random.Random(3).shuffle(ordered)
    return ordered


@contextmanager
def _settings(values: dict):
    """Module constants set for a while: ``NAME`` of :mod:`alaya_engine.recall.index`, ``partition.NAME`` of
    :mod:`alaya_engine.recall.partition`."""
    def owner(name: str):
        return (partition, name.split(".")[1]) if name.startswith("partition.") else (card_index, name)

    saved = {name: getattr(*owner(name)) for name in values}
    for name, value in values.items():
        setattr(*owner(name), value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(*owner(name), value)


def _exact_top(matrix: np.ndarray, queries: np.ndarray) -> set[int]:
    best = card_index.best_similarity(matrix, queries)
    return set(np.argpartition(-best, TOP - 1)[:TOP].tolist())


def run(plan: Plan) -> list[Row]:
    size, asked = plan.pick(1_000, 100_000), plan.pick(20, 600)
    texts, questions = _locomo()
    prose = _prose_lines(size + 2 * asked if plan.quick else None) if not questions or len(texts) < size else []
    if questions:
        random.Random(2).shuffle(questions)
        source = f"{len(texts)} LoCoMo texts{' + comment lines' if len(texts) < size else ''}; LoCoMo questions"
    else:
        questions, prose = prose[:asked * 2], prose[asked * 2:]
        source = "comment lines (LoCoMo absent); held-out comment lines as questions"
    corpus = (texts + prose)[:size]
    half = asked // 2
    free_texts = questions[:half] + [f"{a}; {b}" for a, b in zip(questions[half:asked], questions[asked:asked + half])]
    embedder, recall_settings = LocalEmbedder(), default_config()["recall"]
    started = time.perf_counter()
    matrix = np.vstack([embedder.embed(corpus[start:start + 512]) for start in range(0, len(corpus), 512)])
    embed_seconds = time.perf_counter() - started
    queries = [embedder.embed(build_query({"text": text}, recall_settings).concepts) for text in free_texts]
    exact = [_exact_top(matrix, query) for query in queries]
    ids = [str(row) for row in range(len(matrix))]
    rows = []
    with _settings({"EXACT_SEARCH_ROWS": 0}):
        for label, values in SETTINGS.items():
            with _settings(values):
                resident = card_index.ResidentVectors(ids, matrix)
                found, same, spent = {1: [], 3: []}, {1: [], 3: []}, []
                for query, wanted in zip(queries, exact):
                    began = time.perf_counter()
                    got = {int(card_id) for card_id in resident.vector_search(query, TOP, -1.0)}
                    spent.append((time.perf_counter() - began) * 1000)
                    kind = 1 if len(query) == 1 else 3
                    found[kind].append(len(got & wanted) / TOP)
                    same[kind].append(got == wanted)
                candidates = max(card_index.MIN_CANDIDATES, len(matrix) // card_index.CANDIDATE_SHARE)
                for kind in (1, 3):
                    rows.append(Row(NAME, f"{len(matrix) // 1000}k real texts, {kind} concept{'s' * (kind > 1)}: "
                                          f"{label}", 100 * statistics.mean(found[kind]), "% of exact top-20",
                                    f"same top-20 set for {100 * statistics.mean(same[kind]):.1f}% of "
                                    f"{len(found[kind])} queries; at least {candidates} candidates per concept "
                                    f"(a threshold lets ~{card_index.THRESHOLD_MARGIN:g}x pass); two-stage search "
                                    f"{statistics.median(spent):.1f} ms p50 (both kinds); {source}; embedding "
                                    f"{embed_seconds:.0f} s"))
    return rows
