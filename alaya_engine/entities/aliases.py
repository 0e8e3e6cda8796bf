"""Aliases a text declares, offline: two names of one thing, where the text itself says so.

- "you can call me X" / "call me X" / 你可以叫我小王 / 叫我小王就行: X names the speaker — the name the text gives
  ("I'm Wang Feng", 我叫王峰) or, failing that, the person the card's attribution line names;
- "Y (a.k.a. X)", "Y, also known as X," / Y（又叫X）, Y，外号X: X names Y;
- a host and its domain name said together (``ops-01`` and ``ops-01.example.com``). An internal domain
  (``ops-01.internal``) needs no declaration: its key is the host's (``foundations.entities.entity_key``).

Not resolved: a pseudonym no sentence ties to a name (a speaker who signs "W." in one session and "Wang Feng" in
another), a nickname used without being introduced, pronouns, and an alias two texts give to two different things
(the first declaration wins).
"""

from __future__ import annotations

import re

NAME = r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}"
CALL_ME = re.compile(r"\b(?i:call me) (?P<alias>" + NAME + r")")
I_AM = re.compile(r"\b(?:I'm|I am|my name is|my name's|this is)\s+(?P<name>" + NAME + r")")
AKA = re.compile(r"\s*(?:\(|,)\s*(?i:a\.?k\.?a\.?|also known as|also called|aka)\s+`?(?P<alias>[^()`,;:\n]{1,40}?)`?"
                 r"\s*(?:\)|,|;|\.(?:\s|$)|$)")
ZH_CALL_ME = re.compile(r"叫我(?P<alias>[\u4e00-\u9fffA-Za-z]{1,4}?)(?=就行|就好|就可以|吧|好了|[，,。！!？?\s]|$)")
ZH_I_AM = re.compile(r"我(?:叫|是|的名字是|名叫)(?P<name>[\u4e00-\u9fff]{2,3}?)(?=[，,。！!\s]|$)")
ZH_AKA = re.compile(r"\s*[（(，,]\s*(?:又叫|又名|也叫|外号|人称|别名)(?P<alias>[^）)，,。\s]{1,12})")
"""The cue and the alias; the name is the one the text says right before the cue."""
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
    for pattern in (AKA, ZH_AKA):
        for match in pattern.finditer(text):
            before = text[:match.start()].rstrip("` ")
            name = max((name for name in names if before.endswith(name)), key=len, default=None)
            alias = match["alias"].strip("` ")
            if name and alias and name.casefold() != alias.casefold():
                found.append((alias, name, ""))
    return found


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
