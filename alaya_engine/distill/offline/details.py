"""Nothing stated is dropped: every turn belongs to a card, and a card keeps the names and numbers its turns said.

The readers make a card of each point they recognise and quote the sentences that state it. What they read as
no point — an answer between two points, a tool's output, the figures around a quoted sentence — was lost: a third
of the evidence of LoCoMo's questions lay in no card, and cards alone found less than windows of raw turns at
equal tokens (docs/benchmarks.md). So once the cards are chosen, a turn no card holds joins the card nearest to
it (within ``ATTACH_GAP`` turns: further away it is another subject), and each card adds, under "Details", the
sentences of its turns (and the lines of its tools' output that speak of its point) that name or number
something the card does not say and no card's details said yet, in the cards' third person, up to
``DETAIL_CHARS``. A turn held by two cards gives its details to the first. The details stay out of the card's
vector (``Card.embedding_text``).

Repeating what another card of the session says is allowed once (``REPEATS``): a decision whose figures a
cause card states had lost them (the timeout it set, the limit it relied on), while repeating every such
sentence made one point said twice (on agentset, 10 pairs of cards of one session saying the same thing with
no repeat, 13 with one, 16 with any; items a card covers 83.3, 85.6, 86.4%; docs/benchmarks.md).
"""

from __future__ import annotations

import re

from ...foundations.domain import DETAILS_LABELS, Session
from .candidate import Candidate, attribution
from .stated.sentences import is_noise, specifics
from .text.diff import REPLACED
from .text.markdown import split_blocks, strip_markdown
from .text.overlap import content_words
from .text.sentences import split_sentences
from .turns import asks, speaker_of
from .voice import Voice

ATTACH_GAP = 3
"""A turn this many turns or fewer from a card's nearest turn continues its point."""
DETAIL_CHARS = 400
"""The most a card's details say: the point stays the card's, the details only keep what it rests on."""
REPEATS = 1
"""Sentences a card's details may take although another card of the session names all they name; none in a chat
between named people (LoCoMo), whose cards then competed with each other for the same question (recall@10 0.835
→ 0.834, multi-hop 0.595 → 0.592)."""
LONGEST_DETAIL = 300
"""A longer sentence is a paste (a log line, a stack), not something said."""
READ_ROLES = ("user", "assistant", "tool")
SETTING = re.compile(r"^\s*(?!(?:def|class|import|from|return|if|for)\b)([\w./\-\"']+)\s*[:=]\s*\S", re.MULTILINE)
"""A line of code that sets something: a name, then ``=`` or ``:``, then a value."""


def keep_details(cards: list[Candidate], session: Session) -> None:
    """Attach the loose turns of ``session`` to ``cards`` and add each card's details, in place."""
    if not cards:
        return
    owners = _owners(cards, session)
    detailed: set[str] = set()  # what details of the session's cards said already
    voice = Voice(session, session.started_at.date())
    named = {id(card): _named(card.content) for card in cards}  # read once: each card's own and all of them
    everywhere = set().union(*named.values())
    allowed = 0 if any(speaker_of(turn) for turn in session.turns) else REPEATS
    for card in cards:
        said = named[id(card)] | detailed
        details, room, repeats = [], DETAIL_CHARS, allowed
        for index in sorted(set(card.turns)):
            if owners.get(index) is not card:
                continue
            prose, lines, turn = [], [], session.turns[index]
            for sentence, verbatim in _sentences(turn.content, turn.role == "tool"):
                new = _named(sentence) - said
                if not new or len(sentence) > room or is_noise(sentence) or \
                        (turn.role == "tool" and not content_words(sentence) & card.words
                         and not REPLACED.search(sentence)):
                    continue  # a tool's line counts only when it speaks of the card's point (not "Main PID: 1423")
                if not verbatim and _quoted_already(card, voice.say(index, [sentence])):
                    continue
                if new <= everywhere:
                    if not repeats:
                        continue
                    repeats -= 1
                (lines if verbatim else prose).append(sentence)
                said |= new
                detailed |= new
                room -= len(sentence)
            details.extend(part for part in (voice.say(index, prose), "; ".join(lines)) if part)
        if details:
            add_details(card, " ".join(details))


def add_details(card: Candidate, text: str) -> None:
    """``text`` as a details paragraph of ``card``, before its attribution: searchable, out of the card's vector;
    labelled in the card's language."""
    label = DETAILS_LABELS[1 if card.chinese else 0]
    card.content = _before_attribution(card.content, f"**{label}:** {text}")
    card.body = f"{card.body} {text}"
    card.words |= content_words(text)


def _owners(cards: list[Candidate], session: Session) -> dict[int, Candidate]:
    """The card each turn's details go to: the first card holding it, else (a loose turn, which the card then
    holds) the card nearest to it within ``ATTACH_GAP``, the earlier on a tie; small talk joins none."""
    ordered = sorted(cards, key=lambda card: card.order)
    stated = [list(card.turns) for card in ordered]  # the turns a card's point came from: a joined one adds no reach
    owners: dict[int, Candidate] = {}
    for card in ordered:
        for index in card.turns:
            owners.setdefault(index, card)
    for index, turn in enumerate(session.turns):
        if index in owners or turn.role not in READ_ROLES or not _says_something(turn.content):
            continue
        distance, nearest = min(((min(abs(index - held) for held in turns), position)
                                 for position, turns in enumerate(stated) if turns), default=(None, None))
        if distance is not None and distance <= ATTACH_GAP:
            card = ordered[nearest]
            card.turns = sorted(set(card.turns) | {index})
            owners[index] = card
    return owners


def _says_something(text: str) -> bool:
    """Asks or states something: not only greetings, thanks and small talk, which belong to no card."""
    return any(asks(sentence) or (content_words(sentence) and not is_noise(sentence))
               for sentence in split_sentences(strip_markdown(text)))


def _sentences(text: str, output: bool) -> list[tuple[str, bool]]:
    """What a turn says, sentence by sentence and line by line, each with whether it is a line quoted as is (a
    tool's ``output``, a setting in code) rather than said; without long pastes, nor the statements of code
    (``pool_size = 20`` and ``timeout: 300s`` stay). Questions and small talk are left out by the caller, once a
    sentence names something new (the cheaper test first)."""
    found = []
    for block in split_blocks(text):
        code = block.kind == "code"
        pieces = split_sentences(block.text)
        found.extend((piece, output or code) for piece in pieces if not code or SETTING.match(piece))
    plain = ((strip_markdown(line), verbatim) for line, verbatim in found)
    return [(sentence, verbatim) for sentence, verbatim in plain if sentence and len(sentence) <= LONGEST_DETAIL]


def _quoted_already(card: Candidate, said: str) -> bool:
    """The card says this sentence word for word already ("The assistant added: Saved: Casa do Alecrim, 14-18 May"):
    a name only the sentence's lead seems to add ("Saved:" read as a setting) must not repeat it as a detail. Lines
    quoted as is (output, settings) stay: the card's facts are read from their ``key: value`` form."""
    return said.rstrip(".。") in card.content


def _named(text: str) -> set[str]:
    """The names and numbers a text says, and the settings it sets (``proxy-read-timeout: "120"`` names the
    timeout, which a number already said elsewhere does not)."""
    return specifics(text) | {key.strip("\"'").lower() for key in SETTING.findall(text)}


def _before_attribution(content: str, paragraph: str) -> str:
    """``paragraph`` added to the content, before the closing "(who said it, when)" line if it has one."""
    last = attribution(content)
    if last:
        return f"{content[:-len(last) - 2]}\n\n{paragraph}\n\n{last}"
    return f"{content}\n\n{paragraph}"
