"""Chinese names in Latin letters, as an English sentence writes them: 周岚 is "Zhou Lan", 朵朵 is "Duoduo". A bilingual
memory says one person's or place's name in both scripts, and an update said in one language names what a card in the
other said (docs/introspect.md)."""

from __future__ import annotations

import functools
import re

CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
LONGEST = 4
"""Characters of a name read in Latin letters: a surname and a given name."""
SHORTEST = 4
"""Letters of a Latin name looked up in Chinese text: shorter ones ("Li", "Yu") spell too many pairs of
characters."""


def cjk_runs(text: str) -> tuple[str, ...]:
    return tuple(CJK_RUN.findall(text))


@functools.lru_cache(maxsize=4096)
def spellings(run: str) -> frozenset[str]:
    """Every way an English text may spell a name of two to :data:`LONGEST` characters of ``run``, squashed (no
    spaces, casefolded): its syllables in order ("zhoulan", "duoduo"). Not the given name first ("Lan Zhou"): that
    is how 兰州 (Lanzhou, a city) is spelled."""
    if len(run) < 2:
        return frozenset()
    from pypinyin import lazy_pinyin  # ~0.7 s to load its tables: only for names compared across scripts

    syllables = lazy_pinyin(run)
    if len(syllables) != len(run):
        return frozenset()
    found = set()
    for start in range(len(run) - 1):
        for length in range(2, min(LONGEST, len(run) - start) + 1):
            found.add("".join(syllables[start:start + length]))
    return frozenset(found)


@functools.lru_cache(maxsize=4096)
def spelled_as(name: str) -> str:
    """``name`` (Chinese characters) in Latin letters, squashed: 陈屿 → "chenyu"."""
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(name))


def squashed(name: str) -> str:
    """A Latin name as :func:`spellings` writes one: "Zhou Lan" → "zhoulan"."""
    return re.sub(r"[\s'-]+", "", name.casefold())


def spelled_in(names: frozenset[str], runs: tuple[str, ...]) -> frozenset[str]:
    """The Latin ``names`` that spell a name the Chinese ``runs`` write ("duoduo" in 朵朵每周二…)."""
    wanted = {name: squashed(name) for name in names}
    wanted = {name: key for name, key in wanted.items() if len(key) >= SHORTEST and key.isascii() and key.isalpha()}
    if not wanted or not runs:
        return frozenset()
    known = _all_spellings(runs)
    return frozenset(name for name, key in wanted.items() if key in known)


@functools.lru_cache(maxsize=4096)
def _all_spellings(runs: tuple[str, ...]) -> frozenset[str]:
    """The spellings of a sentence's runs together: introspect looks one sentence up against many."""
    return frozenset().union(*(spellings(run) for run in runs))
