"""JSON Schemas shipped in the package: the stable ``--json`` contracts (recall) and the session files ``alaya
ingest`` accepts (session), so producers can check their output before handing it over."""

from __future__ import annotations

import json
from importlib.resources import files

from ..foundations.errors import AlayaError

CONTRACTS = ("recall", "session")


def json_schema(name: str) -> dict:
    if name not in CONTRACTS:
        raise AlayaError("unknown_schema", f"no JSON Schema named '{name}'; available: {', '.join(CONTRACTS)}")
    return json.loads(files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8"))
