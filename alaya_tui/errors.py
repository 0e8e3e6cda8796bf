"""How a failed backend call reads on screen: the engine's one-line message, never a traceback."""

from __future__ import annotations

from alaya_engine.errors import AlayaError


def describe(error: BaseException) -> str:
    if isinstance(error, AlayaError):
        return f"⚠ {error.message}"
    return f"⚠ {type(error).__name__}: {error}"
