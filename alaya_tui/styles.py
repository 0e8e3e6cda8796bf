"""Locate the TCSS files: inside the wheel they sit in ``alaya_tui/styles``, in a checkout in ``styles/``."""

from __future__ import annotations

from pathlib import Path

_PACKAGED = Path(__file__).parent / "styles"
_CHECKOUT = Path(__file__).parent.parent / "styles"


def stylesheet(name: str) -> Path:
    for folder in (_PACKAGED, _CHECKOUT):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"stylesheet {name} is missing from {_PACKAGED} and {_CHECKOUT}")
