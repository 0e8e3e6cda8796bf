"""What every hostile-input test asserts: one clean error line, the documented exit code, nothing written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hypothesis import strategies as st

from alaya_engine.engine import Engine

USAGE, RUNTIME = 2, 1


def json_values(*extra_scalars: str, width: int = 4, leaves: int = 10) -> st.SearchStrategy:
    """Any JSON-ish value, wrong types and non-finite numbers included: what hostile JSON input is made of."""
    scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
               | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))
    for text in extra_scalars:
        scalars = scalars | st.just(text)
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=width)
                        | st.dictionaries(st.text(max_size=2 * width), inner, max_size=width), max_leaves=leaves)

NO_DEADLINE = {"deadline": None, "database": None}
"""Hypothesis settings of these tests: no per-example deadline (a loaded CI machine), no example database on disk."""


def assert_one_error_line(result, exit_code: int = USAGE) -> str:
    """Exit code as documented, no traceback, stderr exactly one ``error: …`` line; returns that line."""
    assert result.exit_code == exit_code, (result.exit_code, result.stdout[-500:], result.stderr[-500:])
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def assert_json_error(result, code: str | None = None, exit_code: int = USAGE) -> dict:
    """A refused ``--json`` command: one stderr line and ``{"error": {"code", "message"}}`` on stdout."""
    line = assert_one_error_line(result, exit_code)
    document = json.loads(result.stdout)
    assert set(document) == {"error"} and set(document["error"]) == {"code", "message"}, document
    if code is not None:
        assert document["error"]["code"] == code, document
    assert line == f"error: {document['error']['message']}"
    return document["error"]


def assert_ingest_refused(result, code: str = "bad_session") -> dict:
    """``ingest --json`` of one refused input: exit 2, one line naming it, the report says why."""
    assert_one_error_line(result, USAGE)
    document = json.loads(result.stdout)
    assert document["refused"] == 1 and document["ingested"] == 0, document
    error = document["files"][0]["error"]
    assert error["code"] == code, error
    assert "\n" not in error["message"]
    return error


def raw_files(home: Path) -> dict[str, str]:
    """sha256 of every file under ``raw/``, by path: the L3 record a refused input must leave alone."""
    return {
        str(path.relative_to(home)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted((home / "raw").rglob("*"))
        if path.is_file()
    }


def graph_state(home: Path) -> dict:
    """Sessions, cards and edges in L2, read through the engine."""
    engine = Engine.open(home)
    with engine.step() as graph:
        counts = graph.counts()
        sessions = sorted(row[0] for row in graph.query("MATCH (s:Session) RETURN s.id"))
        cards = sorted(row[0] for row in graph.query("MATCH (c:Card) RETURN c.id"))
    return {"sessions": sessions, "cards": cards, "links": counts["links_by_relation"]}


def store_state(home: Path) -> dict:
    """Everything a refused input must not change: L3 files, the graph and the L1 file set."""
    vectors = sorted(str(path.relative_to(home)) for path in (home / "lancedb").rglob("*") if path.is_file())
    return {"raw": raw_files(home), "graph": graph_state(home), "vectors": vectors}
