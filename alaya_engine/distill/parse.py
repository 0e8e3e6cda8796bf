"""Turn a model's free-form answer into a :class:`Distillation`, forgivingly.

Models wrap JSON in code fences or prose, think aloud first, omit fields,
invent card types and relation names, and cite cards that do not exist. All
of that is repaired here so the pipeline only ever sees clean drafts; only an
answer with no usable JSON at all is refused, so the caller can ask again.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..foundations.domain import CARD_TYPES, Fact
from ..foundations.errors import AlayaError
from ..foundations.json_input import JsonInputError, decode_at, load_json, without_lone_surrogates
from ..foundations.relations import CARD_TO_SESSION, normalise_relation
from ..raw.session_parts import to_millis
from .base import CardDraft, Distillation, LinkDraft

DEFAULT_IMPORTANCE = 0.5
DEFAULT_TYPE = "concept"

_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_THINKING_END = re.compile(r"</think>", re.IGNORECASE)
_OBJECT_START = re.compile(r'\{\s*["}]')
"""Where a JSON object can start; trying every ``{`` made each stray brace a failed decode."""
_TAG_SEPARATORS = re.compile(r"[,，、;；]")
_MAX_TURN_DIGITS = 9


class UnparseableOutput(ValueError):
    """The answer holds no JSON object with a ``cards`` list; asking again may help."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def parse_distillation(text: str, max_cards: int, said_at: int = 0) -> Distillation:
    """Cards and links from ``text``, cut to the ``max_cards`` most important cards; ``said_at`` (ms) dates the
    facts the model gave without a date of their own (when the session was held)."""
    document = extract_document(text)
    cards = _cards(document["cards"], said_at)
    links, unmatched = _links(document.get("links"), cards)
    cards, links, orphaned = _keep_most_important(cards, links, max(max_cards, 0))
    return Distillation(cards=cards, links=links, dropped_links=unmatched + orphaned)


def extract_document(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` that has a ``cards`` list, wherever it sits.

    Decoding from every ``{`` finds the object inside fences or prose, and
    also one nested in a wrapper such as ``{"result": {"cards": [...]}}``.
    Lone surrogates (the answer's envelope may have spelled them as escapes) become U+FFFD.
    """
    text = _without_thinking(without_lone_surrogates(text))
    whole = _loads(text.strip())
    if isinstance(whole, list):
        return {"cards": whole}
    for start in (match.start() for match in _OBJECT_START.finditer(text)):
        try:
            candidate, _ = decode_at(text, start, strict=False)
        except JsonInputError:
            continue
        if isinstance(candidate, dict) and "cards" in candidate:
            if not isinstance(candidate["cards"], list):
                raise UnparseableOutput(f'"cards" is a {type(candidate["cards"]).__name__}, not a list')
            return candidate
    raise UnparseableOutput(f"no JSON object with a \"cards\" list in {_preview(text)}")


def _without_thinking(text: str) -> str:
    """Drop ``<think>…</think>`` blocks in linear time.

    Nothing after the last ``</think>`` can close a block, so the lazy pattern only runs before it;
    run over the whole text, every unclosed ``<think>`` would rescan the rest of it (24 s for 140 kB).
    """
    last_end = None
    for last_end in _THINKING_END.finditer(text):
        pass
    if last_end is None:
        return text
    return _THINKING.sub("", text[: last_end.end()]) + text[last_end.end():]


def title_key(title: str) -> str:
    """How titles are matched: case- and whitespace-insensitive."""
    return " ".join(title.split()).casefold()


def _cards(items: list[Any], said_at: int) -> list[CardDraft]:
    cards: dict[str, CardDraft] = {}
    for item in items:
        card = _card(item, said_at) if isinstance(item, dict) else None
        if card is not None:
            cards.setdefault(title_key(card.title), card)
    return list(cards.values())


def _card(item: dict[str, Any], said_at: int) -> CardDraft | None:
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
        facts=_facts(item.get("facts"), said_at),
    )


def _facts(value: Any, said_at: int) -> list[Fact]:
    """The card's facts: objects with a subject, an attribute and a value (strings or numbers); others are
    dropped. ``valid_from`` may be an ISO date or time, or ms since the epoch; otherwise ``said_at``."""
    facts = []
    for item in value if isinstance(value, list) else ():
        if not isinstance(item, dict):
            continue
        parts = [_fact_text(item.get(name)) for name in ("subject", "attribute", "value")]
        if all(parts):
            facts.append(Fact(*parts, valid_from=_moment(item.get("valid_from"), said_at)))
    return list({(fact.key(), fact.value): fact for fact in facts}.values())


def _fact_text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return " ".join(str(value).split())[:200]


def _moment(value: Any, default: int) -> int:
    """ms since the epoch as a session's times are read (ISO date or time, UTC unless it names a zone; epoch ms,
    or s below 1e11), 1970 to 9999; anything else, or outside that, is ``default``: the graph stores no other."""
    try:
        return to_millis(value, "valid_from") or default
    except AlayaError:
        return default


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
    except (TypeError, ValueError, OverflowError):
        return default
    return default if math.isnan(number) else min(max(number, 0.0), 1.0)


def _turns(value: Any) -> list[int]:
    """Turn indices the model cited; non-integers are ignored, range is the caller's to check."""
    if not isinstance(value, list):
        value = [value]
    indices = {int(v) for v in value if (isinstance(v, int) and not isinstance(v, bool)) or _is_digits(v)}
    return sorted(indices)


def _is_digits(value: Any) -> bool:
    """A string ``int()`` reads as a plausible turn index (``isdigit`` alone also passes ``'²'``)."""
    return isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) <= _MAX_TURN_DIGITS


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
        return load_json(text, strict=False)
    except JsonInputError:
        return None


def _preview(text: str, limit: int = 80) -> str:
    """A short one-line quote of the answer, enough to recognise it in an error message."""
    flat = " ".join(text.split())
    if not flat:
        return "an empty answer"
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
