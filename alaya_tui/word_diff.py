"""Two cards' contents compared word by word, so a merge of two cards with the same title shows what differs.

Chinese and Japanese have no spaces between words, so each CJK character is a word of its own; other text splits
into runs of letters and digits, single punctuation marks and whitespace (kept, so the text reads as written).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from rich.style import Style
from rich.text import Text

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"\s+|[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def word_diff(first: str, second: str, removed: Style, added: Style) -> tuple[Text, Text]:
    """``first`` with what only it says styled ``removed``, ``second`` with what only it says styled ``added``."""
    left, right = tokens(first), tokens(second)
    shown_left, shown_right = Text(), Text()
    for operation, a_start, a_end, b_start, b_end in SequenceMatcher(None, left, right, autojunk=False).get_opcodes():
        shown_left.append("".join(left[a_start:a_end]), style=removed if operation != "equal" else "")
        shown_right.append("".join(right[b_start:b_end]), style=added if operation != "equal" else "")
    return shown_left, shown_right


def similarity(first: str, second: str) -> float:
    """The share of words the two texts have in common, 0–1 (what the diff's summary line reports)."""
    return SequenceMatcher(None, tokens(first), tokens(second), autojunk=False).ratio()
