"""Supersede: link a card that states a new value to the earlier card it replaces, and show disagreements.

For each card distilled since the last run, the earlier cards close to it (cosine at least :data:`SUPERSEDE_FLOOR`,
from an earlier session) are read against its facts and sentences (:mod:`.change_text`). The one it replaces most
plainly (a fact of the same subject and attribute with another value, else a sentence naming the replaced value),
with the cards of that card's turns that say the same thing, is superseded: ``SUPERSEDES`` new → old and
``SUPERSEDED_BY`` back, journaled so a rebuild replays them. The old card stays (it was true until then: ``alaya
recall --as-of``); recall puts the current card first and marks the old one. A sentence that says two sources
disagree becomes a ``contradicts`` suggestion instead, with both sides: a person decides which holds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from ..distill.offline.text.chinese import CJK
from ..distill.offline.turns import ZH_ROLE_NAMES
from ..foundations.domain import Link
from ..foundations.relations import directed
from ..graph.store import facts_from_graph
from .change_text import (
    CONFLICT,
    IDENTIFIER_LIKE,
    Statement,
    card_text,
    changed_settings,
    conflict_anchor,
    conflict_overlap,
    gives_another,
    reading,
    replacement,
    said,
    sentences,
    settings,
    shared_value,
    statement,
)
from .consolidate import EXACT_LIMIT, _groups, session_codes

if TYPE_CHECKING:
    from pathlib import Path

    from ..foundations.domain import Fact
    from ..graph.store import GraphStore
    from ..raw.journal import Journal
    from ..vectors.store import VectorStore
    from .suggestions import SuggestionStore

SUPERSEDE_FLOOR = 0.40
"""Cosine from which an earlier card is read as one a new card may replace. On agentset's labelled updates the
replaced card's cosine to its replacement ran from 0.43 (a school change: "moving her from Elmwood" against
"Maya's at Elmwood Primary, Year 3, her class teacher is Mrs Patel") to 0.70; pairs of unrelated cards that share a
name start near 0.45, which the reading of sentences (a cue naming the replaced value) has to tell apart
(docs/benchmarks.md)."""
PLAIN_FLOOR = 0.25
"""Cosine from which an earlier card is read when the new card says plainly that it replaces that card's value: a
fact of the same subject and attribute with another value, or a sentence naming as replaced a number the earlier
card gives ("TTL 从 900 降到 300" against "QUOTE_TTL_SECONDS stays at 900"). A card of a long exchange holds other
points too, so a replacement said this plainly can sit on a card far from the earlier one in meaning (0.28 and 0.44
on sessions written to test this, docs/benchmarks.md)."""
CLOSE = 0.6
"""Cosine from which a bare "now" and a name both cards say is enough (see :func:`.change_text.replacement`), and
from which a sentence saying two sources disagree may share its name with the earlier card through the rest of its
card (see :func:`.change_text.conflict_anchor`)."""
SETTING_NAME = re.compile(r"[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+")
"""A fact's attribute that names one setting (``feige_max_retries``, ``proxy-read-timeout``), not a word
("owner", "ttl")."""
STAND_INS = frozenset(name.casefold() for pair in ZH_ROLE_NAMES.items() for name in pair)
"""A fact's subject when its sentence named none and a role spoke it ("The user", 用户): the earlier card, by the same
person, seldom names them, so a sentence of it saying the attribute and another number of the value's kind stands
for the subject ("donepezil 5 mg — he takes it at bedtime" against the user's "donepezil = 10 mg")."""
MAX_REPLACED = 3
"""Earlier cards one new card supersedes: the one it replaces and others drawn from that card's turns."""
CANDIDATES = 8
"""Earlier cards read per new card, closest first."""
BLOCK = 256
"""New cards per matrix product: 256 rows against 100k cards is a 100 MB product."""


@dataclass
class SupersedeReport:
    examined: int = 0
    """Cards distilled since the last run that were compared with earlier ones."""
    superseded: int = 0
    contradictions: int = 0
    """New ``contradicts`` suggestions."""
    dry_run: bool = False

    def to_json(self) -> dict:
        return asdict(self)


PLAIN = 2
"""The strength of a replacement said plainly (see :func:`_replaced`); 3: said plainly, naming the replaced value
itself (:func:`.change_text.replacement`)."""


@dataclass(frozen=True)
class Replacement:
    new: str
    old: str
    similarity: float
    anchor: str
    sentence: str
    strength: int = 1


def supersede(*, vectors: "VectorStore", graph: "GraphStore", store: "SuggestionStore", journal: "Journal",
              since: int, now: int, duplicate_at: float, dry_run: bool,
              step: Callable[[], AbstractContextManager], contexts: "Path | None" = None) -> SupersedeReport:
    """Compares outside the step lock, as consolidate does; reads and writes under it. Pairs at or above
    ``duplicate_at`` are the same knowledge said twice (consolidate's merge candidates), not an update.
    ``contexts``: the folder of the cards' context files (which turns each was distilled from)."""
    import numpy as np

    report = SupersedeReport(dry_run=dry_run)
    with step():
        ids, matrix = vectors.active_vectors()
        recent = set(graph.cards_created_since(since))
        session_of = graph.card_sessions()
        said_at = graph.session_times(sorted(set(session_of.values())))
        already = {(new, old) for new, old in graph.query("MATCH (a:Card)-[:SUPERSEDES]->(b:Card) RETURN a.id, b.id")}
    rows = [row for row, card_id in enumerate(ids) if card_id in recent and card_id in session_of]
    report.examined = len(rows)
    if not rows:
        return report
    times = np.array([said_at.get(session_of.get(card_id, ""), -1) for card_id in ids], dtype=np.int64)
    sessions = session_codes(ids, session_of)
    pairs = _close_earlier(ids, matrix, rows, times, sessions, duplicate_at)
    members: dict[str, list[str]] = {}
    for card_id, session in session_of.items():
        members.setdefault(session, []).append(card_id)
    row_of = {card_id: row for row, card_id in enumerate(ids)}
    context_of = functools.cache(lambda card_id: _context(contexts, card_id))
    with step():
        cards = graph.cards(sorted({ids[row] for row in rows} | {old for found in pairs.values() for _, old in found}))
        kin = _said_before_in_session([ids[row] for row in rows], cards, members, session_of, context_of)
        cards.update(graph.cards(sorted({old for found in kin.values() for old in found} - set(cards))))

    def similarity(a: str, b: str) -> float:
        return float(matrix[row_of[a]] @ matrix[row_of[b]]) if a in row_of and b in row_of else 0.0

    replacements, contradictions = _judge(
        pairs, cards, {new: [(similarity(new, old), old) for old in found] for new, found in kin.items()})
    nearby = {card_id for found in replacements for card_id in members.get(session_of.get(found.old), ())} - set(cards)
    if nearby:
        with step():
            cards.update(graph.cards(sorted(nearby)))
    replacements = _with_siblings(
        replacements, [members.get(session_of.get(found.old), []) for found in replacements], cards, context_of,
        similarity)
    replacements = [found for found in replacements if (found.new, found.old) not in already]
    report.superseded = len(replacements)
    for found in contradictions:
        evidence = {"similarity": round(found.similarity, 4), "anchor": found.anchor, "sentence": found.sentence,
                    "sides": [_side(cards[card_id], session_of, said_at) for card_id in (found.new, found.old)]}
        report.contradictions += store.propose("contradicts", [found.new, found.old], evidence, now)[1]
    if dry_run:
        return report
    links = [link for found in replacements for link in directed(Link(
        found.new, found.old, "SUPERSEDES", round(found.similarity, 4), f"introspect: {found.anchor}", now))]
    if links:
        with step():
            journal.append("link.add", now, links=[link.to_json() for link in links])
            graph.merge_links(links)
    store.save()
    return report


def _close_earlier(ids: list[str], matrix, rows: list[int], times, sessions,
                   duplicate_at: float) -> dict[str, list[tuple[float, str]]]:
    """Per new card (``rows``), the earlier cards of other sessions at cosine from :data:`PLAIN_FLOOR` to
    below ``duplicate_at``, closest first (at most :data:`CANDIDATES`). Beyond consolidate's exact limit the cards
    are compared within consolidate's k-means groups, as its pairs are: all pairs of 100k cards would cost ~4·10¹²
    multiply-adds on the first run."""
    import numpy as np

    groups = [np.arange(len(ids))] if len(ids) <= EXACT_LIMIT else _groups(matrix)
    wanted = np.zeros(len(ids), dtype=bool)
    wanted[rows] = True
    pairs: dict[str, list[tuple[float, str]]] = {}
    for members in groups:
        new = members[wanted[members]]
        member_times, member_sessions = times[members], sessions[members]
        dated = member_times >= 0
        for start in range(0, len(new), BLOCK):
            block = new[start:start + BLOCK]
            scores = matrix[block] @ matrix[members].T
            close = ((scores >= PLAIN_FLOOR) & (scores < duplicate_at) & dated
                     & (member_times < times[block][:, None]) & (member_sessions != sessions[block][:, None]))
            for position, row in enumerate(block.tolist()):
                columns = np.nonzero(close[position])[0]
                if len(columns) > CANDIDATES:  # the closest, ties at the last place kept for the sort below
                    values = scores[position, columns]
                    columns = columns[values >= np.partition(values, len(values) - CANDIDATES)[-CANDIDATES]]
                found = sorted(((float(scores[position, column]), ids[members[column]]) for column in columns),
                               reverse=True)[:CANDIDATES]
                if found:
                    pairs[ids[row]] = found
    return pairs


def _said_before_in_session(new_ids: list[str], cards: dict[str, dict], members: dict[str, list[str]],
                            session_of: dict[str, str],
                            context_of: Callable[[str], set[tuple[str, int]]]) -> dict[str, list[str]]:
    """Per new card that says two sources disagree, the cards of its own session drawn from a turn before its last
    and from turns it does not cover itself (a card of a long exchange gathers turns from its start). A session
    often quotes one source and then finds another that disagrees ("our runbook says 60 seconds" … "the live
    config says 30s: the two sources disagree"): the other side is a card of the same session, which the
    comparison with earlier sessions never reads."""
    found = {}
    for card_id in new_ids:
        own = context_of(card_id)
        if not own or not CONFLICT.search(card_text(cards[card_id])):
            continue
        last = max(turn for _, turn in own)
        earlier = [other for other in members.get(session_of[card_id], ()) if other != card_id
                   and (turns := context_of(other)) and min(turn for _, turn in turns) < last and not turns <= own]
        if earlier:
            found[card_id] = earlier
    return found


def _judge(pairs: dict[str, list[tuple[float, str]]], cards: dict[str, dict],
           kin: dict[str, list[tuple[float, str]]] | None = None) -> tuple[list[Replacement], list[Replacement]]:
    """Per new card, the earlier card it replaces most plainly (of those, the closest), else the one it disagrees
    with that names most of what the disagreement names (:func:`.change_text.conflict_overlap`), the closest of
    those; a card saying two sources disagree ("the runbook is wrong") is a disagreement to show a
    person, unless it also replaces a value plainly (:data:`PLAIN`). Its other sentences may replace other
    earlier cards (:func:`_sentence_by_sentence`). ``kin``: per new card, earlier cards of its own session
    (:func:`_said_before_in_session`), read only for a disagreement that gives a value the earlier card gives ("the
    runbook says 60 s" against "tolerates 60 seconds"): all cards of a session share its names."""
    known: dict[str, Statement] = {}
    kin = kin or {}

    def said_by(card_id: str) -> Statement:
        if card_id not in known:
            known[card_id] = statement(card_text(cards[card_id]))
        return known[card_id]

    replacements, contradictions = [], []
    for new in sorted(pairs.keys() | kin.keys()):
        found = pairs.get(new, [])
        if new not in cards:
            continue
        text = card_text(cards[new])
        own = sentences(text)
        facts = {fact.key(): fact.value for fact in facts_from_graph(cards[new]["facts"])}
        cued = [line for line in own if reading(line) is not None]
        disagreeing = [line for line in own if CONFLICT.search(line)]
        given = settings(text)
        if not (facts or cued or disagreeing or given):  # says nothing changed: no earlier card need be read
            continue
        replaced: list[Replacement] = []
        conflicts: list[tuple[tuple[int, int], Replacement]] = []
        for similarity, old in found:
            if old not in cards:
                continue
            strength, anchor, sentence = _replaced(facts, cued, cards[old], functools.partial(said_by, old),
                                                   similarity, given)
            if similarity < SUPERSEDE_FLOOR and strength < PLAIN:
                continue
            if strength:
                replaced.append(Replacement(new, old, similarity, anchor, sentence, strength))
            if disagreeing and similarity >= SUPERSEDE_FLOOR:
                conflicts.extend((overlap, Replacement(new, old, similarity, anchor, line))
                                 for line in disagreeing if (anchor := conflict_anchor(
                                     line, said_by(old).whole, said_by(new).whole, similarity >= CLOSE))
                                 and _with_this_card(overlap := conflict_overlap(line, said_by(old).whole), anchor,
                                                     similarity))
        for similarity, old in kin.get(new, []) if disagreeing else ():
            conflicts.extend((conflict_overlap(line, said_by(old).whole), Replacement(new, old, similarity, anchor,
                                                                                       line))
                             for line in disagreeing if (anchor := shared_value(line, said_by(old).whole)))
        conflict = max(conflicts, key=lambda scored: (scored[0], scored[1].similarity))[1] if conflicts else None
        if conflict is not None and max((found.strength for found in replaced), default=0) < PLAIN:
            contradictions.append(conflict)  # said to disagree: a person decides, unless a value plainly replaced
        else:
            replacements.extend(_sentence_by_sentence(replaced))
    return _one_per_sentence(replacements), contradictions


def _with_this_card(overlap: tuple[int, int], anchor: str, similarity: float) -> bool:
    """Whether a disagreement read in a new card is with this earlier card of another session: the two are close in
    meaning, or the earlier card gives a value the sentence gives, or what they share is an identifier. A person's or
    a tool's name alone is not enough: "OT says stop, and Lauren believes short trips are fine — those two views
    don't line up" names both of its sides itself, and an old card about Lauren's visits is neither."""
    return similarity >= CLOSE or overlap[0] > 0 or IDENTIFIER_LIKE.search(anchor) is not None


def _sentence_by_sentence(replaced: list[Replacement]) -> list[Replacement]:
    """What one new card replaces (``replaced``, closest first): the plainest, then through each other sentence
    one more earlier card, never one already taken. A card of a long exchange holds several points, each of which
    may replace a card of its own ("the timeout is now 15 min", "BI finished moving on 12 Aug"); a second card
    one sentence seems to replace was, on agentset, mostly a card of the same old session naming the replaced
    value in passing."""
    taken: set[str] = set()
    chosen = []
    for found in sorted(replaced, key=lambda found: -found.strength):
        if found.sentence not in taken and found.old not in taken:
            chosen.append(found)
            taken |= {found.sentence, found.old}
    return chosen


def _one_per_sentence(replacements: list[Replacement]) -> list[Replacement]:
    """One sentence replacing one earlier card is one replacement, however many new cards repeat it (an episode's
    cards can share a sentence: a proposal, a confirmed answer): its link comes from the card that replaces it most
    plainly, then the closest (a link from each would count one replacement twice)."""
    best: dict[tuple[str, str], Replacement] = {}
    for found in replacements:
        kept = best.get((found.old, found.sentence))
        if kept is None or (found.strength, found.similarity) > (kept.strength, kept.similarity):
            best[(found.old, found.sentence)] = found
    return [found for found in replacements if best[(found.old, found.sentence)] is found]


def _with_siblings(replacements: list[Replacement], members: list[list[str]], cards: dict[str, dict],
                   context_of: Callable[[str], set[tuple[str, int]]],
                   similarity: Callable[[str, str], float]) -> list[Replacement]:
    """Each replacement, and with it the cards of the replaced card's session (``members``, one list per
    replacement) drawn from one of its turns (``context_of``: a card's (session, turn) pairs) that say what showed the
    replacement (the name, the plain word or the fact's subject and attribute; a new number is on no earlier card, so
    an update read from a number takes its replaced card alone), the closest to the new card first,
    :data:`MAX_REPLACED` in all: one piece of knowledge is often on more than one card of its turns."""
    found: dict[tuple[str, str], Replacement] = {}
    for best, session in zip(replacements, members):
        found.setdefault((best.new, best.old), best)
        turns = context_of(best.old)
        siblings = sorted(((similarity(best.new, card_id), card_id) for card_id in session
                           if card_id not in (best.old, best.new) and card_id in cards
                           and turns & context_of(card_id) and _mentions(cards[card_id], best.anchor)), reverse=True)
        for closeness, card_id in siblings[:MAX_REPLACED - 1]:
            found.setdefault((best.new, card_id),
                             Replacement(best.new, card_id, closeness, best.anchor, best.sentence, 0))
    return list(found.values())


def _replaced(facts: dict, cued: list[str], old: dict, earlier: Callable[[], Statement],
              similarity: float, given: dict | None = None) -> tuple[int, str, str]:
    """How plainly the new card's facts or its sentences that say something changed (``cued``) replace ``old`` (0:
    not), what shows it, and where. ``earlier`` reads what ``old`` says, only when a sentence needs it.

    - 2: both cards give a fact of the same subject and attribute, with different values; or a setting named alike
      (``"message-ttl":259200000``, ``pool_size=20``; :func:`.change_text.settings`) another number, when the new
      card (``given``: its settings) says something changed or the two are close in meaning;
    - 1: a fact of the new card naming a setting (:data:`SETTING_NAME`) ``old`` gives only other values, whatever
      the two facts' subjects unless both are identifiers (offline, a setting's subject is often only the card's
      first name: ``赵磊 · feige_max_retries = 2`` against ``用户 · feige_max_retries = 1``; see :func:`_same_owner`),
      when the new card says something changed or the two are close in meaning;
    - 1: a fact of the new card whose subject and attribute one sentence of ``old`` says in words, without its value
      ("page Marco — he owns the databases" against databases · owner = Chen Jing), when the new card says
      something changed (a cue of :mod:`.change_text`): the distiller gives facts for few sentences, so the earlier
      side is often only text; a subject that only stands in for the speaker (:data:`STAND_INS`) need not be said
      where the sentence gives another number of the value's unit;
    - 1: the other way round, a fact of ``old`` that a sentence of the new card saying something changed gives another
      value in its unit (:func:`_gives_it_anew`);
    - else what :func:`.change_text.replacement` finds in the new card's sentences.
    """
    earlier_facts = facts_from_graph(old["facts"])
    for fact in earlier_facts:
        if fact.key() in facts and facts[fact.key()].casefold() != fact.value.casefold():
            return 2, f"{fact.subject} · {fact.attribute}", f"{fact.attribute} = {facts[fact.key()]}"
    if given and (cued or similarity >= CLOSE):
        changed = changed_settings(given, card_text(old))
        if changed:
            return PLAIN, changed[0], f"{changed[0]} = {min(value for value, _ in given[changed[0]])}"
    if facts and (cued or similarity >= CLOSE):
        now_set = {attribute: (subject, value.casefold()) for (subject, attribute), value in facts.items()
                   if SETTING_NAME.fullmatch(attribute)}
        before: dict[str, set[str]] = {}
        for fact in earlier_facts:
            if fact.attribute in now_set and _same_owner(now_set[fact.attribute][0], fact.subject):
                before.setdefault(fact.attribute, set()).add(fact.value.casefold())
        for attribute in sorted(before):
            if now_set[attribute][1] not in before[attribute]:
                return 1, attribute, f"{attribute} = {now_set[attribute][1]}"
    for fact in earlier_facts if cued else ():
        for line in cued:
            if _gives_it_anew(line, fact):
                return 1, f"{fact.subject} · {fact.attribute}", line
    if facts and cued:
        for line in sentences(card_text(old)):
            for (subject, attribute), value in facts.items():
                if _says(line, attribute) and not _says(line, value) and (
                        _says(line, subject) or _stands_in(subject, attribute, value, cued)
                        and gives_another(line, value)):
                    return 1, f"{subject} · {attribute}", f"{attribute} = {value}"
    best = (0, "", "")
    for line in cued:
        strength, anchor = replacement(line, earlier(), similarity >= CLOSE)
        if strength > best[0]:
            best = (strength, anchor, line)
    return best


def _stands_in(subject: str, attribute: str, value: str, cued: list[str]) -> bool:
    """Whether a new card's fact has a subject its own sentence did not say: a stand-in for the speaker
    (:data:`STAND_INS`), or a person's name the distiller took from another sentence of the card ("Follow-up with
    Dr. Okonkwo was Friday. She's raised the donepezil to 10 mg": Okonkwo · donepezil = 10 mg, whose subject is the
    father the chat is about). An earlier line need not say such a subject either. An identifier taken so is what
    the card is about (``billing_worker · pool_size``), and is still to be said."""
    return subject in STAND_INS or not IDENTIFIER_LIKE.search(subject.casefold()) and not any(
        _says(line, subject) for line in cued if _says(line, attribute) and _says(line, value))


def _gives_it_anew(line: str, fact: "Fact") -> bool:
    """Whether a sentence that says something changed (``line``) gives an earlier card's fact another value: it says
    the fact's attribute and, in the value's unit (a day, an amount of money, a duration), another quantity, not the
    value itself ("completion has slipped a week — we're now moving on Friday 29 May" against york · completion =
    Friday 22 May). The distiller writes a fact for few sentences, so the new side is often only text. The sentence
    need not name the subject (a chat seldom repeats what it is about), but one naming another identifier speaks of
    another thing ("raised ingest-api's timeout to 60 s" against billing-api · timeout = 30 s)."""
    if not _says(line, fact.attribute) or _says(line, fact.value):
        return False
    before = said(fact.value).quantities
    units = {unit for unit, _ in before}
    now = reading(line).said
    if not any(unit in units and (unit, number) not in before for unit, number in now.quantities):
        return False
    subject = fact.subject.casefold()
    return not IDENTIFIER_LIKE.search(subject) or _says(line, subject) or not any(
        IDENTIFIER_LIKE.search(name) for name in now.names)


def _same_owner(subject: str, other: str) -> bool:
    """Whether two facts' subjects may be the owner of one setting: the same, or either no identifier (a person, "the
    user": offline, the stand-in for a subject the sentence did not name). Two identifiers that differ are two
    things set alike (``billing_worker`` in the pooler, ``pg-main-02``'s app pool)."""
    return subject.casefold() == other.casefold() or not (IDENTIFIER_LIKE.search(subject.casefold())
                                                          and IDENTIFIER_LIKE.search(other.casefold()))


def _context(contexts: "Path | None", card_id: str) -> set[tuple[str, int]]:
    """The (session, turn) pairs ``card_id`` was distilled from, by its context file; none without one."""
    if contexts is None:
        return set()
    from ..recall.trace import read_context_of

    context = read_context_of(contexts / f"{card_id}-context.json")
    return {(context.get("session_id"), turn["index"]) for turn in context.get("turns") or ()
            if isinstance(turn, dict) and isinstance(turn.get("index"), int)}


def _mentions(card: dict, anchor: str) -> bool:
    """Whether ``card`` says what showed a replacement: a fact's subject and attribute ("databases · owner"), else the
    name or quantity itself."""
    text = card_text(card)
    if " · " in anchor:
        return all(_says(text, part) for part in anchor.split(" · ", 1))
    return anchor.casefold() in text.casefold()


STEM = re.compile(r"(?<=\w{3})(?:ing|ers|er|es|ed|s|e)$")
WORD = re.compile(r"\w[\w.-]*\w|\w")


def _stems(text: str) -> list[str]:
    return [STEM.sub("", word) for word in WORD.findall(text.casefold())]


def _says(line: str, phrase: str) -> bool:
    """Whether ``line`` says ``phrase`` (a fact's subject, attribute or value): every word, endings aside ("owns the
    databases" says "database" and "owner"); Chinese by its characters."""
    if CJK.search(phrase):
        return phrase.casefold() in line.casefold()
    words = set(_stems(line))
    wanted = _stems(phrase)
    return bool(wanted) and all(word in words for word in wanted)


def _side(card: dict, session_of: dict[str, str], said_at: dict[str, int]) -> dict:
    """One side of a disagreement as a person judges it: the card, its source and when it was said."""
    session = session_of.get(card["id"])
    return {"card": card["id"], "title": card["title"], "session": session, "said_at": said_at.get(session)}
