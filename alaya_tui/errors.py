"""How a failed backend call reads on screen: the engine's one-line message, never a traceback."""

from __future__ import annotations

from collections.abc import Callable

from alaya_engine.foundations.errors import AlayaError


def describe(error: BaseException) -> str:
    if isinstance(error, AlayaError):
        return f"⚠ {error.message}"
    return f"⚠ {type(error).__name__}: {error}"


def call_or_report(screen, method: str, params: dict | None, report: Callable[[str], None]) -> dict | None:
    """From a worker thread: the backend's answer, or None after ``report`` shows the failure on the UI thread."""
    try:
        return screen.backend.call(method, params)
    except Exception as error:  # noqa: BLE001 - every failure is shown, none crashes the app
        screen.app.call_from_thread(report, describe(error))
        return None
