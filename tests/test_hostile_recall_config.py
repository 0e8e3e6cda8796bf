"""Hostile ``alaya recall`` requests and ``config.json`` files: one clean error, exit code 2, nothing written."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_checks import NO_DEADLINE, assert_json_error, json_values
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from alaya_cli.recall_request import request_from_stdin
from alaya_engine.foundations.config import DEFAULTS, MAXIMUMS, MINIMUMS, OPTIONAL_STRINGS, load_config, validate_config
from alaya_engine.foundations.errors import AlayaError, report_error
from alaya_engine.recall.query import CARD_TYPES, MAX_DEPTH, MAX_ITEMS, MAX_TEXT_CHARS, RecallQuery, build_query

RECALL_DEFAULTS = DEFAULTS["recall"]
values = json_values()

def alaya(home: Path, *args: str | bytes, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "alaya_cli", "--home", str(home), *args],
        input=input,
        capture_output=True,
        timeout=120,
        env={**os.environ, "ALAYA_NO_SERVER": "1"},
    )


# --- recall: the request, every wrong shape -----------------------------------------------------

recall_fields = st.sampled_from(
    ["concepts", "relations", "depth", "from_nodes", "top_k", "types", "max_results", "text", "colour"]
)
recall_values = (
    values
    | st.lists(st.text(max_size=12), max_size=40)
    | st.integers(-5, 600)
    | st.sampled_from(
        [
            "CAUSED_BY",
            "led to",
            "!!!",
            "X]->() DETACH DELETE n //",
            "x" * (MAX_TEXT_CHARS + 1),
            "a\ud800b",
            "gotcha",
            "../../etc/passwd",
        ]
    )
)
recall_requests = st.dictionaries(recall_fields, recall_values, max_size=5) | values


@settings(max_examples=150, **NO_DEADLINE)
@given(recall_requests)
@example({"concepts": ["a"] * (MAX_ITEMS["concepts"] + 1)})
@example({"text": "x" * (MAX_TEXT_CHARS + 1)})
@example({"relations": ["X]->() DETACH DELETE n //"], "concepts": ["a"]})
def test_any_request_document_is_a_valid_query_or_one_clean_refusal(document):
    try:
        query = build_query(document, RECALL_DEFAULTS)
    except AlayaError as error:
        assert error.code in ("bad_query", "bad_relation") and error.exit_code == 2
        assert "\n" not in error.message and len(error.message) < 300
        return
    assert isinstance(query, RecallQuery) and (query.concepts or query.from_nodes)
    assert 0 <= query.depth <= MAX_DEPTH and 1 <= query.top_k <= 500 and 1 <= query.max_results <= 200
    assert set(query.types) <= set(CARD_TYPES)
    for name, items in (("concepts", query.concepts), ("relations", query.relations), ("from_nodes", query.from_nodes)):
        assert len(items) <= MAX_ITEMS[name]
        for item in items:
            assert item.strip() and len(item) <= MAX_TEXT_CHARS
            item.encode("utf-8")
    assert all(name.replace("_", "").isalnum() and name == name.upper() for name in query.relations)


@settings(max_examples=150, **NO_DEADLINE)
@given(st.text(max_size=60) | values.map(json.dumps))
@example("[" * 100_000)
@example('{"depth": ' + "1" * 5000 + "}")
@example('{"concepts": ["\\ud800"]}')
def test_any_stdin_text_is_decoded_or_refused_as_bad_query(text):
    try:
        document = request_from_stdin(text)
    except AlayaError as error:
        assert error.code == "bad_query" and error.message.startswith("stdin is not valid JSON (")
        return
    json.dumps(document, allow_nan=False).encode("utf-8")


DEEP = "[" * 100_000
WRONG_SHAPES = [
    ("null", "bad_query"),
    ("[]", "bad_query"),
    ('"gateway"', "bad_query"),
    ("42", "bad_query"),
    ("{}", "bad_query"),
    ("", "bad_query"),
    (DEEP, "bad_query"),
    ('{"depth": ' + "1" * 5000 + "}", "bad_query"),
    ('{"concepts": ["a"]} {"concepts": ["b"]}', "bad_query"),
    ('{"concepts": 5}', "bad_query"),
    ('{"concepts": [""]}', "bad_query"),
    ('{"concepts": [null]}', "bad_query"),
    ('{"concepts": {"a": 1}}', "bad_query"),
    ('{"concepts": [["nested"]]}', "bad_query"),
    ('{"concepts": ["a"], "depth": "2"}', "bad_query"),
    ('{"concepts": ["a"], "depth": 2.5}', "bad_query"),
    ('{"concepts": ["a"], "depth": NaN}', "bad_query"),
    ('{"concepts": ["a"], "depth": 1e999}', "bad_query"),
    ('{"concepts": ["a"], "depth": true}', "bad_query"),
    ('{"concepts": ["a"], "depth": -1}', "bad_query"),
    ('{"concepts": ["a"], "depth": 4}', "bad_query"),
    ('{"concepts": ["a"], "top_k": 0}', "bad_query"),
    ('{"concepts": ["a"], "max_results": 1000000}', "bad_query"),
    ('{"concepts": ["a"], "types": ["insight"]}', "bad_query"),
    ('{"concepts": ["a"], "relations": ["!!!"]}', "bad_relation"),
    ('{"concepts": ["a"], "relations": [1]}', "bad_query"),
    ('{"concepts": ["a"], "colour": "red"}', "bad_query"),
    ('{"text": ""}', "bad_query"),
    ('{"text": 5}', "bad_query"),
    (json.dumps({"text": "x" * (MAX_TEXT_CHARS + 1)}), "bad_query"),
    (json.dumps({"concepts": ["a"] * (MAX_ITEMS["concepts"] + 1)}), "bad_query"),
    ('{"from_nodes": ["../../etc/passwd"]}', "unknown_card"),
    ('{"from_nodes": ["x\'}) DETACH DELETE c //"]}', "unknown_card"),
]


@pytest.mark.parametrize(("stdin", "code"), WRONG_SHAPES, ids=[shape[:30] for shape, _ in WRONG_SHAPES])
def test_recall_stdin_of_every_wrong_shape_is_one_json_error(cli, home, stdin, code):
    result = cli("recall", "--json", input=stdin)
    assert_json_error(result, code)
    assert not (home / "stats/access.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--types", "insight", "x"], "bad_query"),
        (["--rel", "!!!", "x"], "bad_relation"),
        (["--top-k", "0", "x"], "bad_query"),
        (["--max-results=-3", "x"], "bad_query"),
        (["--depth", "99999999999999999999", "x"], "bad_query"),
        (["x" * (MAX_TEXT_CHARS + 1)], "bad_query"),
        (["--depth", "two", "x"], "usage"),
    ],
)
def test_recall_flags_out_of_range_are_one_json_error(cli, home, args, code):
    assert_json_error(cli("recall", "--json", *args), code)


def test_real_process_recall_with_deep_stdin_and_undecodable_argument(home):
    deep = alaya(home, "recall", "--json", input=DEEP.encode())
    assert deep.returncode == 2 and b"Traceback" not in deep.stderr
    assert json.loads(deep.stdout)["error"]["message"].startswith("stdin is not valid JSON (nested too deeply)")
    undecodable = alaya(home, "recall", "--json", b"caf\xe9 gateway")
    assert undecodable.returncode == 2 and b"Traceback" not in undecodable.stderr
    assert json.loads(undecodable.stdout)["error"] == {"code": "bad_query", "message": "'text' is not valid UTF-8 text"}


def test_recall_stdin_that_is_not_utf8_is_bad_input(cli, home):
    result = cli("recall", "--json", input=b'{"concepts": ["caf\xe9"]}')
    assert_json_error(result, "bad_query")


def test_real_process_with_strict_stdin_decoding_shows_no_traceback(home):
    completed = subprocess.run(
        [sys.executable, "-m", "alaya_cli", "--home", str(home), "recall", "--json"],
        input=b'{"concepts": ["caf\xe9"]}',
        capture_output=True,
        timeout=120,
        env={**os.environ, "ALAYA_NO_SERVER": "1", "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert b"Traceback" not in completed.stderr and completed.returncode == 2


# --- config.json --------------------------------------------------------------------------------


def leaf_paths(tree: dict, prefix: str = "") -> list[str]:
    paths = []
    for key, value in tree.items():
        paths.extend(leaf_paths(value, f"{prefix}{key}.") if isinstance(value, dict) else [f"{prefix}{key}"])
    return paths


LEAVES = leaf_paths(DEFAULTS)


def with_leaf(path: str, value) -> dict:
    document: dict = {}
    node = document
    *parents, last = path.split(".")
    for name in parents:
        node = node.setdefault(name, {})
    node[last] = value
    return document


def leaf(config: dict, path: str):
    for name in path.split("."):
        config = config[name]
    return config


@settings(max_examples=100, **NO_DEADLINE)
@given(st.lists(st.tuples(st.sampled_from(LEAVES), values | st.integers(-10, 10**6)), min_size=1, max_size=3))
@example([("recall.alpha", math.nan)])
@example([("temperature.recency_decay", 0)])
@example([("logging.file", "a\x00b")])
def test_any_config_leaf_value_is_merged_within_bounds_or_refused_with_its_key(changes):
    document: dict = {}
    for path, value in changes:
        document = _deep_merge(document, with_leaf(path, value))
    try:
        config = validate_config(document)
    except AlayaError as error:
        assert error.code == "config_invalid" and error.exit_code == 2 and "\n" not in error.message
        assert any(f"'{path.split('.')[0]}" in error.message for path, _ in changes), error.message
        return
    for path in LEAVES:
        value, default = leaf(config, path), leaf(DEFAULTS, path)
        if path in OPTIONAL_STRINGS:
            assert value is None or isinstance(value, str)
        else:
            assert type(value) is type(default) or (isinstance(default, float) and type(value) is int), path
        if isinstance(value, str):
            assert "\x00" not in value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            assert math.isfinite(value) and MINIMUMS.get(path, -math.inf) <= value <= MAXIMUMS.get(path, math.inf), path


def _deep_merge(left: dict, right: dict) -> dict:
    merged = dict(left)
    for key, value in right.items():
        merged[key] = (
            _deep_merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
        )
    return merged


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], **NO_DEADLINE)
@given(st.binary(max_size=200) | values.map(lambda value: json.dumps(value).encode()))
@example(b"[" * 100_000)
@example(b'{"recall": {"vector_top_k": ' + b"1" * 5000 + b"}}")
def test_any_config_bytes_load_or_are_refused_in_one_line(tmp_path, data):
    path = tmp_path / "config.json"
    path.write_bytes(data)
    try:
        config = load_config(path)
    except AlayaError as error:
        assert error.code == "config_invalid" and str(path) in error.message and "\n" not in error.message
        return
    assert set(config) == set(DEFAULTS)


BAD_CONFIGS = {
    "wrong type": ('{"recall": {"vector_top_k": "20"}}', "'recall.vector_top_k' must be an integer"),
    "NaN": ('{"recall": {"alpha": NaN}}', "NaN is not a JSON number"),
    "huge float": ('{"recall": {"alpha": 1e999}}', "is too large"),
    "deep": ("[" * 100_000, "nested too deeply"),
    "huge int": ('{"ingest": {"max_file_mb": ' + "9" * 5000 + "}}", "4300 digits"),
    "NUL in a path": ('{"logging": {"file": "logs/a\\u0000.log"}}', "'logging.file' must not contain a NUL"),
    "zero divisor": (
        '{"temperature": {"recency_decay": 0}}',
        "'temperature.recency_decay' is 0; it must be at least 1",
    ),
    "runaway recall": (
        '{"recall": {"vector_top_k": 1000000}}',
        "'recall.vector_top_k' is 1000000; it must be at most 500",
    ),
    "depth": ('{"recall": {"graph_expand_depth": 99}}', "must be at most 3"),
    "threshold": ('{"introspect": {"forget_threshold": 2}}', "must be at most 1"),
    "negative size": ('{"ingest": {"max_file_mb": -1}}', "must be at least 1"),
    "section is a list": ('{"recall": []}', "'recall' must be an object"),
    "top level": ('"config"', "the top level must be a JSON object"),
    "empty": ("", "Expecting value at line 1 column 1"),
    "latin-1": (b'{"logging": {"file": "caf\xe9.log"}}', "not UTF-8 text"),
}


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_bad_config_is_one_json_error_with_exit_2_and_nothing_written(cli, home, name):
    text, expected = BAD_CONFIGS[name]
    (home / "config.json").write_bytes(text if isinstance(text, bytes) else text.encode())
    before = sorted(path for path in home.rglob("*") if path.is_file() and path.name != "alaya.log")
    error = assert_json_error(cli("status", "--json"), "config_invalid")
    assert expected in error["message"] and str(home / "config.json") in error["message"]
    assert sorted(path for path in home.rglob("*") if path.is_file() and path.name != "alaya.log") == before


def test_config_that_cannot_be_read_is_a_runtime_error(cli, home):
    (home / "config.json").unlink()
    (home / "config.json").mkdir()
    error = assert_json_error(cli("status", "--json"), "config_unreadable", exit_code=1)
    assert error["message"] == f"cannot read {home / 'config.json'}: Is a directory"


@pytest.mark.parametrize("log_file", ["", "/proc/no-such-dir/alaya.log"])
def test_unwritable_log_file_is_one_runtime_error(cli, home, log_file):
    config = json.loads((home / "config.json").read_text())
    config["logging"]["file"] = log_file
    (home / "config.json").write_text(json.dumps(config))
    error = assert_json_error(cli("status", "--json"), "log_unwritable", exit_code=1)
    assert "fix logging.file in config.json" in error["message"]


def test_real_process_with_a_broken_config_prints_one_line(home):
    (home / "config.json").write_text('{"recall": {"alpha": NaN}, "temperature": {"frequency_cap": 0}}')
    completed = alaya(home, "status")
    assert completed.returncode == 2 and completed.stdout == b""
    assert completed.stderr.decode().splitlines() == [
        f"error: {home / 'config.json'} is not valid JSON (NaN is not a JSON number); fix or delete it"
    ]


def test_a_multi_line_message_is_folded_into_one_line(capsys):
    error = AlayaError("internal", "unexpected RuntimeError: Binder exception:\n  table Card\r\ndoes not exist\n")
    assert report_error(error, wants_json=True) == 2
    out, err = capsys.readouterr()
    assert err == "error: unexpected RuntimeError: Binder exception: table Card does not exist\n"
    assert json.loads(out)["error"]["message"] == err[len("error: ") : -1] and out.count("\n") == 1
