"""One BLAS thread while a recall runs, or a distillation embeds its cards.

A recall's products are small (a few query vectors against the resident
matrices), yet OpenBLAS splits each of them over both cores: at 100k cards
and 200k windows a recall spent ~70 ms of CPU for ~37 ms of wall time on two
cores, while the query embedding and LanceDB's full-text search beside it
waited for a core. On one BLAS thread the same recalls spent ~38 ms of CPU
and less wall time (docs/benchmarks.md). A distilled session's few cards are
small products too: on both threads they embedded 3-8x slower whenever the
other core was busy, and faster when it was idle, so a distillation narrows
the pool only on a busy machine. So does the embedding of windows of raw turns
(ingest): the model's products are as small in a batch (slices of 384 tokens).

The pool belongs to the process, so recalls running at once on the owner
server share one narrowing: the first narrows the pool, the last one out
restores the thread counts it found.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_restore: list[tuple[object, int]] = []
_pools: list | None = None


@contextmanager
def single_blas_thread() -> Iterator[None]:
    global _holders, _restore
    with _lock:
        if _holders == 0:
            _restore = [(set_threads, get_threads()) for get_threads, set_threads in _openblas_pools()]
            for set_threads, _count in _restore:
                set_threads(1)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                for set_threads, count in _restore:
                    set_threads(count)


@contextmanager
def single_blas_thread_when_busy() -> Iterator[None]:
    """:func:`single_blas_thread` only while no core is idle (the one-minute load average at least the cores less
    a half): with a core idle the second thread helps (the demo's distillation, whole pipeline, at 12.4
    sessions/s against 9.4 on one thread), with none it only waits for one."""
    busy = hasattr(os, "getloadavg") and os.getloadavg()[0] >= (os.cpu_count() or 1) - 0.5
    if busy:
        with single_blas_thread():
            yield
    else:
        yield


def _openblas_pools() -> list:
    """``(get, set)`` of the thread count of every OpenBLAS with its own pthreads pool in this process (numpy's
    wheels bring one), called directly: threadpoolctl's own ``set_num_threads`` obeys only the first Python thread
    that ever called it, and the owner server runs recalls on many. Other BLAS libraries are left alone. Looked
    up once (the lookup walks every loaded library), after importing numpy so that its BLAS is loaded."""
    global _pools
    if _pools is None:
        import ctypes
        from itertools import product

        import numpy  # noqa: F401
        from threadpoolctl import threadpool_info

        _pools = []
        for info in threadpool_info():
            if info["internal_api"] != "openblas" or info.get("threading_layer") != "pthreads":
                continue
            library = ctypes.CDLL(info["filepath"])
            for prefix, suffix in product(("", "scipy_"), ("", "64_", "_64")):
                get_threads = getattr(library, f"{prefix}openblas_get_num_threads{suffix}", None)
                set_threads = getattr(library, f"{prefix}openblas_set_num_threads{suffix}", None)
                if get_threads is not None and set_threads is not None:
                    _pools.append((get_threads, set_threads))
                    break
    return _pools
