"""The names a text says: identifiers, capitalised proper names, Chinese names (jieba's part-of-speech tags).

One reading of names for everything that compares cards by what they name: introspect's supersede step (which
sentence speaks of the same thing) and the card's entities (what the card mentions). A card's own form — its
labels (``**Decision:**``) and its closing attribution line — is not part of what it says.
"""

from __future__ import annotations

import re

from .chinese import CJK, tagged_chinese_names
from .tags import identifiers, named_things

CARD_LABEL = re.compile(r"\*\*[^*\n]{1,40}[:：]\*\*|^\s*>\s?|（[^（）]*说的。）|\((?:said|told|asked|noted)\b[^()]*\)",
                        re.MULTILINE)
"""A card's own labels (``**Decision:**``) and its closing "(said by …)" line: the card's form, not what it says."""
ATTRIBUTION = re.compile(r"^\s*[（(](?P<speaker>[^()（）,，\n]{1,60})[,，][^()（）\n]{0,120}?"
                         r"(?:\d{4}年\d{1,2}月\d{1,2}日|on \d{1,2} [A-Z][a-z]+ \d{4})[^()（）\n]{0,60}[)）]\s*$",
                         re.MULTILINE)
"""Who said a card and when: "(Ann, talking with Bob on 7 May 2023.)", "（孙悦，2023年4月27日与AI聊天时说的。）"."""
CALENDAR = re.compile(r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?s?|"
                      r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
                      r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|today|tomorrow|yesterday|tonight", re.IGNORECASE)
"""Days and months: capitalised, never a thing a card is about."""
TIME_ZONE = re.compile(r"UTC|GMT|CES?T|EET|BST|[PMCE][SD]T|JST|KST|SGT|AEST")
"""A time zone, written as one ("02:00 UTC"): part of a time, no subject; lower case it may be code (dayjs's
``utc`` plugin)."""


def plain(title: str, content: str) -> str:
    """A card's title and content without its labels and "(said by …)" line."""
    return CARD_LABEL.sub(" ", f"{title}\n{content}")


def speaker_of(content: str) -> str | None:
    """The person the card's attribution line names as its speaker, if it names one ("the user" is a role)."""
    match = ATTRIBUTION.search(content)
    return match["speaker"].strip() if match else None


def without_attribution(text: str) -> str:
    return ATTRIBUTION.sub(" ", text)


def good_name(name: str) -> bool:
    return len(name) > 1 and not CALENDAR.fullmatch(name) and not TIME_ZONE.fullmatch(name)


def proper_names(text: str) -> list[str]:
    """Identifiers, capitalised names (not at a sentence start) and, in Chinese text, the names jieba tags."""
    found = [*identifiers(text), *named_things(text)]
    if CJK.search(text):
        found.extend(name for name, _ in tagged_chinese_names(text))
    return [name for name in found if good_name(name)]
