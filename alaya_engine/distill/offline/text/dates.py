"""Relative dates ("yesterday", "last week", 昨天) rewritten as absolute ones, and dates for titles."""

from __future__ import annotations

import re
from datetime import date, timedelta

from .markdown import outside_code

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2}
RELATIVE_DATE = re.compile(
    r"\b(?:(?P<prep>on|since|until|from|by|before|after)\s+)?(?:"
    r"(?P<yesterday>yesterday)|(?P<today>today|tonight|this morning|this afternoon|this evening)"
    r"|(?P<tomorrow>tomorrow)|(?P<lastnight>last night)|(?P<otherday>the other day)"
    r"|(?P<season_dir>last|this|next)\s+(?P<season>summer|winter|spring|fall|autumn)"
    r"|(?P<the>the\s+)?(?P<dir>last|next|this)\s+(?P<unit>week(?:end)?|month|year|"
    + "|".join(WEEKDAYS) + r")"
    r"|(?P<count>\d+|a couple of|couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?P<ago_unit>days?|weekends?|weeks?|months?|years?)\s+ago"
    r")\b(?P<possessive>'s)?",
    re.IGNORECASE,
)
ZH_RELATIVE_DATE = re.compile(r"前天|昨天|昨晚|今天|今晚|明天|后天|(?:上|下|这|本)个?周末|上周[一二三四五六日天]?"
                              r"|下周[一二三四五六日天]?|上个月|下个月|去年|明年")
ZH_WEEKDAY = "一二三四五六日"
SEASON_MONTHS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
PREPOSITIONS = (r"(?:about|of|for|during|over|through|throughout|into|around|in|at|to|till|within|across|like|until|"
                r"since|from|by|before|after|on)")
PREPOSITION_BEFORE = re.compile(rf"\b{PREPOSITIONS}\s+$", re.IGNORECASE)
"""A preposition right before a relative date the date's own pattern does not take ("daydreaming about next year",
"moved it to tomorrow"): the date then goes in bare, not with a preposition of its own ("about in 2027")."""


def long_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def chinese_long_date(day: date) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


def resolve_dates(text: str, today: date) -> tuple[str, list[str]]:
    """Rewrite relative dates ("yesterday", "last week", 昨天) as absolute ones; also return those dates."""
    found: list[str] = []

    def english(match: re.Match) -> str:
        phrase, absolute = _english_date(match, today)
        found.append(absolute)
        if match.group("possessive"):
            return f"the {absolute}"
        if _after_preposition(match):
            return absolute
        return phrase

    def chinese(match: re.Match) -> str:
        absolute = _chinese_date(match.group(0), today)
        found.append(absolute)
        return f"{match.group(0)}（{absolute}）"

    def prose(piece: str) -> str:
        return ZH_RELATIVE_DATE.sub(chinese, RELATIVE_DATE.sub(english, piece))

    blocks = re.split(r"(```.*?```)", text, flags=re.DOTALL)
    text = "".join(block if block.startswith("```") else outside_code(block, prose) for block in blocks)
    return text, found


def compact_date(absolute: str) -> str:
    """'the week of 21 January 2023' → 'week of 21 Jan 2023', for titles."""
    text = re.sub(r"^the |^a few \w+ ", "", absolute)
    return re.sub(r"\b(January|February|March|April|June|July|August|September|October|November|December)\b",
                  lambda m: m.group(1)[:3], text)


STRANDED_PREPOSITION = re.compile(rf"\s*\b{PREPOSITIONS}\s*\x00", re.IGNORECASE)
"""A preposition a stripped date leaves behind (the date marked by a NUL in between)."""


def strip_dates(text: str) -> str:
    """The text without its relative dates, for a title that names the date separately; a preposition left before
    one goes with it ("daydreaming about next year" → "daydreaming", not "daydreaming about")."""
    text = ZH_RELATIVE_DATE.sub("", RELATIVE_DATE.sub(lambda match: "\x00" if _after_preposition(match) else "", text))
    text = STRANDED_PREPOSITION.sub("", text).replace("\x00", "")
    text = re.sub(r"\s+([,.!?;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
    return re.sub(r"^[,.;:\s-]+", "", text)


def _after_preposition(match: re.Match) -> bool:
    """Whether a relative date without a preposition of its own follows one (:data:`PREPOSITION_BEFORE`, looked for
    in the 24 characters before it)."""
    return not match.group("prep") and PREPOSITION_BEFORE.search(match.string, max(0, match.start() - 24),
                                                                 match.start()) is not None


def _english_date(match: re.Match, today: date) -> tuple[str, str]:
    """The replacement phrase and the bare absolute date for one English match."""
    prep = match.group("prep")
    if match.group("yesterday") or match.group("lastnight"):
        return _on(prep, long_date(today - timedelta(days=1)))
    if match.group("today"):
        return _on(prep, long_date(today))
    if match.group("tomorrow"):
        return _on(prep, long_date(today + timedelta(days=1)))
    if match.group("otherday"):
        return _vague(prep, f"a few days before {long_date(today)}")
    if match.group("ago_unit"):
        return _ago(match, today, prep)
    if match.group("season"):
        return _season(match.group("season_dir").lower(), match.group("season").lower(), today, prep)
    phrase, absolute = _named_period(match.group("dir").lower(), match.group("unit").lower(), today, prep)
    if match.group("the") and not prep:  # "over the next week": the words before it carry the preposition
        phrase = absolute
    return phrase, absolute


def _on(prep: str | None, absolute: str, default: str = "on") -> tuple[str, str]:
    """The phrase with its preposition (else ``default``), and the bare absolute date."""
    return f"{prep or default} {absolute}", absolute


def _vague(prep: str | None, absolute: str) -> tuple[str, str]:
    """Like ``_on`` for a fuzzy time ("a few days before …"): keep the preposition written, add none."""
    return f"{prep} {absolute}" if prep else absolute, absolute


def _ago(match: re.Match, today: date, prep: str | None) -> tuple[str, str]:
    unit = match.group("ago_unit").lower().rstrip("s")
    if match.group("count").lower() == "a few":
        return _vague(prep, f"a few {unit}s before {long_date(today)}")
    count = NUMBERS.get(match.group("count").lower()) or int(match.group("count"))
    if unit == "day":
        return _on(prep, long_date(today - timedelta(days=count)))
    if unit == "week":
        return _on(prep, f"the week of {long_date(today - timedelta(weeks=count))}", "in")
    if unit == "weekend":
        return _on(prep, f"the weekend of {long_date(today + timedelta(days=5 - today.weekday(), weeks=-count))}")
    if unit == "month":
        month = _shift_month(today, -count)
        return _on(prep, f"{month:%B %Y}", "in")
    return _on(prep, str(today.year - count), "in")


def _named_period(direction: str, unit: str, today: date, prep: str | None) -> tuple[str, str]:
    step = {"last": -1, "next": 1, "this": 0}[direction]
    if unit in WEEKDAYS:
        return _on(prep, long_date(_weekday(today, WEEKDAYS.index(unit), step)))
    if unit == "week":
        return _on(prep, f"the week of {long_date(today + timedelta(weeks=step))}", "in")
    if unit == "weekend":
        saturday = today + timedelta(days=5 - today.weekday(), weeks=step)
        return _on(prep, f"the weekend of {long_date(saturday)}")
    if unit == "month":
        return _on(prep, f"{_shift_month(today, step):%B %Y}", "in")
    return _on(prep, str(today.year + step), "in")


def _season(direction: str, season: str, today: date, prep: str | None) -> tuple[str, str]:
    """'last summer' in December 2023 → summer 2023; in May 2023 → summer 2022."""
    start = SEASON_MONTHS[season]
    year = today.year
    if direction == "last":
        year -= 0 if today.month >= start + 3 else 1
    elif direction == "next":
        year += 0 if today.month < start else 1
    return _on(prep, f"{season} {year}", "in")


def _weekday(today: date, weekday: int, step: int) -> date:
    """The given weekday before (step -1), after (1) or in the week of (0) ``today``."""
    if step < 0:
        back = (today.weekday() - weekday) % 7 or 7
        return today - timedelta(days=back)
    if step > 0:
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    return today + timedelta(days=weekday - today.weekday())


def _shift_month(today: date, months: int) -> date:
    index = today.year * 12 + today.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _chinese_date(phrase: str, today: date) -> str:
    offsets = {"前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "明天": 1, "后天": 2}
    if phrase in offsets:
        return (today + timedelta(days=offsets[phrase])).isoformat()
    if phrase in ("上个月", "下个月"):
        return f"{_shift_month(today, -1 if phrase == '上个月' else 1):%Y-%m}"
    if phrase in ("去年", "明年"):
        return str(today.year + (-1 if phrase == "去年" else 1))
    if phrase.endswith("周末"):
        step = {"上": -1, "下": 1}.get(phrase[0], 0)
        return f"{(today + timedelta(days=5 - today.weekday(), weeks=step)).isoformat()} 那个周末"
    step = -1 if phrase.startswith("上") else 1
    if len(phrase) == 3:
        weekday = ZH_WEEKDAY.index("日" if phrase[2] == "天" else phrase[2])
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        return (monday + timedelta(days=weekday)).isoformat()
    return f"{(today + timedelta(weeks=step)).isoformat()} 那周"
