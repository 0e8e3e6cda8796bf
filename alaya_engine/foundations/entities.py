"""Entities a card mentions: what one card's text says (a :class:`Reading`) and how names become one entity.

A name becomes an entity key by :func:`entity_key`: case, spaces, ``_`` and ``-`` do not count (``Reports Worker``,
``reports_worker`` and ``reports-worker`` are one service) and an internal domain after a host name does not either
(``ops-01.internal`` is ``ops-01``). Anything else that names one thing twice is said in the text ("you can call
me X", "(a.k.a. X)", 你可以叫我小王): the card's reading carries it as an alias pair. Keys, names and kinds are
functions of the names seen, never of the order cards were written in, so a rebuild makes the same entities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ENTITY_KINDS = ("person", "service", "host", "project", "repository", "file", "library", "command", "place", "other")
KIND_RANK = {kind: rank for rank, kind in enumerate(
    ("other", "place", "person", "project", "service", "library", "command", "file", "repository", "host"))}
"""When cards read one name as different kinds, the most specific wins (a host named like a person is a host)."""
INTERNAL_DOMAINS = (".svc.cluster.local", ".cluster.local", ".svc", ".internal", ".local", ".localdomain", ".lan",
                    ".corp", ".intra", ".intranet", ".home.arpa", ".home")
"""Suffixes that name a private network: ``ops-01.internal`` is host ``ops-01``. A public domain
(``api.example.com``) stays a name of its own unless a text says they are one."""
_SEPARATORS = re.compile(r"[\s_\-]+")
ENTITY_ID_PREFIX = "ent-"


@dataclass(frozen=True)
class Mention:
    """A name as one card says it, and what kind of thing the card reads it as."""

    name: str
    kind: str


@dataclass(frozen=True)
class Reading:
    """What one card's text names: its mentions, and the pairs (alias, name) the text says are one thing."""

    mentions: tuple[Mention, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()


@dataclass
class Entity:
    """One entity node: its id (from its key), the name shown, its kind and the other names it goes by."""

    id: str
    name: str
    kind: str
    aliases: list[str]

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "kind": self.kind, "aliases": list(self.aliases)}


def entity_key(name: str) -> str:
    """The key one entity's names share: casefolded, without spaces, ``_``, ``-`` or an internal domain."""
    folded = name.strip().casefold()
    for suffix in INTERNAL_DOMAINS:
        if folded.endswith(suffix) and len(folded) > len(suffix) and "." not in folded[:-len(suffix)]:
            folded = folded[:-len(suffix)]
            break
    return _SEPARATORS.sub("", folded)


def entity_id(key: str) -> str:
    return ENTITY_ID_PREFIX + key


def best_name(names: set[str], key: str) -> str:
    """The name shown for an entity: of its names with the entity's own key (not the aliases a text declared),
    the shortest, then the first in code-point order (capitalised before lower case): the same whatever order
    the names were seen in."""
    own = [name for name in names if entity_key(name) == key] or list(names)
    return min(own, key=lambda name: (len(name), name))


def stronger_kind(first: str, second: str) -> str:
    return first if KIND_RANK.get(first, 0) >= KIND_RANK.get(second, 0) else second
