"""LastUsed: a bounded map shared by threads, the least recently used entry dropped first.

What a process keeps to avoid doing work again — sessions it parsed, the vectors of concepts it embedded — must
not grow with its life (the owner server runs for weeks) and is read by the server's threads at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LastUsed(Generic[K, V]):
    def __init__(self, size: int):
        self._size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept under ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used entries beyond the size."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
