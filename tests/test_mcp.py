"""``alaya mcp`` driven by the MCP SDK's own client over stdio, against a real store.

One server process serves the whole module (starting it and loading the model costs seconds); the session
script below records every answer, and each test checks one promise about them.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest
from conftest import cli_for
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from alaya_engine.recall.query import _KEYS, CARD_TYPES, MAX_DEPTH, build_query
from alaya_engine.schemas import json_schema
from alaya_mcp.tools import MAX_RESULTS_MAX, TOOLS, TOP_K_MAX, recall_request_schema

DEMO_TRANSCRIPT = files("alaya_engine.demo").joinpath("sessions", "3b7e2c91-5d4a-4f08-9c6e-1a2f8d0b47e5.jsonl")
RECALL = {"concepts": ["crontab timezone", "CRON_TZ"], "relations": ["CAUSED_BY"], "depth": 1, "max_results": 5}
BAD_RECALL = {"concepts": ["crontab"], "depth": 7}


async def _session_script(home: Path, errlog) -> dict:
    """Everything an agent would do in one MCP session; returns what it saw."""
    transport_errors: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, Exception):
            transport_errors.append(repr(message))

    server = StdioServerParameters(command=sys.executable, args=["-m", "alaya_cli", "--home", str(home), "mcp"],
                                   env={"ALAYA_NO_SERVER": "1"})
    seen: dict = {"transport_errors": transport_errors}
    async with stdio_client(server, errlog=errlog) as (read, write), \
            ClientSession(read, write, message_handler=on_message) as session:
        seen["init"] = await session.initialize()
        seen["tools"] = (await session.list_tools()).tools
        calls = {
            "ingest": ("alaya_ingest", {"path": str(DEMO_TRANSCRIPT), "distill": True}),
            "recall": ("alaya_recall", RECALL),
            "bad_recall": ("alaya_recall", BAD_RECALL),
            "unknown_field": ("alaya_recall", {"concepts": ["crontab"], "deep": 2}),
            "link_shape": ("alaya_link", {"source": "card-a", "target": "card-b", "weight": "heavy"}),
            "missing_card": ("alaya_trace", {"card_id": "card-0000000000000000"}),
            "relative_path": ("alaya_ingest", {"path": "sessions/today.jsonl"}),
            "no_turns": ("alaya_ingest", {"session": {"id": "empty-1", "timestamp": 1774938540000, "turns": []}}),
            "unknown_tool": ("alaya_forget_everything", {}),
            "schema": ("alaya_schema", {"relations": True}),
            "status": ("alaya_status", {}),
        }
        for label, (name, arguments) in calls.items():
            seen[label] = await session.call_tool(name, arguments)
        nodes = [node for node in seen["recall"].structured_content["nodes"] if node["kind"] == "card"]
        best = nodes[0]["card_id"]
        seen["link_pair"] = (best, nodes[1]["card_id"])
        seen["bad_link"] = await session.call_tool("alaya_link", {"source": best, "target": nodes[1]["card_id"],
                                                                  "weight": 3})
        seen["trace"] = await session.call_tool("alaya_trace", {"card_id": best})
        seen["navigate"] = await session.call_tool("alaya_recall", {"from_nodes": [best], "depth": 1})
    return seen


@pytest.fixture(scope="module")
def mcp_run(template_home, tmp_path_factory):
    home = tmp_path_factory.mktemp("mcp") / "home"
    shutil.copytree(template_home, home)
    with open(home.parent / "server-stderr.txt", "w") as errlog:
        seen = asyncio.run(_session_script(home, errlog))
    seen["home"] = home
    seen["stderr"] = (home.parent / "server-stderr.txt").read_text()
    return seen


def _error(result) -> dict:
    assert result.is_error and result.structured_content is None, result
    return json.loads(result.content[0].text)["error"]


def test_lists_every_tool_with_a_schema_and_when_to_call_it(mcp_run):
    tools = {tool.name: tool for tool in mcp_run["tools"]}
    assert set(tools) == {"alaya_recall", "alaya_trace", "alaya_schema", "alaya_link", "alaya_ingest",
                          "alaya_distill", "alaya_status"}
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert len(tool.description) > 80
    assert "start of every task" in tools["alaya_recall"].description
    assert "same `text` as the goal" in tools["alaya_recall"].description
    assert tools["alaya_recall"].output_schema == json_schema("recall")
    assert tools["alaya_recall"].annotations.read_only_hint is True
    assert tools["alaya_link"].input_schema["required"] == ["source", "target"]
    assert "the same text as the goal" in mcp_run["init"].instructions
    assert mcp_run["init"].server_info.name == "alaya"


def test_structured_recall_returns_the_recall_contract(mcp_run):
    result = mcp_run["recall"]
    assert not result.is_error
    document = result.structured_content
    jsonschema.validate(document, json_schema("recall"))
    assert json.loads(result.content[0].text) == document
    assert document["query"]["concepts"] == RECALL["concepts"] and document["query"]["relations"] == ["CAUSED_BY"]
    assert any("CRON_TZ" in node["title"] + node["content"] for node in document["nodes"])


def test_invalid_recall_is_a_tool_error_with_the_cli_code_and_message(mcp_run):
    error = _error(mcp_run["bad_recall"])
    cli = cli_for(mcp_run["home"])(*["recall", "--json"], input=json.dumps(BAD_RECALL))
    assert cli.exit_code == 2
    assert error == cli.json()["error"] == {"code": "bad_query", "message": "'depth' is 7; it must be from 0 to 3"}
    assert _error(mcp_run["unknown_field"])["message"].startswith("unknown field 'deep'")


def test_other_errors_keep_the_engine_codes(mcp_run):
    assert _error(mcp_run["missing_card"]) == cli_for(mcp_run["home"])(
        "trace", "--json", "card-0000000000000000").json()["error"]
    source, target = mcp_run["link_pair"]
    cli_link = cli_for(mcp_run["home"])("link", source, target, "--weight", "3", "--json")
    assert _error(mcp_run["bad_link"]) == cli_link.json()["error"] and cli_link.json()["error"]["code"] == "bad_weight"
    assert _error(mcp_run["link_shape"]) == {"code": "bad_request",
                                             "message": "alaya_link: 'weight': 'heavy' is not of type 'number'"}
    assert _error(mcp_run["relative_path"])["message"].startswith("alaya_ingest: 'path' must be absolute")
    assert _error(mcp_run["unknown_tool"])["code"] == "unknown_tool"


def test_a_refused_inline_session_reports_the_ingest_result_too(mcp_run):
    result = mcp_run["no_turns"]
    error = _error(result)
    assert error == {"code": "bad_session", "message": "<stdin>: session has no turns with content"}
    assert json.loads(result.content[0].text)["result"]["refused"] == 1


def test_ingest_distill_trace_and_navigation_through_the_tools(mcp_run):
    ingested = mcp_run["ingest"].structured_content
    assert ingested["ingested"] == 1 and ingested["distill"]["cards_created"] >= 3
    trace = mcp_run["trace"].structured_content
    assert trace["card"]["source_sessions"] == ["3b7e2c91-5d4a-4f08-9c6e-1a2f8d0b47e5"] and trace["context_turns"]
    navigated = mcp_run["navigate"].structured_content
    start = mcp_run["link_pair"][0]
    assert navigated["nodes"] and all(node["via"] == start for node in navigated["nodes"])
    assert mcp_run["status"].structured_content["l2"]["cards"] == ingested["distill"]["cards_created"]
    assert "relations" in mcp_run["schema"].structured_content


def test_stdout_carries_protocol_messages_only(mcp_run):
    assert mcp_run["transport_errors"] == []
    assert "Traceback" not in mcp_run["stderr"]


def test_transcript_of_a_session(mcp_run, capsys):
    """The tool list and one recall call as they crossed the wire (printed with ``pytest -s``)."""
    def dump(model):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    transcript = {
        "tools/list": {"tools": [{key: value for key, value in dump(tool).items() if key != "outputSchema"}
                                 for tool in mcp_run["tools"]]},
        "tools/call": {"name": "alaya_recall", "arguments": RECALL},
        "result": dump(mcp_run["recall"]),
    }
    with capsys.disabled():
        if os.environ.get("ALAYA_PRINT_MCP_TRANSCRIPT"):
            print(json.dumps(transcript, ensure_ascii=False, indent=2))
    assert transcript["result"]["structuredContent"]["nodes"]


def test_recall_input_schema_matches_the_engine_rules():
    schema = recall_request_schema()
    assert set(schema["properties"]) == _KEYS
    assert schema["properties"]["types"]["items"]["enum"] == list(CARD_TYPES)
    defaults = {"graph_expand_depth": 1, "vector_top_k": 20, "max_results": 10, "include_sessions": True}
    for key, high in (("depth", MAX_DEPTH), ("top_k", TOP_K_MAX), ("max_results", MAX_RESULTS_MAX)):
        assert schema["properties"][key]["maximum"] == high
        low = schema["properties"][key]["minimum"]
        build_query({"concepts": ["x"], key: high}, defaults)
        build_query({"concepts": ["x"], key: low}, defaults)
        for outside in (low - 1, high + 1):
            with pytest.raises(Exception, match=f"'{key}' is {outside}"):
                build_query({"concepts": ["x"], key: outside}, defaults)


def test_every_tool_has_a_distinct_engine_method():
    assert len({spec.method for spec in TOOLS}) == len(TOOLS)


def test_every_request_is_answered_whatever_its_id_and_a_lone_surrogate_reads_as_fffd(home):
    """A real ``alaya mcp`` spoken to line by line, stdin held open as a client does, each reply awaited with a
    deadline. The SDK took a request whose id is neither a string nor an integer for a notification, so the
    client waited forever; and a lone-surrogate escape made the whole line a parse error, where the command line
    reads U+FFFD."""
    process = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(home), "mcp"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env={**os.environ, "ALAYA_NO_SERVER": "1"})
    received = bytearray()

    def ask(line: str, deadline: float = 10) -> dict | None:
        process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()
        ends = time.monotonic() + deadline
        while b"\n" not in received:
            if not select.select([process.stdout], [], [], max(0.0, ends - time.monotonic()))[0]:
                return None
            chunk = os.read(process.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            received.extend(chunk)
        reply, _, rest = bytes(received).partition(b"\n")
        received[:] = rest
        return json.loads(reply)

    try:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "ids", "version": "1"}}}
        assert ask(json.dumps(initialize), deadline=60)["id"] == 1
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for bad_id in ('{"n": 1}', "1.5", "true", "[1]", "1e400", "null"):
            reply = ask(f'{{"jsonrpc": "2.0", "id": {bad_id}, "method": "tools/list"}}')
            assert reply is not None and reply["id"] is None and reply["error"]["code"] == -32600, (bad_id, reply)
        trace = ask('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
                    '"params": {"name": "alaya_trace", "arguments": {"card_id": "\\ud800x"}}}')
        assert trace["id"] == 2 and trace["result"]["isError"], trace
        assert json.loads(trace["result"]["content"][0]["text"])["error"] == {
            "code": "unknown_card", "message": "no card '\ufffdx' in this store; card ids come from recall"}
        assert ask('{"jsonrpc": "2.0", "id": "last", "method": "tools/list"}')["result"]["tools"]
    finally:
        process.stdin.close()
        process.wait(timeout=30)
