"""The text functions' results, remembered for one session's distillation.

Distilling a session reads the same turns and sentences many times over: for the demo, ``strip_markdown`` ran 7,274
times on 2,916 distinct texts and ``identifiers`` 2,380 times on 1,409. Remembering the results of the five most
called of these pure functions took ~20% off the distiller's CPU time. They are remembered only inside
:func:`remembering` (the offline distiller's ``distill``), per thread, and dropped when it ends: memory holds at most
one session's texts again, and callers outside a distillation (entities, introspect) compute as before. A list or
set comes back as a copy, so a caller that changes it changes no one else's.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

F = TypeVar("F", bound=Callable)
_local = threading.local()


@contextmanager
def remembering() -> Iterator[None]:
    """Remember the results of the :func:`within_session` functions in this thread until the block ends."""
    if getattr(_local, "memo", None) is not None:  # nested: the outer block keeps and drops them
        yield
        return
    _local.memo = {}
    try:
        yield
    finally:
        _local.memo = None


def within_session(function: F) -> F:
    @functools.wraps(function)
    def remembered(*args, **options):
        memo = getattr(_local, "memo", None)
        if memo is None or options:
            return function(*args, **options)
        key = (function, *args)
        if key not in memo:
            memo[key] = function(*args)
        result = memo[key]
        return result.copy() if isinstance(result, (list, set)) else result

    return remembered  # type: ignore[return-value]
