"""Turn a model's free-form answer into a :class:`Distillation`, forgivingly.

Models wrap JSON in code fences or prose, think aloud first, omit fields,
invent card types and relation names, and cite cards that do not exist. All
of that is repaired here so the pipeline only ever sees clean drafts; only an
answer with no usable JSON at all is refused, so the caller can ask again.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ..errors import AlayaError
from ..relations import CARD_TO_SESSION, normalise_relation
from .base import CARD_TYPES, CardDraft, Distillation, LinkDraft

DEFAULT_IMPORTANCE = 0.5
DEFAULT_TYPE = "concept"

_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_TAG_SEPARATORS = re.compile(r"[,，、;；]")
_DECODER = json.JSONDecoder()


class UnparseableOutput(ValueError):
    """The answer holds no JSON object with a ``cards`` list; asking again may help."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def parse_distillation(text: str, max_cards: int) -> Distillation:
    """Cards and links from ``text``, cut to the ``max_cards`` most important cards."""
    document = extract_document(text)
    cards = _cards(document["cards"])
    links, unmatched = _links(document.get("links"), cards)
    cards, links, orphaned = _keep_most_important(cards, links, max(max_cards, 0))
    return Distillation(cards=cards, links=links, dropped_links=unmatched + orphaned)


def extract_document(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` that has a ``cards`` list, wherever it sits.

    Decoding from every ``{`` finds the object inside fences or prose, and
    also one nested in a wrapper such as ``{"result": {"cards": [...]}}``.
    """
    text = _THINKING.sub("", text)
    whole = _loads(text.strip())
    if isinstance(whole, list):
        return {"cards": whole}
    for start, char in enumerate(text):
        if char != "{":
            continue
        try:
            candidate, _ = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(candidate, dict) and "cards" in candidate:
            if not isinstance(candidate["cards"], list):
                raise UnparseableOutput(f'"cards" is a {type(candidate["cards"]).__name__}, not a list')
            return candidate
    raise UnparseableOutput(f"no JSON object with a \"cards\" list in {_preview(text)}")


def title_key(title: str) -> str:
    """How titles are matched: case- and whitespace-insensitive."""
    return " ".join(title.split()).casefold()


def _cards(items: list[Any]) -> list[CardDraft]:
    cards: dict[str, CardDraft] = {}
    for item in items:
        card = _card(item) if isinstance(item, dict) else None
        if card is not None:
            cards.setdefault(title_key(card.title), card)
    return list(cards.values())


def _card(item: dict[str, Any]) -> CardDraft | None:
    title = " ".join(str(item.get("title") or "").split())
    if not title:
        return None
    content = str(item.get("content") or "").strip()
    return CardDraft(
        title=title,
        content=content or title,
        type=_card_type(item.get("type")),
        tags=_tags(item.get("tags")),
        importance=_unit_float(item.get("importance"), DEFAULT_IMPORTANCE),
        turns=_turns(item.get("turns", item.get("source_turns"))),
    )


def _card_type(value: Any) -> str:
    name = str(value or "").strip().lower()
    if name.endswith("s") and name[:-1] in CARD_TYPES:
        name = name[:-1]
    return name if name in CARD_TYPES else DEFAULT_TYPE


def _tags(value: Any) -> list[str]:
    """A list, or one string separated by commas (also the CJK ones the prompt's language invites)."""
    if isinstance(value, str):
        value = _TAG_SEPARATORS.split(value)
    if not isinstance(value, list):
        return []
    tags = (str(tag).strip().lstrip("#").strip() for tag in value if tag is not None)
    return list(dict.fromkeys(tag for tag in tags if tag))


def _unit_float(value: Any, default: float) -> float:
    """A number (or numeric string) clamped to [0, 1]; anything else is ``default``."""
    if isinstance(value, bool):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return default if math.isnan(number) else min(max(number, 0.0), 1.0)


def _turns(value: Any) -> list[int]:
    """Turn indices the model cited; non-integers are ignored, range is the caller's to check."""
    if not isinstance(value, list):
        value = [value]
    indices = {int(v) for v in value if (isinstance(v, int) and not isinstance(v, bool)) or _is_digits(v)}
    return sorted(indices)


def _is_digits(value: Any) -> bool:
    return isinstance(value, str) and value.strip().isdigit()


def _links(items: Any, cards: list[CardDraft]) -> tuple[list[LinkDraft], int]:
    """Links resolved to the cards' own titles, plus how many could not be kept."""
    if not isinstance(items, list):
        return [], 0
    titles = {title_key(card.title): card.title for card in cards}
    links: dict[tuple[str, str, str], LinkDraft] = {}
    dropped = 0
    for item in items:
        link = _link(item, titles) if isinstance(item, dict) else None
        if link is None:
            dropped += 1
        else:
            links.setdefault((link.from_title, link.to_title, link.relation), link)
    return list(links.values()), dropped


def _link(item: dict[str, Any], titles: dict[str, str]) -> LinkDraft | None:
    """None when an endpoint is unknown, the link loops, or the relation is unusable between cards."""
    source = titles.get(title_key(str(item.get("from_title") or item.get("from") or "")))
    target = titles.get(title_key(str(item.get("to_title") or item.get("to") or "")))
    if source is None or target is None or source == target:
        return None
    try:
        relation = normalise_relation(str(item.get("relation") or ""))
    except AlayaError:
        return None
    if relation in CARD_TO_SESSION:
        return None
    reason = str(item.get("reason") or "").strip()
    return LinkDraft(source, target, relation, reason, _unit_float(item.get("weight"), 1.0))


def _keep_most_important(
    cards: list[CardDraft], links: list[LinkDraft], max_cards: int
) -> tuple[list[CardDraft], list[LinkDraft], int]:
    """The ``max_cards`` most important cards in their original order, and the links still whole."""
    if len(cards) <= max_cards:
        return cards, links, 0
    ranked = sorted(range(len(cards)), key=lambda index: -cards[index].importance)
    kept = [cards[index] for index in sorted(ranked[:max_cards])]
    titles = {card.title for card in kept}
    whole = [link for link in links if link.from_title in titles and link.to_title in titles]
    return kept, whole, len(links) - len(whole)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _preview(text: str, limit: int = 80) -> str:
    """A short one-line quote of the answer, enough to recognise it in an error message."""
    flat = " ".join(text.split())
    if not flat:
        return "an empty answer"
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
