"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``. The first is ``session_meta`` (``payload.id``, ``timestamp``,
``cwd``, ``git``); after it, ``response_item`` lines hold what the model saw and said, ``event_msg`` lines repeat
it for the terminal (ignored), ``turn_context`` names the model and ``compacted`` holds a compaction summary.
What becomes of the response items:

- ``message``: the user's and the assistant's text parts (``input_text``/``output_text``; images become
  ``[image]``). ``developer`` messages and the context Codex injects as user messages (``<environment_context>``,
  ``<user_instructions>``, AGENTS.md) are dropped: instructions to the model, not the person's words;
- ``function_call``, ``custom_tool_call`` (``apply_patch``), ``local_shell_call`` and ``web_search_call`` become
  the assistant turn's ``tool_calls`` (JSON arguments decoded, arguments that are not JSON, ``NaN`` included, kept
  as their text; long strings clipped; a ``call_id`` that is not a string is dropped);
- ``function_call_output`` and ``custom_tool_call_output`` become ``tool`` turns named after their call (the shell's
  ``{"output", "metadata": {"exit_code"}}`` envelope unwrapped, a non-zero exit code kept as ``exit_code``;
  long output clipped, :mod:`.runtime_text`);
- ``reasoning`` is dropped (encrypted, or a summary of thinking, not of the work);
- ``compacted`` becomes a ``system`` turn marked ``compaction_summary``.

The session id is ``codex-`` and ``payload.id``; the channel is the project (the last folder of ``cwd``).
"""

from __future__ import annotations

from typing import Any

from ..foundations.domain import Session, Turn
from ..foundations.json_input import JsonInputError, load_json
from .runtime_text import IMAGE, clip, clip_arguments, project_channel
from .session_parts import check_session_id, finish, jsonl_events, refuse, text_or_none, to_millis

ID_PREFIX = "codex-"
AGENT = "codex"
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>")
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")


def is_rollout_head(head: dict | None) -> bool:
    return head is not None and head.get("type") == "session_meta" and isinstance(head.get("payload"), dict)


def parse_rollout(text: str) -> Session:
    events = jsonl_events(text)
    meta = events[0][1]["payload"]
    if not isinstance(meta.get("id"), str):
        raise refuse("line 1: session_meta has no 'id'")
    session_id = check_session_id(ID_PREFIX + meta["id"])
    reader = _Reader()
    for number, line in events[1:]:
        reader.read(number, line)
    start = to_millis(meta.get("timestamp") or events[0][1].get("timestamp"), "session_meta timestamp")
    if start is None:
        raise refuse("line 1: session_meta has no timestamp")
    metadata: dict[str, Any] = {"format": "codex-rollout"}
    cwd = text_or_none(meta.get("cwd"))
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    for name, value in (("cwd", cwd), ("git_branch", text_or_none(git.get("branch"))), ("model", reader.model),
                        ("codex_version", text_or_none(meta.get("cli_version")))):
        if value:
            metadata[name] = value
    return finish(Session(id=session_id, timestamp=start, turns=reader.turns, channel=project_channel(cwd, AGENT),
                          agent=AGENT, metadata=metadata))


class _Reader:
    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.model: str | None = None
        self.tool_names: dict[str, str] = {}

    def read(self, number: int, line: dict) -> None:
        kind, payload = line.get("type"), line.get("payload")
        if kind not in ("response_item", "turn_context", "compacted"):
            return
        if not isinstance(payload, dict):
            raise refuse(f"line {number}: 'payload' must be an object")
        timestamp = to_millis(line.get("timestamp"), f"line {number} timestamp")
        if kind == "turn_context":
            self.model = text_or_none(payload.get("model")) or self.model
        elif kind == "compacted":
            if text_or_none(payload.get("message")):
                self.turns.append(Turn("system", payload["message"], timestamp, extra={"compaction_summary": True}))
        else:
            self._item(payload, timestamp)

    def _item(self, item: dict, timestamp: int | None) -> None:
        kind = item.get("type")
        if kind == "message" and item.get("role") in ("user", "assistant"):
            content = _parts_text(item.get("content"))
            if content.strip() and not (item["role"] == "user" and content.lstrip().startswith(INJECTED)):
                self.turns.append(Turn(item["role"], content, timestamp))
        elif kind in CALLS:
            self._call(item, timestamp)
        elif kind in OUTPUTS:
            text, exit_code = _output(item.get("output"))
            tool_name = self.tool_names.get(text_or_none(item.get("call_id")))
            self.turns.append(Turn("tool", clip(text), timestamp, tool_name=tool_name,
                                   extra={"exit_code": exit_code} if exit_code else {}))

    def _call(self, item: dict, timestamp: int | None) -> None:
        """A call joins the assistant turn just before it (the text announcing it), else opens one."""
        kind = item["type"]
        name = text_or_none(item.get("name")) or kind.removesuffix("_call")
        if kind == "function_call":
            arguments = _decoded(item.get("arguments"))
        elif kind == "custom_tool_call":
            arguments = {"input": item.get("input")}
        else:
            arguments = item.get("action")
        call_id = text_or_none(item.get("call_id"))
        if call_id:
            self.tool_names[call_id] = name
        call = {"id": call_id, "name": name, "arguments": clip_arguments(arguments)}
        if self.turns and self.turns[-1].role == "assistant":
            self.turns[-1].tool_calls.append(call)
        else:
            self.turns.append(Turn("assistant", "", timestamp, [call]))


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif part.get("type") in ("input_image", "image"):
            texts.append(IMAGE)
    return "\n".join(texts)


def _output(output: Any) -> tuple[str, int | None]:
    """A call's output text and its non-zero exit code, from a string, the shell's JSON envelope, or parts."""
    if isinstance(output, list):
        return _parts_text(output), None
    if not isinstance(output, str):
        return "", None
    envelope = _decoded(output)
    if isinstance(envelope, dict) and isinstance(envelope.get("output"), str):
        metadata = envelope.get("metadata") if isinstance(envelope.get("metadata"), dict) else {}
        code = metadata.get("exit_code")
        return envelope["output"], code if isinstance(code, int) and not isinstance(code, bool) and code else None
    return output, None


def _decoded(arguments: Any) -> Any:
    """Function-call arguments (and the shell's output envelope) arrive as a JSON string: decoded when they are
    JSON, else kept as the text they are. Strictly decoded: ``NaN`` or ``Infinity`` would reach the stored session
    and every reply that carries it, which no JSON reader takes back (the OpenClaw plugin's ``JSON.parse``)."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return load_json(arguments)
    except JsonInputError:
        return arguments
