"""Parse every accepted input into a :class:`~alaya_engine.foundations.domain.Session`.

Four formats are understood: Alaya's session JSON, OpenClaw's transcript JSONL (a ``{"type":"session"}`` header
line followed by event lines), Claude Code's session transcripts and Codex CLI rollouts (both JSONL, read by
:mod:`.claude_code` and :mod:`.codex`). Anything else is refused with one line that names the problem.
"""

from __future__ import annotations

import json
from typing import Any

from ..foundations.domain import Session, Turn
from ..foundations.json_input import JsonInputError, load_json
from . import claude_code, codex

# The id rule is part of the format: turn ranges and producers' checks read it here.
from .session_parts import SAFE_ID as SAFE_ID
from .session_parts import check_session_id, finish, jsonl_events, refuse, text_or_none, to_millis, type_name

TURN_KEYS = frozenset({"role", "content", "timestamp", "tool_calls", "tool_name"})
ROLE_ALIASES = {"user": "user", "assistant": "assistant", "tool": "tool", "toolResult": "tool",
                "tool_result": "tool", "system": "system"}
COUNTED_METADATA = ("tokens", "duration_ms")
"""Metadata the store computes with (and stores as 64-bit integers in the graph), unlike the free-form rest."""
MAX_COUNT = 2**53


def parse_session_bytes(data: bytes, max_bytes: int, agent_hint: str | None = None) -> Session:
    """Decode, sniff the format and normalise; raises ``AlayaError('bad_session')``."""
    if len(data) > max_bytes:
        raise refuse(f"file is {len(data) / 1e6:.1f} MB, over ingest.max_file_mb ({max_bytes / 1e6:g} MB)")
    if b"\x00" in data[:65536]:
        raise refuse("binary file, not a session (expected session JSON or a JSONL transcript)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise refuse("not UTF-8 text, not a session (expected session JSON or a JSONL transcript)") from None
    if not text.strip():
        raise refuse("file is empty")
    head = _first_object(text)
    if head is not None and head.get("type") == "session" and "turns" not in head:
        return parse_openclaw_jsonl(text, agent_hint)
    if codex.is_rollout_head(head):
        return codex.parse_rollout(text)
    if claude_code.is_transcript_head(head):
        return claude_code.parse_transcript(text)
    return parse_session_json(_load_json(text))


def _first_object(text: str) -> dict | None:
    """The first line as a JSON object, if it is one: what tells the JSONL flavours apart."""
    try:
        head = load_json(text.lstrip().split("\n", 1)[0])
    except JsonInputError:
        return None
    return head if isinstance(head, dict) else None


def _load_json(text: str) -> Any:
    try:
        return load_json(text)
    except JsonInputError as exc:
        raise refuse(f"malformed JSON{exc.where}: {exc.reason}") from None


def parse_session_json(document: Any, stored: bool = False) -> Session:
    """Validate a session document in Alaya's JSON format. Producers may give epoch seconds; a ``stored`` one (an L3
    file) holds milliseconds only, so a time before March 1973 reads back as it was written, not as seconds."""
    if not isinstance(document, dict):
        raise refuse(f"expected a JSON object with 'id' and 'turns', got {type(document).__name__}")
    for name in ("id", "turns"):
        if name not in document:
            raise refuse(f"missing field '{name}'")
    session_id = check_session_id(document["id"])
    raw_turns = document["turns"]
    if not isinstance(raw_turns, list):
        raise refuse(f"field 'turns' must be a list, got {type_name(raw_turns)}")
    turns = [_parse_turn(raw, index, stored) for index, raw in enumerate(raw_turns)]
    timestamp = to_millis(document.get("timestamp"), "timestamp", stored)
    if timestamp is None:
        timestamp = next((t.timestamp for t in turns if t.timestamp is not None), None)
    if timestamp is None:
        raise refuse("missing field 'timestamp' (and no turn has one)")
    metadata = document.get("metadata", {})
    if not isinstance(metadata, dict):
        raise refuse(f"field 'metadata' must be an object, got {type_name(metadata)}")
    for key in COUNTED_METADATA:
        _check_count(metadata.get(key), f"metadata.{key}")
    return finish(
        Session(
            id=session_id,
            timestamp=timestamp,
            turns=turns,
            channel=_optional_str(document, "channel") or "unknown",
            agent=_optional_str(document, "agent") or "main",
            metadata=dict(metadata),
        )
    )


def _parse_turn(raw: Any, index: int, stored: bool) -> Turn:
    where = f"turns[{index}]"
    if not isinstance(raw, dict):
        raise refuse(f"{where} must be an object, got {type_name(raw)}")
    role = _role(raw.get("role"))
    if role is None:
        got = json.dumps(raw.get("role"))[:40]
        raise refuse(f"{where}.role must be one of user, assistant, tool, system; got {got}")
    content = raw.get("content", "")
    if isinstance(content, list):
        content = _text_of_parts(content, where)
    if not isinstance(content, str):
        raise refuse(f"{where}.content must be a string, got {type_name(content)}")
    tool_calls = raw.get("tool_calls") or []
    if not isinstance(tool_calls, list) or not all(isinstance(call, dict) for call in tool_calls):
        raise refuse(f"{where}.tool_calls must be a list of objects")
    tool_name = raw.get("tool_name")
    if tool_name is not None and not isinstance(tool_name, str):
        raise refuse(f"{where}.tool_name must be a string")
    extra = {key: value for key, value in raw.items() if key not in TURN_KEYS}
    return Turn(role=role, content=content, timestamp=to_millis(raw.get("timestamp"), f"{where}.timestamp", stored),
                tool_calls=tool_calls, tool_name=tool_name, extra=extra)


def _text_of_parts(parts: list, where: str) -> str:
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif not isinstance(part, dict):
            raise refuse(f"{where}.content parts must be strings or objects")
    return "\n".join(texts)


def parse_openclaw_jsonl(text: str, agent_hint: str | None = None) -> Session:
    """Normalise an OpenClaw transcript: keep text, tool calls and tool results; skip thinking."""
    events = jsonl_events(text)
    header = events[0][1]
    session_id = check_session_id(header.get("id"))
    start = to_millis(header.get("timestamp"), "timestamp")
    turns: list[Turn] = []
    model = None
    total_tokens = 0
    for number, event in events[1:]:
        kind = event.get("type")
        if kind == "model_change":
            model = text_or_none(event.get("modelId")) or model
        elif kind == "message":
            message = event.get("message")
            if not isinstance(message, dict):
                raise refuse(f"line {number}: 'message' must be an object")
            turn = _openclaw_turn(message, event, number)
            if turn is not None:
                turns.append(turn)
            usage = message.get("usage")
            if isinstance(usage, dict) and isinstance(usage.get("totalTokens"), int):
                total_tokens += usage["totalTokens"]
            model = text_or_none(message.get("model")) or model
    if start is None:
        start = next((t.timestamp for t in turns if t.timestamp is not None), None)
    if start is None:
        raise refuse("the session header has no timestamp")
    metadata: dict[str, Any] = {"format": "openclaw-jsonl"}
    if model:
        metadata["model"] = model
    if total_tokens:
        metadata["tokens"] = total_tokens
    if text_or_none(header.get("cwd")):
        metadata["cwd"] = header["cwd"]
    return finish(Session(id=session_id, timestamp=start, turns=turns, channel="openclaw",
                           agent=agent_hint or "main", metadata=metadata))


def _openclaw_turn(message: dict, event: dict, number: int) -> Turn | None:
    role = _role(message.get("role"))
    if role is None:
        return None
    content = message.get("content", "")
    texts: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif part.get("type") == "toolCall":
                tool_calls.append({"name": part.get("name"), "arguments": part.get("arguments")})
            elif part.get("type") == "image":
                texts.append("[image]")
    else:
        raise refuse(f"line {number}: message content must be a string or a list")
    timestamp = to_millis(message.get("timestamp"), f"line {number} timestamp")
    if timestamp is None:
        timestamp = to_millis(event.get("timestamp"), f"line {number} timestamp")
    return Turn(role=role, content="\n".join(texts), timestamp=timestamp, tool_calls=tool_calls,
                tool_name=text_or_none(message.get("toolName")) if role == "tool" else None)


def _role(value: Any) -> str | None:
    return ROLE_ALIASES.get(value) if isinstance(value, str) else None


def _check_count(value: Any, where: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < MAX_COUNT:
        raise refuse(f"{where} must be a non-negative number, got {json.dumps(value)[:40]}")


def _optional_str(document: dict, key: str) -> str | None:
    value = document.get(key)
    if value is not None and not isinstance(value, str):
        raise refuse(f"field '{key}' must be a string, got {type_name(value)}")
    return value


