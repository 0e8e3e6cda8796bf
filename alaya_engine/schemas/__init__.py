"""JSON Schemas of the stable ``--json`` contracts, shipped in the package."""

from __future__ import annotations

import json
from importlib.resources import files

from ..errors import AlayaError

CONTRACTS = ("recall",)


def json_schema(name: str) -> dict:
    if name not in CONTRACTS:
        raise AlayaError("unknown_schema", f"no JSON Schema named '{name}'; available: {', '.join(CONTRACTS)}")
    return json.loads(files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8"))
