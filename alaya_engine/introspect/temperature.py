"""Temperature and tiers, with a formula that honours the documented tier table.

The textbook product ``recency × frequency × relevance`` gives 0 to every card
never recalled, although new cards start at 1.0 and the last 7 days are HOT.
Alaya uses instead::

    recency    = exp(−days since last touch / recency_decay)      last touch = max(created, last recalled)
    usage      = min(1, access_count / frequency_cap) × (0.5 + 0.5 × relevance)
    temperature = recency × (0.7 + 0.3 × usage)

``relevance`` is the mean similarity of the card to the queries that returned
it. A new card is at 0.7 (the HOT threshold) on its first introspect, a card
recalled often and closely stays near 1.0 while it keeps being recalled, and
an untouched card cools with recency alone: worked example with the defaults
(recency_decay 30, frequency_cap 20) — a card created 40 days ago, recalled 5
times, last 10 days ago, mean similarity 0.6: recency = e^(−10/30) = 0.717,
usage = 0.25 × 0.8 = 0.2, temperature = 0.717 × 0.76 = 0.545 → WARM.

Tiers (the documented tier table): HOT if temperature ≥ ``hot_threshold`` or
created within 7 days or recalled more than 10 times; COLD if temperature <
``warm_threshold`` and not touched for ``cold_days``; WARM otherwise. HOT beyond
``hot_limit`` is demoted to WARM, then WARM beyond ``warm_limit`` to COLD,
coolest first: the resident matrix holds at most ``hot_limit + warm_limit``
float vectors however large the store grows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DAY_MS = 86_400_000
NEW_CARD_DAYS = 7
FREQUENT_ACCESSES = 10


@dataclass
class CardHeat:
    card_id: str
    created_at: int
    last_accessed: int
    access_count: int
    relevance: float

    def last_touch(self) -> int:
        return max(self.created_at, self.last_accessed)


def temperature(card: CardHeat, now: int, settings: dict) -> float:
    recency = math.exp(-max(0, now - card.last_touch()) / DAY_MS / settings["recency_decay"])
    usage = min(1.0, card.access_count / settings["frequency_cap"]) * (0.5 + 0.5 * card.relevance)
    return round(recency * (0.7 + 0.3 * usage), 4)


def tier(card: CardHeat, heat: float, now: int, settings: dict) -> str:
    if (heat >= settings["hot_threshold"] or now - card.created_at <= NEW_CARD_DAYS * DAY_MS
            or card.access_count > FREQUENT_ACCESSES):
        return "HOT"
    if heat < settings["warm_threshold"] and now - card.last_touch() > settings["cold_days"] * DAY_MS:
        return "COLD"
    return "WARM"


def assign_tiers(cards: list[CardHeat], now: int, settings: dict) -> dict[str, tuple[float, str]]:
    """card id → (temperature, tier), with the HOT overflow demoted to WARM and then the WARM overflow to COLD,
    coolest first."""
    result = {}
    for card in cards:
        heat = temperature(card, now, settings)
        result[card.card_id] = (heat, tier(card, heat, now, settings))
    hot = sorted((card_id for card_id, (_, name) in result.items() if name == "HOT"),
                 key=lambda card_id: result[card_id][0], reverse=True)
    for card_id in hot[settings["hot_limit"]:]:
        result[card_id] = (result[card_id][0], "WARM")
    warm = sorted((card_id for card_id, (_, name) in result.items() if name == "WARM"),
                  key=lambda card_id: result[card_id][0], reverse=True)
    for card_id in warm[settings["warm_limit"]:]:
        result[card_id] = (result[card_id][0], "COLD")
    return result
