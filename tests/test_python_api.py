"""``import alaya``: the documented example runs against a real store, and each call returns the dataclass whose
document the command line prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import write_session

import alaya
from alaya_engine.api import call
from alaya_engine.engine import Engine

DOC = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def test_the_documented_example_runs(demo_home, monkeypatch, capsys):
    [example] = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    monkeypatch.setenv("ALAYA_HOME", str(demo_home))
    exec(compile(example, str(DOC), "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(("close to target", "getting closer", "far from target"))
    assert printed[-1].endswith(" cards") and int(printed[-1].split()[0]) > 0


def test_each_call_returns_the_commands_document_as_its_dataclass(demo_home, tmp_path):
    engine = Engine.open(demo_home)
    with alaya.open(demo_home, server=False) as memory:
        result = memory.recall("gateway restart telegram", max_results=5)
        expected = call(engine, "recall", {"request": {"text": "gateway restart telegram", "max_results": 5}})
        assert isinstance(result, alaya.RecallResult) and result.nodes
        assert {**result.to_json(), "timings_ms": {}} == {**expected, "timings_ms": {}}
        card = next(node for node in result.nodes if node.kind == "card")
        assert memory.trace(card.card_id).to_json() == engine.trace(card.card_id).to_json()
        further = memory.follow(result)
        assert further is None or (further.query["max_results"] == result.next_request["max_results"] == 10
                                   and len(further.nodes) > len(result.nodes))
        session = write_session(tmp_path / "in", "session-20260402-101500")
        ingested = memory.ingest(session)
        assert [outcome.status for outcome in ingested.report.outcomes] == ["ingested"]
        other = next(node.card_id for node in result.nodes if node.kind == "card" and node.card_id != card.card_id)
        linked = memory.link(card.card_id, other, "DEPENDS_ON", reason="from Python")
        assert linked.links[0].relation == "DEPENDS_ON" and linked.new_relation is False
        assert memory.status().l3["sessions"] == engine.status().l3["sessions"]
    with pytest.raises(ValueError, match="closed"):
        memory.status()


def test_errors_carry_the_json_code(demo_home):
    with alaya.open(demo_home, server=False) as memory, pytest.raises(alaya.AlayaError) as raised:
        memory.trace("card-nope")
    assert raised.value.code == "unknown_card"
