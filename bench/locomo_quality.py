"""Retrieval quality on LoCoMo: do Alaya's cards lead back to the turns that hold the answer?

For each LoCoMo conversation a fresh store is built from that conversation's sessions only (default config:
offline distiller, bundled embedder): ``Engine.init``, ``Engine.open``, ``ingest``, ``distill``. Every question
of categories 1–4 that has evidence is asked with ``engine.recall({"text": question, "max_results": 10})``; each
returned card is mapped to the turns it was distilled from through its context file
(``<home>/raw/contexts/<card_id>-context.json``, what ``engine.trace(card_id)`` reads; read once per card).

Per category and overall, for each method:

- ``recall@K`` (K = 5, 10): the fraction of a question's evidence turns (``dia_id``) covered by the top-K units,
  averaged over questions;
- ``hit@10``: at least one evidence turn covered by the top 10;
- ``MRR@10``: 1 / rank of the first unit covering an evidence turn (0 when none in the top 10).

Methods, all measured in the same run from the same sessions:

- ``alaya cards``: the recall above; a unit is a card, covering the turns of its context;
- ``raw dense``: every turn (``"<speaker>: <content>"``) embedded with the store's own embedder, ranked by cosine
  to the question; a unit is one turn;
- ``raw BM25``: the same turns ranked by a small Okapi BM25 (k1 1.2, b 0.75, lowercase ``[a-z0-9]+`` tokens, no
  stop words, no stemming); a unit is one turn;
- ``window dense``: windows of ``WINDOW`` consecutive turns of one session (stride ``STRIDE``), embedded as
  their joined lines: a card-sized unit without distillation;
- ``raw dense`` / ``raw BM25`` at the cards' turn budget: a card covers several turns, so the raw rankings are
  also cut at N turns, N = the mean number of distinct turns the top-K cards cover (rounded), for K = 5 and 10.

Evidence ids that name no turn of the conversation (2 in the data) are left out of the denominator. Questions of
category 5 (adversarial, no answer) are not scored. Timings: store build, ingest + distill per conversation,
recall per question (the store held open across the recalls, as the owner server holds it), embedding of all turns.

LoCoMo (CC BY-NC) is read from ``../shared/data/locomo/`` (or ``$ALAYA_LOCOMO``) and never copied; without it
this benchmark prints one row saying so. The full run: all 10 conversations; ``--quick`` skips it (one row saying
so) unless it is named with ``--only``, then the first 2 conversations.
"""

from __future__ import annotations

import gc
import json
import math
import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alaya_engine.engine import Engine

from .distill_speed import LOCOMO
from .plan import Plan
from .report import Row, median_p95, skipped

NAME = "locomo_quality"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)
TOP = 10
WINDOW, STRIDE = 3, 2
QUICK_CONVERSATIONS = 2
DEEP = 400  # raw rankings are kept this deep, enough for any turn budget


# --------------------------------------------------------------------------------------------- data


@dataclass
class Turn:
    dia_id: str
    session_id: str
    index: int
    speaker: str
    content: str

    @property
    def text(self) -> str:
        return f"{self.speaker}: {self.content}" if self.speaker else self.content


@dataclass
class Question:
    qid: str
    text: str
    answer: str
    category: int
    evidence: set[str]


def _conversation_of(path: Path) -> str:
    match = re.fullmatch(r"session-(\d+)-(\d+)\.json", path.name)
    return match.group(1) if match else ""


def _session_number(path: Path) -> int:
    return int(path.stem.rsplit("-", 1)[1])


def load_conversations(root: Path) -> dict[str, list[Path]]:
    """conversation number → its session files in session order."""
    conversations: dict[str, list[Path]] = defaultdict(list)
    for path in (root / "sessions").glob("session-*-*.json"):
        if _conversation_of(path):
            conversations[_conversation_of(path)].append(path)
    ordered = sorted(conversations.items(), key=lambda item: int(item[0]))
    return {conv: sorted(paths, key=_session_number) for conv, paths in ordered}


def load_turns(paths: list[Path]) -> list[Turn]:
    turns = []
    for path in paths:
        session = json.loads(path.read_text(encoding="utf-8"))
        for index, turn in enumerate(session["turns"]):
            turns.append(Turn(turn.get("dia_id", ""), session["id"], index, turn.get("speaker", ""), turn["content"]))
    return turns


def load_questions(root: Path) -> dict[str, list[dict]]:
    """conversation number → its query records (all categories)."""
    questions: dict[str, list[dict]] = defaultdict(list)
    with (root / "queries.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                questions[record["sample_id"].split("-", 1)[1]].append(record)
    return questions


# ------------------------------------------------------------------------------------------ baselines


def tokenize(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    """Okapi BM25 over a small fixed corpus; ``scores`` returns one score per document."""

    def __init__(self, documents: list[str], k1: float = 1.2, b: float = 0.75):
        tokenized = [tokenize(document) for document in documents]
        self.k1, self.b = k1, b
        self.size = len(tokenized)
        lengths = np.array([len(tokens) for tokens in tokenized], dtype=np.float64)
        average = lengths.mean() if self.size and lengths.mean() > 0 else 1.0
        self.norm = k1 * (1 - b + b * lengths / average)
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for doc, tokens in enumerate(tokenized):
            for term, count in Counter(tokens).items():
                self.postings[term].append((doc, count))
        self.idf = {term: math.log(1 + (self.size - len(posts) + 0.5) / (len(posts) + 0.5))
                    for term, posts in self.postings.items()}

    def scores(self, query: str) -> np.ndarray:
        scores = np.zeros(self.size, dtype=np.float64)
        for term in set(tokenize(query)):
            posts = self.postings.get(term)
            if not posts:
                continue
            docs = np.fromiter((doc for doc, _ in posts), dtype=np.int64, count=len(posts))
            tf = np.fromiter((count for _, count in posts), dtype=np.float64, count=len(posts))
            scores[docs] += self.idf[term] * tf * (self.k1 + 1) / (tf + self.norm[docs])
        return scores


def _rank(scores: np.ndarray, depth: int) -> list[int]:
    return [int(i) for i in np.argsort(-scores, kind="stable")[:depth]]


def windows(turns: list[Turn]) -> list[list[Turn]]:
    """Runs of ``WINDOW`` consecutive turns inside one session, every ``STRIDE`` turns (the tail included)."""
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_session[turn.session_id].append(turn)
    result = []
    for session_turns in by_session.values():
        starts = list(range(0, max(1, len(session_turns) - WINDOW + 1), STRIDE))
        if starts[-1] + WINDOW < len(session_turns):
            starts.append(len(session_turns) - WINDOW)
        result.extend(session_turns[start:start + WINDOW] for start in starts)
    return result


# ------------------------------------------------------------------------------------------- scoring


@dataclass
class Scored:
    """One question's ranked units under one method; each unit is the set of dia_ids it covers."""
    question: Question
    units: list[set[str]]

    def covered(self, k: int) -> set[str]:
        return set().union(*self.units[:k]) if self.units[:k] else set()

    def recall(self, k: int) -> float:
        return len(self.covered(k) & self.question.evidence) / len(self.question.evidence)

    def hit(self, k: int) -> float:
        return float(bool(self.covered(k) & self.question.evidence))

    def rr(self, k: int) -> float:
        for rank, unit in enumerate(self.units[:k], start=1):
            if unit & self.question.evidence:
                return 1.0 / rank
        return 0.0


@dataclass
class Run:
    """Everything measured, over the conversations evaluated."""
    methods: dict[str, list[Scored]] = field(default_factory=lambda: defaultdict(list))
    card_ids: list[list[str]] = field(default_factory=list)  # per alaya question, the returned card ids
    build_s: list[float] = field(default_factory=list)
    init_s: list[float] = field(default_factory=list)
    embed_turns_s: list[float] = field(default_factory=list)
    recall_ms: list[float] = field(default_factory=list)
    bm25_ms: list[float] = field(default_factory=list)
    sessions: int = 0
    turns: int = 0
    cards: int = 0
    links: int = 0
    card_turns: list[int] = field(default_factory=list)  # context size of every card made
    turns_in_cards: int = 0  # distinct turns inside at least one card
    evidence_total: int = 0
    evidence_in_cards: int = 0
    evidence_dropped: int = 0
    returned_cards: list[int] = field(default_factory=list)  # context size of every card returned (top 10)
    conversations: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    missed_in_no_card: int = 0  # questions with no evidence turn in the top-10 cards, and none in any card
    missed_in_some_card: int = 0  # ... though some evidence turn is in a card recall did not return


def _card_turns(engine: Engine, home: Path, card_id: str, cache: dict[str, set[str]]) -> set[str]:
    """The dia_ids of the turns a card came from: its context file (what ``trace`` reads), else ``trace``."""
    if card_id not in cache:
        path = home / "raw" / "contexts" / f"{card_id}-context.json"
        if path.exists():
            turns = json.loads(path.read_text(encoding="utf-8"))["turns"]
        else:
            turns = engine.trace(card_id).to_json()["context_turns"]
        cache[card_id] = {turn["dia_id"] for turn in turns if turn.get("dia_id")}
    return cache[card_id]


def evaluate_conversation(conv: str, paths: list[Path], records: list[dict], run: Run, scratch: Path) -> None:
    turns = load_turns(paths)
    known = {turn.dia_id for turn in turns}
    questions = []
    for record in records:
        if record["category"] not in CATEGORIES or not record.get("evidence_dia_ids"):
            continue
        evidence = set(record["evidence_dia_ids"])
        run.evidence_dropped += len(evidence - known)
        if evidence & known:
            questions.append(Question(record["qid"], record["question"], str(record["answer"]), record["category"],
                                      evidence & known))
    run.conversations.append(conv)
    run.sessions += len(paths)
    run.turns += len(turns)

    home = scratch / f"home-{conv}"
    started = time.perf_counter()
    Engine.init(home)
    engine = Engine.open(home)
    engine.embedder().embed(["warm up"])
    run.init_s.append(time.perf_counter() - started)

    # Baselines first: they need only the session files and the embedder.
    started = time.perf_counter()
    turn_vectors = engine.embedder().embed([turn.text for turn in turns])
    run.embed_turns_s.append(time.perf_counter() - started)
    spans = windows(turns)
    window_vectors = engine.embedder().embed(["\n".join(turn.text for turn in span) for span in spans])
    question_vectors = engine.embedder().embed([question.text for question in questions])
    bm25 = BM25([turn.text for turn in turns])
    for question, vector in zip(questions, question_vectors):
        run.methods["raw dense"].append(Scored(question, [{turns[i].dia_id}
                                                          for i in _rank(turn_vectors @ vector, DEEP)]))
        run.methods["window dense"].append(Scored(question, [{t.dia_id for t in spans[i]}
                                                             for i in _rank(window_vectors @ vector, TOP)]))
        started = time.perf_counter()
        ranked = _rank(bm25.scores(question.text), DEEP)
        run.bm25_ms.append((time.perf_counter() - started) * 1000)
        run.methods["raw BM25"].append(Scored(question, [{turns[i].dia_id} for i in ranked]))

    started = time.perf_counter()
    engine.ingest([str(path) for path in paths])
    report = engine.distill().to_json()
    run.build_s.append(time.perf_counter() - started)
    run.cards += report["cards_created"]
    run.links += report["links_created"]

    cache: dict[str, set[str]] = {}
    for path in (home / "raw" / "contexts").glob("*-context.json"):
        _card_turns(engine, home, path.name[: -len("-context.json")], cache)
    run.card_turns.extend(len(ids) for ids in cache.values())
    in_cards = set().union(*cache.values()) if cache else set()
    run.turns_in_cards += len(in_cards)
    for question in questions:
        run.evidence_total += len(question.evidence)
        run.evidence_in_cards += len(question.evidence & in_cards)

    with engine.hold():  # the graph kept open across recalls, as the owner server keeps it
        for question in questions:
            started = time.perf_counter()
            result = engine.recall({"text": question.text, "max_results": TOP})
            run.recall_ms.append((time.perf_counter() - started) * 1000)
            ids = [node.card_id for node in result.nodes]
            units = [_card_turns(engine, home, card_id, cache) for card_id in ids]
            run.returned_cards.extend(len(unit) for unit in units)
            run.card_ids.append(ids)
            run.methods["alaya cards"].append(Scored(question, units))
            if not run.methods["alaya cards"][-1].hit(TOP):
                if question.evidence & in_cards:
                    run.missed_in_some_card += 1
                else:
                    run.missed_in_no_card += 1
    del engine
    gc.collect()


# -------------------------------------------------------------------------------------------- report


def _group(scored: list[Scored]) -> list[tuple[str, list[Scored]]]:
    groups = [(f"cat {c} {name}", [s for s in scored if s.question.category == c]) for c, name in CATEGORIES.items()]
    return groups + [("all cats 1-4", scored)]


def _quality_rows(run: Run, budget: dict[int, int]) -> list[Row]:
    rows = []
    fixed = ("alaya cards", "raw dense", "raw BM25", "window dense")
    for index, (label, _) in enumerate(_group(run.methods["alaya cards"])):
        for method in fixed:
            scored = _group(run.methods[method])[index][1]
            if not scored:
                continue
            unit = {"window dense": f"{WINDOW}-turn windows", "alaya cards": "cards"}.get(method, "turns")
            rows.append(Row(NAME, f"LoCoMo {label}: recall@10 — {method}",
                            statistics.mean(s.recall(10) for s in scored), "recall",
                            f"r@5 {statistics.mean(s.recall(5) for s in scored):.3f}, "
                            f"hit@10 {statistics.mean(s.hit(10) for s in scored):.3f}, "
                            f"MRR@10 {statistics.mean(s.rr(10) for s in scored):.3f}, "
                            f"top-10 {unit} cover {statistics.mean(len(s.covered(10)) for s in scored):.1f} turns, "
                            f"{len(scored)} questions"))
        for method in ("raw dense", "raw BM25"):
            scored = _group(run.methods[method])[index][1]
            if not scored:
                continue
            n5, n10 = budget[5], budget[10]
            rows.append(Row(NAME, f"LoCoMo {label}: recall@{n10} turns (cards' budget@10) — {method}",
                            statistics.mean(s.recall(n10) for s in scored), "recall",
                            f"r@{n5} turns (budget@5) {statistics.mean(s.recall(n5) for s in scored):.3f}, "
                            f"hit@{n10} {statistics.mean(s.hit(n10) for s in scored):.3f}, {len(scored)} questions"))
    return rows


def _budget(run: Run) -> tuple[dict[int, int], dict[int, float]]:
    cards = run.methods["alaya cards"]
    covered = {k: statistics.mean(len(s.covered(k)) for s in cards) if cards else 0.0 for k in KS}
    return {k: max(1, round(value)) for k, value in covered.items()}, covered


def run(plan: Plan) -> list[Row]:
    if plan.quick and NAME not in plan.named:
        return [skipped(NAME, "skipped in --quick", "minutes of distilling and embedding; run without --quick, "
                                                    "or --quick --only locomo_quality for 2 conversations")]
    conversations = load_conversations(LOCOMO) if (LOCOMO / "sessions").is_dir() else {}
    if not conversations or not (LOCOMO / "queries.jsonl").is_file():
        return [skipped(NAME, "LoCoMo not found", f"looked in {LOCOMO} (sessions/ and queries.jsonl)")]
    chosen = list(conversations.items())[: QUICK_CONVERSATIONS if plan.quick else None]
    return rows_for(measure(chosen, load_questions(LOCOMO)))


def measure(chosen: list[tuple[str, list[Path]]], questions: dict[str, list[dict]]) -> Run:
    result = Run()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="alaya-bench-locomo-") as scratch:
        for conv, paths in chosen:
            evaluate_conversation(conv, paths, questions.get(conv, []), result, Path(scratch))
    result.wall_s = time.perf_counter() - started
    return result


def rows_for(run: Run) -> list[Row]:
    budget, covered = _budget(run)
    rows = _quality_rows(run, budget)
    returned = run.returned_cards or [0]
    asked = len(run.methods["alaya cards"])
    rows.append(Row(NAME, "LoCoMo: turns covered by the top-K cards (mean distinct)", covered[10], "turns",
                    f"top-5 {covered[5]:.1f}; {statistics.mean(returned):.2f} turns per returned card, "
                    f"{len(run.returned_cards) / max(1, asked):.1f} cards returned per question (max {TOP}); "
                    f"raw budgets: {budget[5]} and {budget[10]} turns"))
    rows.append(Row(NAME, "LoCoMo: evidence turns inside any card (ceiling for cards)",
                    run.evidence_in_cards / max(1, run.evidence_total), "fraction",
                    f"{run.evidence_in_cards}/{run.evidence_total} evidence turns; cards cover "
                    f"{run.turns_in_cards}/{run.turns} turns ({run.turns_in_cards / max(1, run.turns):.0%}); "
                    f"{run.evidence_dropped} evidence ids naming no turn left out"))
    missed = run.missed_in_no_card + run.missed_in_some_card
    rows.append(Row(NAME, "LoCoMo: card misses@10 whose evidence is in no card (distill, not recall)",
                    run.missed_in_no_card / max(1, missed), "fraction",
                    f"{run.missed_in_no_card} of {missed} questions without an evidence turn in the top-10 cards have "
                    f"none in any card; {run.missed_in_some_card} have one in a card recall did not return"))
    rows.append(Row(NAME, "LoCoMo: cards made", run.cards, "cards",
                    f"{len(run.conversations)} conversations, {run.sessions} sessions, {run.turns} turns; "
                    f"{statistics.mean(run.card_turns or [0]):.2f} turns per card; {run.links} links"))
    p50, p95 = median_p95(run.build_s)
    rows.append(Row(NAME, "LoCoMo: ingest + distill per conversation", p50, "s p50",
                    f"p95 {p95:.1f} s, total {sum(run.build_s):.1f} s for {len(run.build_s)} conversations "
                    f"(offline distiller, embeddings, graph, LanceDB)"))
    p50, p95 = median_p95(run.init_s)
    rows.append(Row(NAME, "LoCoMo: Engine.init + open + embedder warm-up per store", p50, "s p50",
                    f"first {run.init_s[0]:.1f} s, p95 {p95:.1f} s, total {sum(run.init_s):.1f} s"))
    embedded = sum(run.embed_turns_s)
    rows.append(Row(NAME, "LoCoMo: raw dense, embed every turn", run.turns / embedded, "turns/s",
                    f"{embedded:.1f} s for {run.turns} turns"))
    p50, p95 = median_p95(run.recall_ms)
    rows.append(Row(NAME, "LoCoMo: alaya recall per question (in-process, store held, max_results 10)", p50, "ms p50",
                    f"p95 {p95:.0f} ms, {len(run.recall_ms)} questions, total {sum(run.recall_ms) / 1000:.1f} s"))
    p50, p95 = median_p95(run.bm25_ms)
    rows.append(Row(NAME, "LoCoMo: raw BM25 rank per question", p50, "ms p50", f"p95 {p95:.2f} ms"))
    rows.append(Row(NAME, "LoCoMo: whole benchmark", run.wall_s, "s",
                    f"conversations {', '.join(run.conversations)}"))
    return rows
