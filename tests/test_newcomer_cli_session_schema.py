"""The session format's JSON Schema (``alaya schema --json-schema session``) describes what ``alaya ingest``
accepts: every shipped demo session and every session fixture validates, and it agrees with the parser on the
rules a producer most often gets wrong."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import FIXTURES, write_session

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.raw.formats import SAFE_ID, parse_session_bytes

DEMO = sorted(sample_sessions_dir().iterdir())
OPENCLAW_FIXTURES = sorted(path for path in FIXTURES.rglob("*.jsonl*")
                           if path.read_text(encoding="utf-8").startswith('{"type":"session",'))


@pytest.fixture(scope="module")
def schema(tmp_path_factory) -> dict:
    from typer.testing import CliRunner

    from alaya_cli.app import app

    result = CliRunner().invoke(app, ["schema", "--json-schema", "session"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(document)
    return document


def validate_file(path: Path, schema: dict) -> None:
    """A JSON session validates as a whole; an OpenClaw transcript line by line (header, then events). Raises
    ValueError (not JSON) or jsonschema.ValidationError."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        jsonschema.validate(json.loads(text), schema)
        return
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    jsonschema.validate(lines[0], {"$ref": "#/$defs/openclaw_header", "$defs": schema["$defs"]})
    for line in lines[1:]:
        jsonschema.validate(line, {"$ref": "#/$defs/openclaw_event", "$defs": schema["$defs"]})


def test_every_demo_session_validates(schema, tmp_path):
    assert len(DEMO) >= 16 and {path.suffix for path in DEMO} == {".json", ".jsonl"}
    for path in [*DEMO, write_session(tmp_path)]:
        validate_file(path, schema)


def test_a_fixture_validates_exactly_when_ingest_accepts_it(schema):
    """The OpenClaw fixtures include a corrupt transcript on purpose: the schema must refuse it too."""
    verdicts = {}
    for path in OPENCLAW_FIXTURES:
        try:
            parse_session_bytes(path.read_bytes(), 1 << 30)
            accepted = True
        except AlayaError:
            accepted = False
        try:
            validate_file(path, schema)
            valid = True
        except (ValueError, jsonschema.ValidationError):
            valid = False
        verdicts[path.name] = (accepted, valid)
    assert len(verdicts) >= 5 and (False, False) in verdicts.values()
    assert all(accepted == valid for accepted, valid in verdicts.values()), verdicts


def test_the_schema_and_the_parser_agree_on_ids_and_turns(schema, cli, tmp_path):
    assert schema["$defs"]["session_id"]["pattern"] == SAFE_ID.pattern
    bad = {"escaping id": {"id": "../etc", "timestamp": 1764547200000, "turns": [{"role": "user", "content": "x"}]},
           "no turns": {"id": "empty", "timestamp": 1764547200000, "turns": []},
           "no time": {"id": "timeless", "turns": [{"role": "user", "content": "hello"}]},
           "unknown role": {"id": "who", "timestamp": 1764547200000, "turns": [{"role": "robot", "content": "x"}]},
           "only blank turns": {"id": "blank", "timestamp": 1764547200000, "turns": [{"role": "user", "content": " "}]}}
    for name, document in bad.items():
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(document, schema)
        path = tmp_path / f"{name.replace(' ', '-')}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        result = cli("ingest", str(path), "--json")
        assert result.exit_code == 2 and result.json()["files"][0]["error"]["code"] == "bad_session", name


def test_the_docs_show_the_command_and_minimal_examples_that_validate(schema, tmp_path):
    text = (Path(__file__).resolve().parent.parent / "docs/session-format.md").read_text(encoding="utf-8")
    assert "alaya schema --json-schema session" in text
    blocks = text.split("```")[1::2]
    examples = [block.split("\n", 1)[1] for block in blocks if block.startswith("json\n")]
    transcripts = [block.split("\n", 1)[1] for block in blocks if block.startswith("jsonl\n")]
    assert examples and transcripts
    for example in examples:
        jsonschema.validate(json.loads(example), schema)
    for number, transcript in enumerate(transcripts):
        path = tmp_path / f"transcript-{number}.jsonl"
        path.write_text(transcript, encoding="utf-8")
        validate_file(path, schema)
        assert parse_session_bytes(path.read_bytes(), 1 << 20).turns
