"""``import lancedb`` without the REST client of remote namespaces, which Alaya never uses, and without the
run-time checks of ``overrides``.

``lancedb.db`` imports ``lance_namespace``, which takes only its model classes from the generated REST client
``lance_namespace_urllib3_client``; but that package's ``__init__`` also imports every API class, ~0.6 s of the
1.3-1.6 s ``import lancedb`` took here (``python -X importtime``). Every process that opens L1 pays it: each
``--no-server`` command, each server start, hundreds of test processes. So the client package is registered
bare (its folder, without running its ``__init__``) before lancedb is imported; its ``models`` then load as
usual. Names only that ``__init__`` defines (the REST ``ApiClient``…) are missing, and only a remote namespace
would ask for them.

On Python 3.11 lancedb decorates its methods with ``overrides.override``, which reads each class's bytecode to
check that the method overrides one (105 of them); on 3.12 it uses ``typing.override``, which does nothing at run
time. lancedb is imported with the same do-nothing decorator on 3.11 too (0.77 against 1.17 s, medians of five
runs each on a busy 2-core machine); the stand-in is removed once lancedb is in, so a later
``import overrides`` gets the real package.
"""

from __future__ import annotations

import importlib.util
import sys
import types

CLIENT = "lance_namespace_urllib3_client"


def import_lancedb():
    if "lancedb" not in sys.modules:
        if CLIENT not in sys.modules:
            spec = importlib.util.find_spec(CLIENT)
            if spec is not None and spec.submodule_search_locations is not None:
                bare = types.ModuleType(CLIENT)
                bare.__path__ = list(spec.submodule_search_locations)
                bare.__spec__ = spec
                sys.modules[CLIENT] = bare
        if sys.version_info < (3, 12) and "overrides" not in sys.modules:
            sys.modules["overrides"] = stand_in = _unchecked_overrides()
            try:
                import lancedb  # noqa: F401
            finally:
                if sys.modules.get("overrides") is stand_in:
                    del sys.modules["overrides"]
    import lancedb

    return lancedb


def _unchecked_overrides() -> types.ModuleType:
    """What lancedb takes from ``overrides``, as ``typing.override`` behaves on 3.12: no checks."""
    module = types.ModuleType("overrides")
    module.override = lambda method: method
    module.EnforceOverrides = type("EnforceOverrides", (), {})
    return module
