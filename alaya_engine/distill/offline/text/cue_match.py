"""Finding cue phrases (the tuples in ``offline.cues``) in text."""

from __future__ import annotations

import re
from functools import lru_cache

from .chinese import CJK


@lru_cache(maxsize=None)
def cue_pattern(cues: tuple[str, ...]) -> re.Pattern:
    """One regex for a cue tuple: word boundaries around English cues, none around Chinese ones."""
    ordered = sorted(cues, key=len, reverse=True)
    words = [re.escape(cue) for cue in ordered if not cue.startswith("re:") and not CJK.search(cue)]
    parts = [cue[3:] for cue in ordered if cue.startswith("re:")]
    parts += [re.escape(cue) for cue in ordered if not cue.startswith("re:") and CJK.search(cue)]
    if words:
        parts.append(r"(?<![\w-])(?:" + "|".join(words) + r")(?![\w-])")
    return re.compile("|".join(parts), re.IGNORECASE)


def find_cues(text: str, cues: tuple[str, ...]) -> list[str]:
    """Every cue found, in order: the distiller counts them to score card types."""
    return [match.group(0) for match in cue_pattern(cues).finditer(text)]


def has_cue(text: str, cues: tuple[str, ...]) -> bool:
    return cue_pattern(cues).search(text) is not None
