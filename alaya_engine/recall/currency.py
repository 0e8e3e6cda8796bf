"""Current knowledge first: what a later card replaced ranks right after its replacement, marked as replaced.

Introspect links ``SUPERSEDES`` (new → old) with ``SUPERSEDED_BY`` back (:mod:`..introspect.supersede`). A
returned card that is superseded, or a window of raw turns holding what such a card was distilled from, is
*stale*: it gets ``superseded_by`` (the current cards) and ``valid_to`` (when the first of them was said), and
keeps its place with its current card moved up to just before it, or brought into the result there when search
ranked it just below the cut (``current_node`` decides). Stale units are kept, not dropped: what held before is
part of the answer ("it used to be 120 s"), and a question may be about the past. ``as_of`` answers as the memory
stood then: a replacement said later does not count.

Without a link, a question about the present ("what is the timeout now?", "还吃铁片吗？") puts the newer of two
units that answer it about equally well first (:func:`newer_first`): an update introspect did not read, said in
other words or in the other language, is then still read first. Any other question does so too for two units that
both say what it asks about (the same two or more of its words): "what's the ack_wait on the ledger-writer
consumer?" asks for the value that holds, and of two statements of it the later one usually does.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..foundations.terms import CJK_CHAR, CJK_CHARS, term_list

if TYPE_CHECKING:
    from ..graph.reader import GraphReader
    from .result import RecallNode


def put_current_first(nodes: list["RecallNode"], graph: "GraphReader", *, limit: int, as_of: int | None,
                      question: str | None, context_turns: Callable[[str, str], set[int]],
                      current_node: Callable[[str], "RecallNode | None"]) -> list["RecallNode"]:
    """``context_turns(card_id, session_id)``: the turns of that session the card was distilled from;
    ``current_node(card_id)``: the current card as a result node, when the search ranked it close enough below the
    cut to be brought in; None when it did not: a replacement the question does not reach is not brought in. The
    newer of two equal answers comes first (:func:`newer_first`) while the units are still in the order of their h,
    before each stale unit is put after its current card."""
    supersessions = graph.supersessions() if nodes else {}
    said = first_said(graph, sorted({new for _, news in supersessions.values() for new in news})) if supersessions \
        else {}
    current = {old: sorted((new for new in news if new in said and (as_of is None or said[new] <= as_of)),
                           key=said.__getitem__)
               for old, (_, news) in supersessions.items()}
    current = {old: news for old, news in current.items() if news}
    for node in nodes if current else ():
        replacing = _replacing(node, current, supersessions, context_turns)
        if replacing:
            node.superseded_by = replacing
            node.valid_to = said[replacing[0]]
    if as_of is None:
        nodes = newer_first(nodes, question)
    return _reorder(nodes, limit, current_node) if current else nodes


def _replacing(node: "RecallNode", current: dict[str, list[str]], supersessions: dict[str, tuple[tuple[str, ...],
               list[str]]], context_turns: Callable[[str, str], set[int]]) -> list[str]:
    """The current cards that replace what ``node`` says: its own, for a card; for a window, those of the
    superseded cards distilled from its turns."""
    if node.kind == "card":
        return current.get(node.card_id, [])
    if node.session_id is None or node.turn_range is None:
        return []
    first, last = node.turn_range
    replacing: list[str] = []
    for old, news in current.items():
        if node.session_id in supersessions[old][0] and any(
                first <= turn <= last for turn in context_turns(old, node.session_id)):
            replacing.extend(new for new in news if new not in replacing)
    return replacing


def _reorder(nodes: list["RecallNode"], limit: int,
             current_node: Callable[[str], "RecallNode | None"]) -> list["RecallNode"]:
    """Each stale unit right after its current card: that card moved up to just before it when it ranked lower, or
    brought in when it ranked just below the cut. Holding the stale unit back until its card came instead pushed it
    down the list, and with it the other points of a card of several that one update replaced: the written sets'
    recall@5 0.814 / 0.846 → 0.861 / 0.883 (docs/benchmarks.md)."""
    cards = {node.card_id: node for node in nodes if node.kind == "card"}
    ordered: list[RecallNode] = []
    placed: set[int] = set()

    def place(node: "RecallNode") -> None:
        placed.add(id(node))
        replacing = node.superseded_by
        if replacing and not any(card_id in cards and id(cards[card_id]) in placed for card_id in replacing):
            later = next((cards[card_id] for card_id in replacing if card_id in cards), None)
            if later is None:
                later = next((found for found in map(current_node, replacing) if found is not None), None)
            if later is not None:
                cards[later.card_id] = later
                place(later)
        ordered.append(node)

    for node in nodes:
        if id(node) not in placed:
            place(node)
    return ordered[:limit]


def first_said(graph: "GraphReader", card_ids: list[str]) -> dict[str, int]:
    """When each card was first said: its earliest dated session (cards with none left out)."""
    cards = graph.cards(card_ids, content=False)
    times = graph.session_times(sorted({session for card in cards.values() for session in card["source_sessions"]
                                        or ()}))
    said = {}
    for card_id, card in cards.items():
        moments = [times[session] for session in card["source_sessions"] or () if session in times]
        if moments:
            said[card_id] = min(moments)
    return said


ASKED_NOW = re.compile(r"\b(?:now|currently|current|these days|nowadays|still|any ?more|latest|at the moment|today)\b|"
                       r"现在|目前|如今|最新|当前|还[^，。？?]{0,8}吗", re.IGNORECASE)
"""Words of a question about the present."""
NEWER_WITHIN = 0.05
"""How much further (in h) a newer unit may rank and still come first when the question asks about the present.
Over eight written sets' update questions, 0.05 put the current item first in 160 of 222 (question, mode) pairs
instead of 153, for 0.003 of r@5 on average; 0.025 in 156; for every question (no words of the present asked for),
0.03 cost 0.03-0.09 of r@5 on three sets (docs/benchmarks.md)."""
NEWER_PLACES = 20
"""The first places of a result chosen this way (what a reader reads first); the rest stay as ranked, so that a
request for 200 units does not pay 200 passes over them (~10 ms)."""
SAME_WITHIN = 0.10
"""How much further (in h) a newer unit may rank and still come first when the question does not ask about the
present, if it says every word of the question the better-ranked unit says (:data:`SAME_TERMS` or more, none of
them common: :data:`COMMON_SHARE`). Tried at 0.04, 0.06, 0.10 and 0.15 on agentset and two written sets: the
current item first most often from 0.10, r@5 no lower than at 0.06 (docs/benchmarks.md)."""
SAME_TERMS = 2
"""Words of the question both units must say: one ("timeout") is what half the units of a store say."""
COMMON_SHARE = 0.75
"""A word of the question more than this share of the first places say does not count: in a chat every unit names
its speakers ("What did Caroline paint?"), and reading the newer of two units that say "Caroline" first cost LoCoMo
0.015 of r@5 and 0.021 of cards-only recall at 500 tokens; at 0.5 it also undid most of the written sets' gain."""
QUESTION_WORDS = frozenset("""what which who whom whose when where why how many much does did do is are was were
the and for with our my your his her their its any use uses used""".split())


def newer_first(nodes: list["RecallNode"], question: str | None) -> list["RecallNode"]:
    """``nodes`` (ranked) with, at each of the first :data:`NEWER_PLACES` places, the newest unit that answers
    ``question`` about as well as the best one left: within :data:`NEWER_WITHIN` when it asks about the present,
    else within :data:`SAME_WITHIN` when the newer unit says the words of the question the best one says. A unit
    marked as replaced keeps its place behind its replacement (:func:`put_current_first`)."""
    if not question:
        return nodes
    asked_now = ASKED_NOW.search(question) is not None
    asked = {term for term in term_list(question) if (len(term) >= 3 or not term.isascii())
             and term not in QUESTION_WORDS}
    if not asked_now and len(asked) < SAME_TERMS:
        return nodes
    said_in = _finder(asked)
    known: dict[str, set[str]] = {}

    def terms(node: "RecallNode") -> set[str]:
        if node.card_id not in known:
            known[node.card_id] = said_in(f"{node.title} {node.content}".lower())
        return known[node.card_id]

    @functools.cache
    def telling() -> set[str]:
        """The question's words that most of the first places do not say (a chat's speakers tell no two answers
        apart): read only once two units are close enough in h to be compared."""
        first = nodes[:NEWER_PLACES]
        return {term for term in asked if sum(term in terms(node) for node in first) <= COMMON_SHARE * len(first)}

    def as_well(node: "RecallNode", best: "RecallNode") -> bool:
        if node.h_distance > best.h_distance + (NEWER_WITHIN if asked_now else SAME_WITHIN):
            return False
        if asked_now:
            return True
        said = telling() & terms(best)
        return len(said) >= SAME_TERMS and said <= terms(node)

    left, ordered = list(nodes), []
    while left and len(ordered) < NEWER_PLACES:
        best = left[0]
        newer = [] if best.superseded_by or best.time is None else [
            node for node in left[1:] if node.time is not None and node.time > best.time and not node.superseded_by
            and as_well(node, best)]
        chosen = max(newer, key=lambda node: node.time) if newer else best
        left.remove(chosen)
        ordered.append(chosen)
    return ordered + left


def _finder(asked: set[str]) -> Callable[[str], set[str]]:
    """Which of ``asked`` a lower-cased text says as :func:`term_list` finds them, without tokenizing the text
    (tokenizing ten units' text took 0.53 ms of a recall at aged 100k) and without a pattern per word: compiling one
    with the Chinese character class took ~1 ms a word, paid by every question with a word not asked before (a
    fifth of an owner server's first recalls after its start). A run of letters and digits is one term and runs on
    through Chinese characters after it ("api接口"); a run of Chinese characters that starts a run gives its pairs,
    a lone one itself."""
    kinds = {term: "word" if not CJK_CHAR.match(term) else "pair" if len(term) > 1 else "single" for term in asked}

    def said_in(text: str) -> set[str]:
        present = [term for term in kinds if term in text]
        if not present:
            return set()
        runs = [(match.start(), match.end()) for match in _CJK_RUN.finditer(text)]
        starts = [start for start, _ in runs]
        return {term for term in present if _says(text, term, kinds[term], runs, starts)}

    return said_in


_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_WORD_CHAR = re.compile(r"[^\W_]")
"""A character a run of :func:`term_list` is made of: letters and digits, Chinese characters among them."""


def _says(text: str, term: str, kind: str, runs: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether one of ``term``'s places in ``text`` is where :func:`term_list` finds it: a word from a run's start
    (after the Chinese characters a run may start with) to the run's end; a pair within the Chinese characters a run
    starts with; a lone character that is a whole run of Chinese characters. ``runs``: the text's runs of Chinese
    characters, (start, end), in order, and ``starts`` their starts."""
    at = text.find(term)
    while at >= 0:
        end, start = at + len(term), at
        if kind != "single" and at:
            run = bisect.bisect_right(starts, at - 1) - 1  # the run of Chinese characters just before, if any
            if run >= 0 and runs[run][1] >= at:
                start = runs[run][0]
        if not (start and _WORD_CHAR.match(text, start - 1)) and (
                kind == "pair" or kind == "word" and not (end < len(text) and _WORD_CHAR.match(text, end))
                or kind == "single" and not (end < len(text) and CJK_CHAR.match(text, end))):
            return True
        at = text.find(term, at + 1)
    return False
