"""Full garbage collections out of a key's way.

CPython's full (generation 2) collection walks every object the interpreter tracks. The explorer holds ~200k of
them once its screens are built, and drawing tables and documents leaves enough cyclic garbage behind that a full
collection ran every second or so during key presses, taking 85–320 ms each on a loaded 2-core machine (measured
with ``gc.callbacks`` around ``python -m bench --only explorer_keys``): the tail of both the screen switches and the
queries. So, while the app runs:

- the objects alive once the screens are built are frozen (``gc.freeze``): no collection walks them again;
- full collections no longer start on their own; :meth:`IdleCollector.tick` runs one when no key or click came
  for :data:`IDLE_SECONDS`, or at once when :data:`FORCE_AFTER` younger collections have piled up meanwhile (a
  bound on the garbage kept, for an app driven without pause);
- the young generations (cheap: they only walk what is new) collect as before.

Everything is put back when the app ends (``restore``), so a process that runs the app and goes on (the test
suite, the benchmark) keeps Python's own settings.
"""

from __future__ import annotations

import gc
import time

IDLE_SECONDS = 1.0
"""How long no input must have come before a full collection runs."""
FORCE_AFTER = 200
"""Collections of the middle generation since the last full one that force a full one even without a pause (about
1.4 million surviving allocations with Python's default thresholds)."""
NEVER = 1_000_000_000
"""A full-collection threshold that the middle generation's count never reaches."""


class IdleCollector:
    def __init__(self) -> None:
        self.last_input = time.monotonic()
        self._thresholds: tuple[int, int, int] | None = None

    def start(self) -> None:
        """Freeze what is alive now and stop automatic full collections."""
        if self._thresholds is not None:
            return
        self._thresholds = gc.get_threshold()
        gc.collect()
        gc.freeze()
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, NEVER)

    def saw_input(self) -> None:
        self.last_input = time.monotonic()

    def tick(self) -> bool:
        """A full collection if one is due (called from a timer); True when it ran."""
        if self._thresholds is None:
            return False
        pending = gc.get_count()[2]
        idle = time.monotonic() - self.last_input >= IDLE_SECONDS
        if pending and (idle or pending >= FORCE_AFTER):
            gc.collect()
            return True
        return False

    def restore(self) -> None:
        """Python's own thresholds back, and the frozen objects collectable again."""
        if self._thresholds is None:
            return
        gc.set_threshold(*self._thresholds)
        gc.unfreeze()
        self._thresholds = None
