"""Telling Chinese text from English, and jieba (Chinese word splitting), loaded once and quiet."""

from __future__ import annotations

import re
from functools import lru_cache

CJK = re.compile(r"[\u3400-\u9fff]")


def is_chinese(text: str, share: float = 0.3) -> bool:
    """Chinese enough (CJK share of letters) that labels and word splitting should be Chinese."""
    letters = sum(1 for ch in text if ch.isalpha())
    return letters > 0 and len(CJK.findall(text)) / letters > share


@lru_cache(maxsize=1)
def quiet_jieba() -> None:
    """Load jieba's dictionary once (the first Chinese text pays for it), without its start-up log."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
