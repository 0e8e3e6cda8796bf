"""``alaya mcp``: Alaya's tools over the Model Context Protocol (stdio), built on the official ``mcp`` SDK.

A client like the CLI: every tool call goes through a backend (the store's owner server, started on demand,
or the engine in-process with ``--no-server``), opened at the first call, so the server starts even before
``alaya init`` and says so in a tool error. Failures become tool results with ``isError`` set and the CLI's
``{"error": {"code", "message"}}`` document. Nothing but protocol messages reaches stdout: the SDK's stdio
transport points fd 1 at stderr while it serves, and Alaya's own logging goes to the store's log file.
"""

from __future__ import annotations

import fcntl
import functools
import io
import json
import logging
import os
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import BinaryIO

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from alaya_engine import __version__
from alaya_engine.foundations.errors import RUNTIME, AlayaError
from alaya_engine.foundations.json_input import JsonInputError, load_json

from .tools import INSTRUCTIONS, TOOLS, ToolSpec, run_tool

log = logging.getLogger(__name__)


class LazyBackend:
    """The backend, opened at the first tool call (and again after a failed open)."""

    def __init__(self, home: str | None, no_server: bool):
        self.home = home
        self.no_server = no_server
        self._backend = None
        self._opening = threading.Lock()

    def call(self, method: str, params: dict) -> dict:
        with self._opening:
            if self._backend is None:
                from alaya_engine.server.backend import open_backend

                self._backend = open_backend(self.home, self.no_server)
        return self._backend.call(method, params)


def _tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        annotations=types.ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                          destructive_hint=None if spec.read_only else False,
                                          open_world_hint=False),
    )


def _text(document: dict) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=json.dumps(document, ensure_ascii=False, default=str))]


def _result(document: dict) -> types.CallToolResult:
    return types.CallToolResult(content=_text(document), structured_content=document)


def _error_result(error: AlayaError, partial: dict | None = None) -> types.CallToolResult:
    """Text only: structured content would have to match the tool's output schema, which an error does not."""
    document = error.to_json()
    if partial is not None:
        document["result"] = partial
    return types.CallToolResult(content=_text(document), is_error=True)


def build_server(home: str | None, no_server: bool) -> Server:
    backend = LazyBackend(home, no_server)
    tools = [_tool(spec) for spec in TOOLS]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        work = functools.partial(run_tool, backend.call, params.name, params.arguments)
        try:
            outcome = await anyio.to_thread.run_sync(work)
        except AlayaError as error:
            log.info("tool %s refused: %s", params.name, error.message)
            return _error_result(error)
        except Exception as error:  # one failed call must not end the session: log it, report one line
            log.exception("tool %s failed", params.name)
            return _error_result(AlayaError("internal", f"unexpected {type(error).__name__}: {error}; details are "
                                                        "in the log file", RUNTIME))
        if outcome.error is not None:
            return _error_result(outcome.error, outcome.document)
        return _result(outcome.document)

    return Server("alaya", version=__version__, title="Alaya memory", instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(home: str | None, no_server: bool) -> int:
    """Serve over stdin/stdout until the client closes the connection."""
    _log_to_store(home)
    server = build_server(home, no_server)

    async def main() -> None:
        with _client_input() as wire:
            async with stdio_server(stdin=_client_lines(wire)) as (read_stream, write_stream):
                messages, receive = anyio.create_memory_object_stream(0)
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(_answer_malformed_lines, read_stream, messages, write_stream)
                    await server.run(receive, write_stream, server.create_initialization_options())

    log.info("mcp server started on stdio")
    anyio.run(main)
    log.info("mcp server stopped: the client closed the connection")
    return 0


@contextmanager
def _client_input() -> Iterator[BinaryIO]:
    """The client's end of stdin, for this server alone: while it serves, fd 0 reads the null device (as when the
    SDK claims the stream itself), so no library or child process can swallow a message. The duplicate is never
    closed: a worker thread may still block reading it after the transport ends."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


async def _client_lines(wire: BinaryIO) -> AsyncIterator[str]:
    """The client's lines (bytes that are not UTF-8 read as U+FFFD), each made fit for the SDK's transport."""
    async for line in anyio.wrap_file(io.TextIOWrapper(wire, encoding="utf-8", errors="replace")):
        yield _fit_for_sdk(line)


def _fit_for_sdk(line: str) -> str:
    """``line`` as the SDK should read it. Its parser fails a whole line over a lone-surrogate escape (``"\\ud800"``),
    which becomes U+FFFD here as in any JSON the command line reads; and it takes a request whose id is neither a
    string nor an integer (an object, a float, ``true``, ``1e400``) for a notification, which nobody answers, so
    the client waited forever: such a request is passed on as ``{}``, which is answered like any other JSON that is
    not a message (-32600, id null). Text that is not JSON goes through as it is (-32700)."""
    try:
        message = load_json(line, strict=False)
    except JsonInputError:
        return line
    if isinstance(message, dict) and "method" in message and "id" in message:
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            log.info("request %.40r refused: its id %.40r is not a string or an integer", message["method"],
                     request_id)
            return "{}"
    return json.dumps(message, ensure_ascii=False)


async def _answer_malformed_lines(lines, messages, replies) -> None:
    """Pass the client's messages on; answer a line that is not one with a JSON-RPC error.

    The SDK's stdio transport hands such a line over as an exception, which its session only logs, so a client
    that sent it would wait for an answer forever. JSON-RPC says: -32700 (parse error) for text that is not
    JSON, -32600 (invalid request) for JSON that is not a message; the id is null since it could not be read.
    """
    async with messages:
        async for item in lines:
            if not isinstance(item, Exception):
                await messages.send(item)
                continue
            not_json = any(error.get("type") == "json_invalid" for error in getattr(item, "errors", list)())
            log.info("malformed JSON-RPC line: %s", str(item).splitlines()[0] if str(item) else type(item).__name__)
            error = (types.ErrorData(code=types.PARSE_ERROR, message="Parse error: the line is not JSON")
                     if not_json else
                     types.ErrorData(code=types.INVALID_REQUEST, message="Invalid Request: not a JSON-RPC message"))
            await replies.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error)))


def _log_to_store(home: str | None) -> None:
    """Alaya's log file when the store exists; otherwise warnings reach stderr only (never stdout)."""
    from alaya_engine.foundations.config import load_config
    from alaya_engine.foundations.logs import setup_logging
    from alaya_engine.foundations.paths import Layout, resolve_home

    layout = Layout(resolve_home(home))
    if layout.is_initialised():
        setup_logging(layout.home, load_config(layout.config_file))
