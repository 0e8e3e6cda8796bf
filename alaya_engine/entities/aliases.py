"""Aliases a text declares, offline: two names of one thing, where the text itself says so.

- "you can call me X" / "call me X" / 你可以叫我小王 / 叫我小王就行: X names the speaker — the name the text gives
  ("I'm Wang Feng", 我叫王峰) or, failing that, the person the card's attribution line names;
- "Y (a.k.a. X)", "Y, also known as X," / Y（又叫X）, Y，外号X: X names Y;
- a host and its domain name said together (``ops-01`` and ``ops-01.example.com``). An internal domain
  (``ops-01.internal``) needs no declaration: its key is the host's (``foundations.entities.entity_key``);
- a name written in the other script in brackets beside it, when it spells it: "Chen Yu (陈屿)", "陈屿（Chen Yu）",
  "Xiamen（厦门）" (the Chinese name read in Latin letters, surname first, is the Latin one).

Not resolved: a pseudonym no sentence ties to a name (a speaker who signs "W." in one session and "Wang Feng" in
another), a nickname used without being introduced, pronouns, and an alias two texts give to two different things
(the first declaration wins).
"""

from __future__ import annotations

import re

from ..distill.offline.text.romanised import spelled_as, squashed

NAME = r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}"
CALL_ME = re.compile(r"\b(?i:call me) (?P<alias>" + NAME + r")")
I_AM = re.compile(r"\b(?:I'm|I am|my name is|my name's|this is)\s+(?P<name>" + NAME + r")")
AKA = re.compile(r"\s*(?:\(|,)\s*(?i:a\.?k\.?a\.?|also known as|also called|aka)\s+`?(?P<alias>[^()`,;:\n]{1,40}?)`?"
                 r"\s*(?:\)|,|;|\.(?:\s|$)|$)")
ZH_CALL_ME = re.compile(r"叫我(?P<alias>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=就行|就好|就可以|吧|好了|[，,。！!？?\s]|$)")
ZH_I_AM = re.compile(r"我(?:叫|是|的名字是|名叫)(?P<name>[\u4e00-\u9fff]{2,3}?)(?=[，,。！!\s]|$)")
ZH_AKA = re.compile(r"\s*[（(，,]\s*(?:又叫|又名|也叫|外号|人称|别名)(?P<alias>[^）)，,。\s]{1,12})")
"""The cue and the alias; the name is the one the text says right before the cue."""
LATIN_THEN_CJK = re.compile(r"(?P<latin>[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}) ?[（(](?P<cjk>[\u4e00-\u9fff]{2,4})[）)]")
CJK_THEN_LATIN = re.compile(r"(?P<cjk>[\u4e00-\u9fff]{2,8}) ?[（(](?P<latin>[A-Z][a-z]+(?: [A-Z][a-z]+){0,2})[）)]")
"""A name and, in brackets, the same name in the other script; the Chinese run before a bracket may hold words
before the name ("所以陈屿（Chen Yu）"): the name is the end of it that spells the Latin one."""
ROLES = frozenset({"the user", "user", "the assistant", "assistant", "用户", "助手", "ai"})
"""Speakers known only by role: "call me X" said by "the user" has no name to join X to."""


def declared(text: str, speaker: str | None, names: list[str]) -> list[tuple[str, str, str]]:
    """(alias, name, kind) pairs the text declares; the kind is what the pair tells ("person", or "" when it does
    not say). ``names``: the names the text mentions, one of which must end right before an "a.k.a." cue."""
    found: list[tuple[str, str, str]] = []
    me = _speaker(text, speaker)
    if me:
        for match in [*CALL_ME.finditer(text), *ZH_CALL_ME.finditer(text)]:
            alias = match["alias"].strip()
            if alias and alias.casefold() != me.casefold():
                found.append((alias, me, "person"))
    found.extend(_across_scripts(text))
    for pattern in (AKA, ZH_AKA):
        for match in pattern.finditer(text):
            before = text[:match.start()].rstrip("` ")
            name = max((name for name in names if before.endswith(name)), key=len, default=None)
            alias = match["alias"].strip("` ")
            if name and alias and name.casefold() != alias.casefold():
                found.append((alias, name, ""))
    return found


def _across_scripts(text: str) -> list[tuple[str, str, str]]:
    """(Chinese name, Latin name, "") for each name a text writes in both scripts, side by side."""
    pairs = []
    for match in [*LATIN_THEN_CJK.finditer(text), *CJK_THEN_LATIN.finditer(text)]:
        words, run = match["latin"].split(), match["cjk"]
        latins = [" ".join(words[start:]) for start in range(len(words))]  # "Monday Chen Yu": "Chen Yu"
        names = [run[start:] for start in range(max(0, len(run) - 4), len(run) - 1)]
        pair = next(((name, latin, "") for latin in latins for name in names
                     if spelled_as(name) == squashed(latin)), None)
        if pair:
            pairs.append(pair)
    return pairs


def _speaker(text: str, speaker: str | None) -> str | None:
    match = I_AM.search(text) or ZH_I_AM.search(text)
    if match:
        return match["name"].strip()
    if speaker and speaker.strip().casefold() not in ROLES:
        return speaker.strip()
    return None


def domain_aliases(names: dict[str, str]) -> list[tuple[str, str]]:
    """(domain name, host) for a host said with and without its domain in one text; ``names``: name → kind."""
    bare = {name.casefold(): name for name in names if "." not in name}
    return [(name, bare[name.split(".", 1)[0].casefold()]) for name, kind in names.items()
            if kind == "host" and "." in name and name.split(".", 1)[0].casefold() in bare]
