"""Knowledge-item coverage: which labelled items some card holds, and which cards hold no item.

An item (:class:`bench.quality.agentset.Item`) is one piece of knowledge and every turn that states it. A card
comes from its context turns. Sharing a turn is not enough: a card drawn from the right turn that lost the
version, the host or the time does not hold the item. So the test also asks for the item's specifics
(:mod:`bench.specifics`), counted only where the item's own turns say them: what the statement adds (the year
taken from the session's date, the user's name where the user says "I", the labeller's paraphrase) no card
drawn from those turns could keep.

- a card **covers** an item when its context turns include at least one of the item's turns (each of them
  states the item) and its title and content keep at least ``COVER_SHARE`` of the item's specifics;
- a card **matches** an item, the looser test, when it shares a turn with it and keeps at least ``MATCH_SHARE``;
  a card that matches none is knowledge nobody labelled (small talk, a wrong hypothesis, a half-kept item).
"""

from __future__ import annotations

from dataclasses import dataclass

from .quality.agentset import Item
from .quality.records import TurnKey
from .specifics import enough, holds, kept, normalised, specifics

COVER_SHARE = 0.8
MATCH_SHARE = 0.5


@dataclass(frozen=True)
class CardText:
    card_id: str
    turns: frozenset[TurnKey]
    """Its context turns."""
    text: str
    """Title and content, what an agent reads."""
    facts: tuple[tuple[tuple[str, str], str], ...] = ()
    """What it states as data: ((subject, attribute) folded, value) per fact."""


@dataclass(frozen=True)
class Judged:
    item: Item
    specifics: tuple[str, ...]
    """The statement's specifics that the item's turns say."""
    stated: tuple[str, ...]
    """All the statement's specifics."""
    touching: tuple[str, ...]
    """Cards sharing a turn with the item."""
    covering: tuple[str, ...]
    best_kept: int
    """The most of ``specifics`` one touching card keeps (-1 when no card touches the item)."""
    covered_with_stated: bool
    """Covered under the test with ``stated`` in place of ``specifics`` (the statement's words, said or not)."""
    covered_whole: bool
    """Covered by a card whose context holds every turn of the item, not just one."""

    @property
    def covered(self) -> bool:
        return bool(self.covering)


@dataclass
class Coverage:
    judged: list[Judged]
    cards: list[CardText]
    unmatched: list[str]
    """Cards that match no item."""
    untouched: list[str]
    """Cards that share no turn with any item."""


def said(item: Item, turn_text: dict[TurnKey, str]) -> tuple[str, ...]:
    """The statement's specifics that the item's own turns hold."""
    text = normalised("\n".join(turn_text[key] for key in sorted(item.turns)))
    return tuple(specific for specific in specifics(item.statement) if holds(text, specific))


def covers(card: CardText, item: Item, wanted: tuple[str, ...]) -> bool:
    return _holds(card, item, wanted, COVER_SHARE)


def matches(card: CardText, item: Item, wanted: tuple[str, ...]) -> bool:
    return _holds(card, item, wanted, MATCH_SHARE)


def _holds(card: CardText, item: Item, wanted: tuple[str, ...], share: float) -> bool:
    """Whether the card shares a turn with the item and keeps ``share`` of the ``wanted`` specifics."""
    return bool(card.turns & item.turns) and enough(kept(wanted, card.text), len(wanted), share)


def measure(items: list[Item], cards: list[CardText], turn_text: dict[TurnKey, str]) -> Coverage:
    judged, matched = [], set()
    for item in items:
        wanted, stated = said(item, turn_text), tuple(specifics(item.statement))
        touching = [card for card in cards if card.turns & item.turns]
        covering = [card for card in touching if covers(card, item, wanted)]
        matched.update(card.card_id for card in touching if matches(card, item, wanted))
        judged.append(Judged(
            item, wanted, stated, tuple(card.card_id for card in touching), tuple(card.card_id for card in covering),
            max((kept(wanted, card.text) for card in touching), default=-1),
            any(covers(card, item, stated) for card in touching),
            any(item.turns <= card.turns for card in covering)))
    item_turns = frozenset().union(*(item.turns for item in items))
    return Coverage(judged, cards, [card.card_id for card in cards if card.card_id not in matched],
                    [card.card_id for card in cards if not card.turns & item_turns])
