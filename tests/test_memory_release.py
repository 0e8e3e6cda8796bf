"""Freed memory goes back to the system after a large load (the owner server's resident indexes and snapshot)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from alaya_engine.foundations.memory import _malloc_trim

FREED_AND_RELEASED = """
import os
from alaya_engine.foundations.memory import release_freed_memory

def resident_mb():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20

blocks = [bytes(600) for _ in range(300_000)]
pinned = blocks[::1000]  # a few kept, so the heap cannot simply shrink from its top
del blocks
before = resident_mb()
release_freed_memory()
print(before, resident_mb())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_memory_is_returned_to_the_system_on_glibc():
    assert _malloc_trim() is not None
    done = subprocess.run([sys.executable, "-c", FREED_AND_RELEASED], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MALLOC_TRIM_THRESHOLD_": str(2**40)})  # glibc never trims by itself
    assert done.returncode == 0, done.stderr
    before, after = map(int, done.stdout.split())
    assert before - after >= 100, (before, after)
