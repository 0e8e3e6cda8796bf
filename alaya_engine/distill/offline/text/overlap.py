"""How much two texts talk about the same thing: shared content words (or CJK pairs)."""

from __future__ import annotations

from .chinese import CJK
from .markdown import strip_markdown
from .memo import within_session
from .tags import identifiers
from .words import WORD, is_content_word


@within_session
def content_words(text: str) -> set[str]:
    """Lower-case words (or CJK bigrams) for overlap tests between sentences."""
    plain = strip_markdown(text).lower()
    words = {_stem(word) for word in WORD.findall(plain) if is_content_word(word)}
    cjk = "".join(CJK.findall(plain))
    words.update(cjk[i:i + 2] for i in range(len(cjk) - 1))
    words.update(name.lower() for name in identifiers(text))
    return words


def _stem(word: str) -> str:
    """Crude suffix stripping so 'painting', 'painted' and 'paints' meet."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def overlap(first: set[str], second: set[str]) -> float:
    """Share of the smaller set found in the other: 1.0 when one repeats the other."""
    if not first or not second:
        return 0.0
    return len(first & second) / min(len(first), len(second))


def shared_weight(first: set[str], second: set[str]) -> float:
    """How many words two texts share, a CJK pair counting half (two characters are less than a word)."""
    return sum(0.5 if CJK.search(word) else 1.0 for word in first & second)


def overlap_of(part: set[str], whole: set[str]) -> float:
    """Share of ``part`` found in ``whole``: 1.0 when ``whole`` says all of it."""
    return len(part & whole) / len(part) if part else 0.0
