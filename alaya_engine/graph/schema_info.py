"""``alaya schema``: which relations and node types the memory holds, and hints on custom relations."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..foundations.relations import CORE_RELATIONS, GENERIC_NAMES

PROMOTE_AT = 100
"""Uses above which a custom relation is worth promoting to a core one."""
PROMOTED_HINT = "promoted: own table"


@dataclass
class RelationUsage:
    name: str
    uses: int
    is_core: bool
    hint: str | None = None


@dataclass
class RelationsReport:
    core: list[RelationUsage]
    custom: list[RelationUsage]

    @property
    def total(self) -> int:
        return sum(r.uses for r in self.core + self.custom)

    def to_json(self) -> dict:
        return {"core": [asdict(r) for r in self.core], "custom": [asdict(r) for r in self.custom],
                "total_edges": self.total, "core_types": len(self.core), "custom_types": len(self.custom)}


@dataclass
class NodeTypesReport:
    cards_by_type: dict[str, int]
    sessions: int
    entities_by_kind: dict[str, int] = field(default_factory=dict)
    """``Entity`` nodes per kind (every kind listed)."""
    mentions: int = 0
    """``MENTIONS`` edges, Card → Entity."""

    def to_json(self) -> dict:
        total = sum(self.cards_by_type.values())
        return {"cards": {kind: {"count": count, "percent": round(100 * count / total, 1) if total else 0.0}
                          for kind, count in self.cards_by_type.items()},
                "total_cards": total, "sessions": self.sessions,
                "entities": {"count": sum(self.entities_by_kind.values()), "by_kind": self.entities_by_kind,
                             "mentions": self.mentions}}


def relations_report(links_by_relation: dict[str, int], known_custom: list[str],
                     promoted: frozenset[str] = frozenset()) -> RelationsReport:
    """Core relations, then emergent ones by use. A promoted relation stays among the emergent ones (it emerged
    from use) with ``is_core`` true, since it has a table of its own now, and the hint :data:`PROMOTED_HINT`."""
    core = [RelationUsage(name, links_by_relation.get(name, 0), True) for name in CORE_RELATIONS]
    names = {name for name in links_by_relation if name not in CORE_RELATIONS} | set(known_custom) | set(promoted)
    custom = [RelationUsage(name, links_by_relation.get(name, 0), name in promoted,
                            _hint(name, links_by_relation.get(name, 0), name in promoted)) for name in names]
    custom.sort(key=lambda usage: (-usage.uses, usage.name))
    return RelationsReport(core, custom)


def _hint(name: str, uses: int, promoted: bool) -> str | None:
    if promoted:
        return PROMOTED_HINT
    if name in GENERIC_NAMES:
        return "generic, consider splitting"
    if uses > PROMOTE_AT:
        return "high freq → consider promoting"
    return None
