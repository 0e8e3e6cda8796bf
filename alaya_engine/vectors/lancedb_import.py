"""``import lancedb`` without the REST client of remote namespaces, which Alaya never uses.

``lancedb.db`` imports ``lance_namespace``, which takes only its model classes from the generated REST client
``lance_namespace_urllib3_client``; but that package's ``__init__`` also imports every API class, ~0.6 s of the
1.3-1.6 s ``import lancedb`` took here (``python -X importtime``). Every process that opens L1 pays it: each
``--no-server`` command, each server start, hundreds of test processes. So the client package is registered
bare (its folder, without running its ``__init__``) before lancedb is imported; its ``models`` then load as
usual. Names only that ``__init__`` defines (the REST ``ApiClient``…) are missing, and only a remote namespace
would ask for them.
"""

from __future__ import annotations

import importlib.util
import sys
import types

CLIENT = "lance_namespace_urllib3_client"


def import_lancedb():
    if "lancedb" not in sys.modules and CLIENT not in sys.modules:
        spec = importlib.util.find_spec(CLIENT)
        if spec is not None and spec.submodule_search_locations is not None:
            bare = types.ModuleType(CLIENT)
            bare.__path__ = list(spec.submodule_search_locations)
            bare.__spec__ = spec
            sys.modules[CLIENT] = bare
    import lancedb

    return lancedb
