"""``alaya recall`` as an agent uses it: three ways in, the JSON contract, errors, access counts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter

import jsonschema
import pytest

from alaya_engine.recall.access import AccessLog
from alaya_engine.schemas import json_schema

SCHEMA = json_schema("recall")


def test_free_text_finds_the_gateway_gotcha(demo_cli):
    result = demo_cli("recall", "--json", "gateway 重启后 telegram 收不到消息")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    jsonschema.validate(document, SCHEMA)
    assert "plugins.allow" in " ".join(node["content"] for node in document["nodes"][:3])


def test_full_text_search_finds_exact_identifiers(demo_cli):
    document = demo_cli("recall", "--json", "proxy_read_timeout").json()
    jsonschema.validate(document, SCHEMA)
    assert any("proxy_read_timeout" in node["content"] for node in document["nodes"][:3])


def test_structured_flags_and_stdin_json_agree(demo_cli):
    flags = demo_cli("recall", "--json", "--concepts", "docker OOM,memory limit", "--rel", "CAUSED_BY", "--depth", "2")
    piped = demo_cli("recall", "--json", input=json.dumps({"concepts": ["docker OOM", "memory limit"],
                                                       "relations": ["CAUSED_BY"], "depth": 2}))
    assert flags.exit_code == piped.exit_code == 0
    strip = lambda doc: [(n["card_id"], n["h_distance"]) for n in doc["nodes"]]  # noqa: E731
    assert strip(flags.json()) == strip(piped.json()) and strip(flags.json())
    jsonschema.validate(piped.json(), SCHEMA)


def test_from_nodes_navigation_round_trip(demo_cli):
    first = demo_cli("recall", "--json", "gateway restart checklist").json()
    start = next(node["card_id"] for node in first["nodes"] if node["kind"] == "card")  # a window has no relations
    second = demo_cli("recall", "--json", "--from-nodes", start, "--depth", "1").json()
    jsonschema.validate(second, SCHEMA)
    assert second["nodes"] and all(node["via"] == start for node in second["nodes"])
    assert start not in {node["card_id"] for node in second["nodes"]}


def test_human_output_has_the_seed_shape(demo_cli):
    output = demo_cli("recall", "nginx 502 upstream keepalive").stdout
    assert output.startswith("🔍 Recalling: concepts=")
    assert "[1] " in output and "(h=" in output and "Average h_distance:" in output


def test_human_output_renders_each_preview_as_markdown(demo_cli):
    """As the explorer renders a card: no ``**`` left of bold, a list item on a line of its own."""
    output = demo_cli("recall", "nginx 502 upstream keepalive").stdout
    previews = [block.splitlines()[1:] for block in output.split("\n\n") if block.startswith("[")]
    assert previews and all(1 <= len(lines) <= 3 for lines in previews)
    assert not any("**" in line for lines in previews for line in lines)
    assert any(line.strip().startswith("1 ") for lines in previews for line in lines)


@pytest.mark.parametrize(("args", "stdin", "code"), [
    (["--depth", "7", "x"], None, "bad_query"),
    (["--rel", "CAUSES_BYY", "x"], None, "unknown_relation"),
    (["--from-nodes", "card-nope"], None, "unknown_card"),
    ([], "{not json", "bad_query"),
])
def test_errors_are_json_with_exit_code_2(demo_cli, args, stdin, code):
    result = demo_cli("recall", "--json", *args, input=stdin)
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == code
    assert len(result.stderr.strip().splitlines()) == 1


def test_empty_store_gives_an_empty_result_with_a_reason(cli, home):
    result = cli("recall", "--json", "anything")
    assert result.exit_code == 0
    document = result.json()
    jsonschema.validate(document, SCHEMA)
    assert document["nodes"] == [] and "no cards yet" in document["reason"] and document["h_distance_avg"] is None


def test_schema_command_prints_the_contract(cli):
    result = cli("schema", "--json-schema", "recall")
    assert result.exit_code == 0 and result.json() == SCHEMA


@pytest.mark.slow
def test_concurrent_recalls_lose_no_access_count(demo_home):
    """4 processes × 25 recalls at once: every returned card is counted exactly once per return."""
    config_file = demo_home / "config.json"
    config = json.loads(config_file.read_text())
    config["lock"]["wait_seconds"] = 120.0  # COLD demo cards are embedded under the lock: slow on 2 shared cores
    config_file.write_text(json.dumps(config))
    script = textwrap.dedent(f"""
        import json, sys
        from alaya_engine.engine import Engine
        engine = Engine.open({str(demo_home)!r})
        queries = ["docker memory limit", "nginx 502", "pgbouncer", "gateway restart", "cron timezone"]
        returned = []
        for i in range(25):
            result = engine.recall({{"text": queries[(i + int(sys.argv[1])) % len(queries)], "max_results": 5}})
            returned.extend(node.card_id for node in result.nodes if node.kind == "card")
        print(json.dumps(returned))
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script, str(n)], stdout=subprocess.PIPE, text=True)
               for n in range(4)]
    expected = Counter()
    for worker in workers:
        out, _ = worker.communicate(timeout=600)
        assert worker.returncode == 0
        expected.update(json.loads(out))
    folded, _ = AccessLog(demo_home / "stats" / "access.jsonl").fold()
    assert {card_id: stats.count for card_id, stats in folded.items()} == dict(expected)
    assert sum(expected.values()) > 0
