"""Background threads: long work yields the cores to what a person or an agent is waiting for.

A recall answered while an ingest or a distillation runs on the owner server shares two cores with it; at the aged
100k store its p95 went from 16 ms idle to ~470 ms, most of it waiting for a core. Threads that only do long work
(the server's write pool, the model's micro-batch workers, the graph snapshot's reader, the resident vectors'
reloads) lower their own scheduling priority when they start, so the scheduler runs a recall's threads first and
the long work in what is left; on an idle machine nothing changes. Linux gives each thread its own nice value, and
threads a thread starts inherit it.
"""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger(__name__)

BACKGROUND_NICENESS = 10
"""Added to a background thread's nice value: at 10 a busy thread gets about a tenth of the CPU time of a busy
thread at 0."""


def run_in_background() -> None:
    """Lower the calling thread's priority (a ``ThreadPoolExecutor`` initializer); where the system cannot, the
    thread keeps it. Elsewhere than on Linux the call would lower the whole process's priority, reads too."""
    if not sys.platform.startswith("linux"):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, 0, min(19, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICENESS))
    except (AttributeError, OSError) as error:  # not Linux, or a sandbox that forbids it
        log.debug("background thread keeps its priority: %s", error)
