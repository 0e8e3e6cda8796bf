"""Replacing an export folder cleanly: build beside it, then swap, so a half export is never left behind.

The export is written into a hidden sibling (``.export.tmp-<token>``); only when it is complete is the old
folder renamed away (``.export.old-<token>``), the new one renamed into place and the old one deleted. If
the second rename fails the old folder is put back. A folder is replaced only if it is empty or carries the
marker file an earlier export wrote (``.alaya-export``), so ``--out`` pointed at the wrong place by mistake
never deletes anything. A crash while building can leave a hidden ``.export.tmp-*`` sibling: safe to delete.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from ..foundations.errors import RUNTIME, AlayaError

MARKER = ".alaya-export"


def check_replaceable(target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise AlayaError("bad_out", f"{target} is a file; give --out a folder")
    if target.is_dir() and any(target.iterdir()) and not (target / MARKER).is_file():
        raise AlayaError("bad_out", f"{target} is not empty and is not an Alaya export (no {MARKER} file); "
                                    "choose an empty or new folder with --out")


def replace_folder(target: Path, build: Callable[[Path], None], marker: dict) -> bool:
    """Build the new content with ``build(staging)`` and swap it in; returns whether an old export was replaced."""
    check_replaceable(target)
    token = uuid.uuid4().hex[:12]
    staging = target.parent / f".{target.name}.tmp-{token}"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging.mkdir()
        build(staging)
        (staging / MARKER).write_text(json.dumps(marker, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        return _swap(staging, target, target.parent / f".{target.name}.old-{token}")
    except OSError as error:
        raise AlayaError("export_failed", f"cannot write the export to {target}: {error.strerror or error}",
                         RUNTIME) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap(staging: Path, target: Path, old: Path) -> bool:
    check_replaceable(target)
    if not target.exists():
        os.rename(staging, target)
        return False
    os.rename(target, old)
    try:
        os.rename(staging, target)
    except OSError:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return True
