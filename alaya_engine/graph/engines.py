"""The one thin adapter over the embedded graph databases.

LadybugDB (the maintained continuation of Kuzu) is the default; Kuzu itself
stays available as ``graph.engine: kuzu``. Both expose the same
``Database``/``Connection`` API and Cypher dialect, so the rest of the engine
only ever sees the module this returns. The file formats differ, which is why
the engine is fixed per store.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from ..foundations.errors import AlayaError

ENGINES = ("ladybug", "kuzu")


def load_engine(name: str) -> ModuleType:
    if name not in ENGINES:
        raise AlayaError("config_invalid", f"graph.engine {name!r} is not one of {', '.join(ENGINES)}")
    try:
        return importlib.import_module(name)
    except ImportError:
        raise AlayaError(
            "graph_engine_missing",
            f"graph engine '{name}' is not installed; run: pip install 'alaya[{name}]'",
        ) from None


def available_engines() -> list[str]:
    """Engines installed in this environment, found without importing them.

    LadybugDB and Kuzu register the same native types, so one process can load
    only one of them: importing the second fails ("type Database is already
    registered") and leaves the process unstable. A process serves one store,
    hence one engine; tests run each engine in its own process.
    """
    return [name for name in ENGINES if importlib.util.find_spec(name) is not None]
