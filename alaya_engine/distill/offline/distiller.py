"""The OfflineDistiller: one session in, a Distillation out.

It sends the session to the agent reader or the conversation reader, adds what
people stated in plain words that those did not already say (``statements``),
folds near-duplicate cards together, keeps the most important ones in session
order, makes their titles unique, adds their details, joins the cards of one
episode (``episodes``) and links them.
"""

from __future__ import annotations

import dataclasses
import re

from ...foundations.domain import Fact, Session, Turn
from ..base import Distillation
from .agent import agent_candidates
from .attributes import stated_facts
from .candidate import TITLE_LIMIT, Candidate
from .conversation import conversation_candidates
from .details import add_details, keep_details
from .episodes import merge_episodes
from .links import card_links
from .opener import fold_opener, opening_turn
from .said_once import said_once
from .stated import stated_candidates
from .stated.sentences import specifics
from .text.diff import edited_settings, resolve_diffs
from .text.memo import remembering
from .text.names import plain
from .text.overlap import content_words, overlap, overlap_of
from .text.sentences import split_sentences
from .text.tags import tags_for
from .text.titles import shorten, title_width, without_markup, without_segue
from .turns import speaker_name, speaker_of, speaks_chinese

REPEAT_SHARE = 0.8
"""A card with this share of its words in another card of the session (and all its specifics) repeats it."""
TOLD_SHARE = 0.7
"""Once details are added, a card with this share of its words in another card (and all its specifics) folds into
it: the sentences it adds go to the host's details, so folding loses nothing and a smaller share suffices."""
POINT_CHARS = 12
"""A title this long names one sentence; a shorter one ("Fix", "原因") may be found anywhere."""
LIST_ITEM = re.compile(r"^\s*(?:\d+[.)、]|[-*•])\s+\S", re.MULTILINE)
"""A line of a list ("1. post a notice in Telegram", "- nginx: mem_limit: 128m")."""
LISTED_TITLE = re.compile(r"(?:^|[:：])\s*(?:\d+[.)、]|[-*•])\s")
"""A title that starts a list ("- nginx: mem_limit: 128m", "结果： - 单测 7 个全过"): it names the list's first item."""


class OfflineDistiller:
    """Rule-based distiller: deterministic, offline and fast; the default ``distill.llm_provider``.

    ``min_session_tokens`` only explains an empty result: a short session is read like any other and keeps
    what it holds. Length is a poor filter for small talk (one line of chat can say "I'm moving to Lyon next
    month", a long goodbye says nothing), and the readers drop small talk by content; a floor applied first
    dropped every day of everyday chat, whose messages are 14–93 tokens. Reading costs milliseconds offline,
    so there is nothing to save by skipping (the LLM distiller keeps its floor: its reading costs a call).
    """

    name = "offline-1"

    def __init__(self, min_session_tokens: int = 200, max_cards_per_session: int = 10):
        self.min_session_tokens = min_session_tokens
        self.max_cards_per_session = max_cards_per_session

    def distill(self, session: Session) -> Distillation:
        with remembering():
            return self._distill(session)

    def _distill(self, session: Session) -> Distillation:
        chinese = speaks_chinese(session)
        session = _diffs_resolved(session, chinese)
        if _is_conversation(session):
            candidates = conversation_candidates(session)
        else:
            candidates = agent_candidates(session)
        candidates = _merge_duplicates(candidates)
        stated = stated_candidates(session, candidates, chinese)
        candidates = _without_repeats([card for card in candidates if not _contained(card, stated)] + stated)
        kept = _cut(candidates, self.max_cards_per_session)
        if not kept:
            return Distillation([], [], skipped_reason=self._why_nothing(session))
        kept = fold_opener(kept, session)
        for candidate in kept:
            candidate.title = without_segue(candidate.title)
        for candidate in kept:  # tags name the card's point, before its details are added
            candidate.tags = candidate.tags or tags_for(candidate.body)
        keep_details(kept, session)
        kept = _fold_contained(kept)
        kept = merge_episodes(kept, None if _between_people(session) else opening_turn(session))
        kept = _fold_contained(kept, same_point=True)  # a joined card may now say all of another card
        for candidate in kept:  # once folded: a title's list mark told the folds it names a list's first item
            candidate.title = without_markup(candidate.title)
        _make_titles_unique(kept)  # once folded: a card that took its twin in needs no "(2)"
        for candidate in kept:
            candidate.content = said_once(candidate.content)
            candidate.facts = _facts(candidate, session)
        return Distillation([candidate.draft() for candidate in kept], card_links(kept))

    def _why_nothing(self, session: Session) -> str:
        tokens = session.tokens
        if tokens < self.min_session_tokens:
            return f"session has {tokens} tokens, below distill.min_session_tokens ({self.min_session_tokens})"
        return "no fact, cause, fix, decision, rule, plan or preference stated with anything specific"


def _diffs_resolved(session: Session, chinese: bool) -> Session:
    """The session as read: a diff in a turn, and the settings its edit calls change, are the lines they add and
    the values those replace (:mod:`.text.diff`), said in the session's language (``chinese``: a tool's output has
    no words of its own); the raw session stays as it was said, in L3 and in recall's windows."""
    contents = [resolve_diffs(_with_edits(turn), chinese) for turn in session.turns]
    if all(content is turn.content for content, turn in zip(contents, session.turns)):
        return session  # nearly every session: no copy of its turns
    return dataclasses.replace(session, turns=[turn if content is turn.content else
                                               dataclasses.replace(turn, content=content)
                                               for content, turn in zip(contents, session.turns)])


def _with_edits(turn: Turn) -> str:
    edits = edited_settings(turn.tool_calls) if turn.tool_calls else ""
    return f"{turn.content}\n\n```diff\n{edits}\n```" if edits else turn.content


def _facts(candidate: Candidate, session: Session) -> list[Fact]:
    """What the card's own words state as data, dated when its first turn was said (else the session's start);
    a Chinese change said without a subject is the speaker's own."""
    turns = [session.turns[index] for index in sorted(set(candidate.turns)) if index < len(session.turns)]
    said_at = next((turn.timestamp for turn in turns if turn.timestamp), None) or session.timestamp
    speaker = next((turn for turn in turns if turn.role == "user"), turns[0] if turns else None)
    return stated_facts(candidate.body, said_at, speaker_name(speaker, candidate.chinese) if speaker else "")


def _between_people(session: Session) -> bool:
    """Named people talking (speakers on turns): nobody reports a problem for the others to answer."""
    return any(speaker_of(turn) for turn in session.turns)


def _is_conversation(session: Session) -> bool:
    """People talking (speakers on turns, or no tools and no code at all), not an agent at work."""
    if _between_people(session):
        return True
    if any(turn.role == "tool" or turn.tool_calls for turn in session.turns):
        return False
    return not any("`" in turn.content for turn in session.turns)


def _contained(card: Candidate, stated: list[Candidate]) -> bool:
    """A card whose every turn and nearly every word another card holds too (an answer, now on the card with the
    statement it answers): one card says it, not two."""
    return any(set(card.turns) <= set(other.turns) and overlap_of(card.words, other.words) >= 0.8
               for other in stated)


def _without_repeats(candidates: list[Candidate]) -> list[Candidate]:
    """One card per point, whichever reader made it: a card whose words and every name and number another card
    of the session says too is folded into that card (its turns kept there). A cause, fix, rule or decision
    survives an explanation that repeats it (its type says what the point is), else the longer card."""
    kept: list[Candidate] = []
    said: list[tuple[set[str], set[str]]] = []  # per kept card: what it says (read once each)
    for candidate in sorted(candidates, key=lambda c: (c.type == "concept", -len(c.content))):
        wants = _wants(candidate)
        host = next((card for card, says in zip(kept, said) if _repeats(wants, says)), None)
        if host is None:
            kept.append(candidate)
            said.append(_says(candidate))
        else:
            _fold(candidate, host)
    return sorted(kept, key=lambda c: c.order)


def _fold_contained(cards: list[Candidate], same_point: bool = False) -> list[Candidate]:
    """Once details are added, a card another card of the session now says nearly in full (its words and every
    name and number, quoted as that card's detail or answer) is a second telling of one point: it folds into that
    card, smallest first, its turns kept there and the few sentences the host did not say added to the host's
    details, so nothing it said is lost. Only a card of no kind of its own (a concept), of the host's kind, or a
    fix told on its cause's card (symptom, cause and fix on one card): a decision quoted in a cause card's details
    is still a decision, linked to its cause. A cause the decision it led to tells in full (the decision quotes what
    the assistant found, the agent reader made a cause card of the same sentences, and the details add what the
    quote left out) is one finding told twice: it folds into the decision, whose kind is the one supersession
    follows. A cause with a sentence more stays its own card.

    With ``same_point`` (the pass after episodes are joined), a card also folds into one that states its point in
    the same sentence (:func:`_same_point`); before the join, such a fold took a card out of its episode and left
    the episode's other cards on their own."""
    kept = sorted(cards, key=lambda c: (len(c.words), c.order))
    said = {id(card): _says(card) for card in kept}
    titles: dict[int, str] = {}
    for candidate in list(kept):
        wants = _wants(candidate)
        for host in reversed(kept):
            repeated = _repeats(wants, said[id(host)], TOLD_SHARE)
            if host is candidate or not (repeated or same_point and _same_point(candidate, host)):
                continue
            unsaid = _unsaid_sentences(candidate, said[id(host)])
            if _may_hold(host, candidate, unsaid):
                kept.remove(candidate)
                _fold(candidate, host)
                if not repeated and LISTED_TITLE.search(host.title):  # the point's words name it, not a list's item
                    titles[id(host)] = candidate.title
                if unsaid:
                    add_details(host, " ".join(unsaid))
                    said[id(host)] = _says(host)
                break
    for card in kept:
        card.title = titles.get(id(card), card.title)
    return sorted(kept, key=lambda c: c.order)


def _same_point(candidate: Candidate, host: Candidate) -> bool:
    """``host`` states ``candidate``'s point in the same sentence, from a turn both hold: two readers quoted one
    sentence, each with what followed it (a cause with the figures behind it, and the same cause as the agent's
    explanation), or the host quotes it as what it answers (the cause on its fix's card, the proposal on the
    decision that took it): one point, or one problem, whose card should say both. A list is its own point: a card
    quoting its lead ("every restart, in this order:") leaves it a card of its own."""
    point = candidate.title.rstrip(".。…:：").replace("`", "").lower()
    return len(point) >= POINT_CHARS and bool(set(candidate.turns) & set(host.turns)) and \
        not LIST_ITEM.search(candidate.content) and point in host.content.replace("`", "").lower()


def _may_hold(host: Candidate, candidate: Candidate, unsaid: list[str]) -> bool:
    """Whether ``candidate``'s point may be told on ``host``'s card, which lacks its ``unsaid`` sentences: its kind
    is none, the host's, or a fix the host's cause leads to; or it is a cause the host's decision tells in full
    (nothing unsaid)."""
    pair = (candidate.type, host.type)
    return candidate.type in ("concept", host.type) or pair == ("pattern", "gotcha") or (
        pair == ("gotcha", "decision") and not unsaid)


def _unsaid_sentences(candidate: Candidate, says: tuple[set[str], set[str]]) -> list[str]:
    """The sentences of ``candidate``'s content (without its labels and attribution) that a card that ``says`` this
    does not: words it lacks, or a name or number."""
    words, named = says
    return [sentence for sentence in split_sentences(plain("", candidate.content))
            if content_words(sentence) and (overlap_of(content_words(sentence), words) < REPEAT_SHARE
                                            or not specifics(sentence) <= named)]


def _says(card: Candidate) -> tuple[set[str], set[str]]:
    """What a card says, as a repeat is tested against: its words, the words, names and numbers of its content."""
    named = specifics(card.content)
    return card.words | content_words(card.content) | named, named


def _wants(candidate: Candidate) -> tuple[set[str], set[str], set[str]]:
    """What another card must say to hold ``candidate``'s point (read once per candidate, not per host): its words
    as they were said, its words as its card tells them (in the third person), and its body's names and numbers."""
    return candidate.words, content_words(plain("", candidate.content)), specifics(candidate.body)


def _repeats(wants: tuple[set[str], set[str], set[str]], says: tuple[set[str], set[str]],
             share: float = REPEAT_SHARE) -> bool:
    """Whether a card that ``says`` this holds the point a candidate ``wants`` said: nearly all its words (as
    said, or as told) and every name and number."""
    (said_words, told_words, needed), (words, named) = wants, says
    return max(overlap_of(said_words, words), overlap_of(told_words, words)) >= share and needed <= named


def _fold(candidate: Candidate, host: Candidate) -> None:
    """``candidate`` into ``host``, which says it already: its turns and its importance."""
    host.turns = sorted(set(host.turns) | set(candidate.turns))
    host.importance = max(host.importance, candidate.importance)


def _merge_duplicates(candidates: list[Candidate]) -> list[Candidate]:
    """Fold near-duplicates of the same type into one card: the fuller one survives, with both sources."""
    kept: list[Candidate] = []
    for candidate in sorted(candidates, key=lambda c: c.order):
        twin = next((other for other in kept if other.type == candidate.type
                     and _near_duplicates(other.words, candidate.words)), None)
        if twin is None:
            kept.append(candidate)
            continue
        survivor, other = (twin, candidate) if len(twin.content) >= len(candidate.content) else (candidate, twin)
        survivor.turns = other.turns + survivor.turns
        survivor.importance = max(twin.importance, candidate.importance) + 0.03
        survivor.words = twin.words | candidate.words
        survivor.order = twin.order
        kept[kept.index(twin)] = survivor
    return kept


def _near_duplicates(first: set[str], second: set[str]) -> bool:
    """One repeats the other (mostly contained), or both say largely the same."""
    union = len(first | second) or 1
    contained = overlap(first, second) >= 0.7 and min(len(first), len(second)) >= 4
    return contained or len(first & second) / union >= 0.5


def _cut(candidates: list[Candidate], limit: int) -> list[Candidate]:
    """Keep the most important cards (earlier first on ties), then restore session order."""
    ranked = sorted(candidates, key=lambda c: (-round(c.importance, 4), c.order))[:limit]
    return sorted(ranked, key=lambda c: c.order)


def _make_titles_unique(candidates: list[Candidate]) -> None:
    seen: dict[str, int] = {}
    for candidate in candidates:
        key = candidate.title.lower()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            suffix = f" ({seen[key]})"
            candidate.title = shorten(candidate.title, TITLE_LIMIT - title_width(suffix)) + suffix
