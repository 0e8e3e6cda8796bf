"""One BLAS thread while a recall runs, or the model embeds.

A recall's products are small (a few query vectors against the resident
matrices), yet OpenBLAS splits each of them over both cores: at 100k cards
and 200k windows a recall spent ~70 ms of CPU for ~37 ms of wall time on two
cores, while the query embedding and LanceDB's full-text search beside it
waited for a core. On one BLAS thread the same recalls spent ~38 ms of CPU
and less wall time (docs/benchmarks.md). The model's products are small too
(slices of 384 tokens): it runs its slices on a thread per core instead, each
on one BLAS thread (:mod:`alaya_engine.embedding.micro_batches`).

The pool belongs to the process, so recalls running at once on the owner
server share one narrowing: the first narrows the pool, the last one out
restores the thread counts it found.
"""

from __future__ import annotations

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
