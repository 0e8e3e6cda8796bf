"""What one ``python -m bench`` run measures: quick or full, and the stores its benchmarks share."""

from __future__ import annotations

from dataclasses import dataclass

from .stores import Stores

QUICK_SIZES = (1_000,)
FULL_SIZES = (1_000, 10_000, 100_000)


@dataclass
class Plan:
    quick: bool
    named: frozenset[str]
    """Benchmarks asked for with ``--only``: a benchmark that ``--quick`` skips still runs when named."""
    stores: Stores
    million: bool = False
    """``--million``: the benchmarks that can also measure a store of a million cards do."""

    @property
    def sizes(self) -> tuple[int, ...]:
        """Synthetic store sizes (cards) for the benchmarks that read one."""
        return QUICK_SIZES if self.quick else FULL_SIZES

    def thorough(self, name: str) -> bool:
        """Whether benchmark ``name`` was named with ``--only`` in a full run: then it also measures its largest
        variant (a remote of 10,000 sessions, introspect at 100k cards), which a whole run of ~15 minutes cannot
        spend half an hour on."""
        return not self.quick and name in self.named

    def pick(self, quick, full):
        """``quick`` in ``--quick`` mode, else ``full``: repetitions, sample counts, batch sizes."""
        return quick if self.quick else full


def size_label(size: int) -> str:
    return f"{size // 1000}k" if size >= 1000 else str(size)
