"""Consecutive cards about one thing are one card: the figures and the symptom a point rests on, and the point.

The readers make a card of each sentence that states something, so one problem worked through in a session came
out as several cards: the test result in one, the dose changed because of it in the next, the figures each rests
on spread between them. None held the whole item (on agentset, most of the items no card covered had their
numbers on two cards), a reader had to put them together again, and the fragments were cards that hold no
knowledge on their own. So, once every card has its details, a card that starts within ``GAP`` turns of the
previous card's last turn and speaks of the same things (``SHARED_WORDS`` content words, a CJK pair counting
half) joins it, up to ``CONTENT_CHARS``, when the previous card states no kind of its own (a ``concept``: a fact,
a symptom, a figure) or both are steps of one decision (``_one_decision``). Two points stay two: a
cause and the decision it led to are linked (``CAUSED_BY``), two rules may each merge with the same rule said in
another session, and an afterthought to a point keeps the point's vector its own. The session's opening report
and the point right after it need share only ``REPORT_SHARED_WORDS`` (the point answers it). The joined card
keeps the title, type and attribution of its more important part, and both parts' paragraphs in session order.
Measured in docs/benchmarks.md ("One episode, one card").
"""

from __future__ import annotations

from .candidate import Candidate, attribution
from .text.overlap import content_words, shared_weight

GAP = 1
"""Turns that may lie between two parts of one episode (an aside, a tool's output)."""
SHARED_WORDS = 2.0
REPORT_SHARED_WORDS = 1.0
"""The session's opening report and the point right after it need share only one word: the point answers it."""
TITLE_WORDS = 1.0
"""A decision card takes up the one before it when it says this many words of that card's title."""
CONTENT_CHARS = 1400
"""The longest a joined card grows: beyond it, two cards read better than one (the agent reader's card limit)."""
TAGS = 6


def merge_episodes(cards: list[Candidate], opening: int | None) -> list[Candidate]:
    """``cards`` with each run of consecutive cards about one thing joined into one, in session order;
    ``opening`` is the index of the session's first user turn."""
    kept: list[Candidate] = []
    for card in sorted(cards, key=lambda c: c.order):
        last = kept[-1] if kept else None
        if last is not None and _continues(last, card, opening):
            _join(last, card)
        else:
            kept.append(card)
    return kept


def _continues(last: Candidate, card: Candidate, opening: int | None) -> bool:
    if min(card.turns) - max(last.turns) > GAP + 1 or len(last.content) + len(card.content) > CONTENT_CHARS:
        return False
    if last.type != "concept" and not _one_decision(last, card):
        return False  # two points (a cause and the decision it led to, two rules), or an afterthought to a point
    reports = last.type == "concept" and opening is not None and min(last.turns) == opening
    return shared_weight(last.words, card.words) >= (REPORT_SHARED_WORDS if reports else SHARED_WORDS)


def _one_decision(last: Candidate, card: Candidate) -> bool:
    """Two decision cards that are steps of one decision: they hold a turn in common (the proposal one states and
    the other accepts), or the later one takes up what the earlier one decided (a word of its title: "25 minutes on
    the train" → "from Monday, 25 minutes on the train every day"). Two decisions one after the other, each about
    its own thing, are two points."""
    return last.type == card.type == "decision" and (
        bool(set(last.turns) & set(card.turns))
        or shared_weight(content_words(last.title), card.words) >= TITLE_WORDS)


def _join(host: Candidate, card: Candidate) -> None:
    """``card`` into ``host``, in place: the paragraphs of both, the more important one's title and attribution."""
    lead = card if card.importance > host.importance else host
    paragraphs = [*_paragraphs(host.content), *_paragraphs(card.content)]
    closing = attribution(lead.content) or attribution(host.content) or attribution(card.content)
    host.content = "\n\n".join(paragraphs + ([closing] if closing else []))
    host.type, host.title = lead.type, lead.title
    host.turns = sorted(set(host.turns) | set(card.turns))
    host.words |= card.words
    host.body = f"{host.body} {card.body}"
    host.importance = max(host.importance, card.importance)
    host.tags = list(dict.fromkeys([*host.tags, *card.tags]))[:TAGS]


def _paragraphs(content: str) -> list[str]:
    """The content's paragraphs without its closing "(who said it, when)" line."""
    parts = content.split("\n\n")
    return parts[:-1] if attribution(content) else parts
