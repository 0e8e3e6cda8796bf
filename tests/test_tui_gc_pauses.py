"""Full garbage collections wait for a pause in the keys: automatic ones are off while the explorer runs (the
objects alive at start frozen), one runs when no key came for a while or too much piled up, and Python's own
settings come back when the app ends."""

from __future__ import annotations

import gc

from alaya_tui.gc_pauses import FORCE_AFTER, IDLE_SECONDS, NEVER, IdleCollector


def test_full_collections_wait_for_a_pause_and_the_settings_come_back():
    before = gc.get_threshold()
    collector = IdleCollector()
    assert not collector.tick()  # not started: Python's own collections
    collector.start()
    try:
        assert gc.get_threshold() == (*before[:2], NEVER) and gc.get_freeze_count() > 0
        collector.saw_input()
        gc.collect(1)  # one collection of the middle generation: a full one is now due
        assert gc.get_count()[2] >= 1
        assert not collector.tick()  # a key came just now: it waits
        collector.last_input -= IDLE_SECONDS
        assert collector.tick() and gc.get_count()[2] == 0  # a pause: it ran
        collector.saw_input()
        for _ in range(FORCE_AFTER):
            gc.collect(1)
        assert collector.tick()  # too much piled up: it runs even without a pause
    finally:
        collector.restore()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
