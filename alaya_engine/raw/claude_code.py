"""Claude Code session transcripts: ``~/.claude/projects/<project>/<session id>.jsonl``.

Each line is one record. ``user`` and ``assistant`` records carry an API ``message`` (``role``, ``content`` as a
string or blocks) plus ``sessionId``, ``uuid``/``parentUuid``, ``timestamp``, ``cwd``, ``gitBranch`` and
``isSidechain``; ``summary`` records title a conversation by its last message (``leafUuid``); ``system``,
``file-history-snapshot`` and other bookkeeping records are not conversation. What becomes of them:

- text blocks become the turn's text; ``thinking`` blocks are dropped (the reasoning behind an answer, not the
  answer, and often as long as the rest together);
- ``tool_use`` blocks become the assistant turn's ``tool_calls``; Claude Code writes each block of one API message
  on its own line, so lines sharing a message id make one turn (the text that announces a call and the call);
  an ``id`` or ``tool_use_id`` that is not a string is dropped (the result then names no tool);
- ``tool_result`` blocks, which arrive inside ``user`` records, become ``tool`` turns named after the call they
  answer (``is_error`` kept): filed as the user's words they would open an episode on every command's output;
- images become ``[image]``; long tool results and long strings in call arguments are clipped (:mod:`.runtime_text`);
- sidechain records (a sub-agent at work, ``isSidechain``) are dropped: the sub-agent's report comes back to the
  main conversation as the Task call's result, which is kept. A sub-agent's own file is refused, so that it
  cannot replace its parent session (both carry the parent's ``sessionId``);
- a compaction summary (``isCompactSummary``) is kept as a ``system`` turn marked ``compaction_summary``;
  ``isMeta`` records (command caveats) and synthetic assistant messages (API errors) are dropped;
- the ``summary`` whose ``leafUuid`` is in this file becomes ``metadata.title``.

The session id is ``claude-`` and the ``sessionId``; the channel is the project (the last folder of ``cwd``).
"""

from __future__ import annotations

from typing import Any

from ..foundations.domain import Session, Turn
from .runtime_text import IMAGE, clip, clip_arguments, project_channel
from .session_parts import check_session_id, finish, jsonl_events, refuse, text_or_none, to_millis

ID_PREFIX = "claude-"
AGENT = "claude-code"
RECORD_TYPES = ("user", "assistant", "system", "queue-operation")
SYNTHETIC_MODEL = "<synthetic>"


def is_transcript_head(head: dict | None) -> bool:
    """A Claude Code first line: a summary, a file-history snapshot, or a record with a ``sessionId``."""
    if head is None:
        return False
    kind = head.get("type")
    if kind == "summary":
        return "leafUuid" in head
    if kind == "file-history-snapshot":
        return "snapshot" in head
    return kind in RECORD_TYPES and isinstance(head.get("sessionId"), str)


def parse_transcript(text: str) -> Session:
    reader = _Reader()
    for number, record in jsonl_events(text):
        reader.read(number, record)
    return reader.session()


class _Reader:
    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.session_id: str | None = None
        self.context: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self.uuids: set[str] = set()
        self.tool_names: dict[str, str] = {}
        self.open_message: str | None = None
        """The id of the API message the last turn holds: later lines of that message add their blocks to it (a
        line with thinking alone opens no turn)."""
        self.sidechain_records = 0

    def read(self, number: int, record: dict) -> None:
        kind = record.get("type")
        if kind == "summary":
            if isinstance(record.get("leafUuid"), str) and isinstance(record.get("summary"), str):
                self.titles[record["leafUuid"]] = record["summary"]
            return
        if kind not in ("user", "assistant"):
            return
        if record.get("isSidechain") is True:
            self.sidechain_records += 1
            return
        message = record.get("message")
        if not isinstance(message, dict):
            raise refuse(f"line {number}: 'message' must be an object")
        self.session_id = text_or_none(record.get("sessionId")) or self.session_id
        for key, name in (("cwd", "cwd"), ("gitBranch", "git_branch"), ("version", "claude_code_version")):
            if text_or_none(record.get(key)):
                self.context.setdefault(name, record[key])
        if isinstance(record.get("uuid"), str):
            self.uuids.add(record["uuid"])
        timestamp = to_millis(record.get("timestamp"), f"line {number} timestamp")
        if kind == "assistant":
            self._assistant(message, timestamp, number)
        else:
            self._user(record, message, timestamp, number)

    def _assistant(self, message: dict, timestamp: int | None, number: int) -> None:
        model = text_or_none(message.get("model"))
        if model == SYNTHETIC_MODEL:
            return
        if model:
            self.context["model"] = model
        texts, calls = [], []
        for block in _blocks(message.get("content"), number):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_use":
                call_id, name = text_or_none(block.get("id")), text_or_none(block.get("name"))
                calls.append({"id": call_id, "name": name, "arguments": clip_arguments(block.get("input"))})
                if call_id and name:
                    self.tool_names[call_id] = name
            elif kind == "image":
                texts.append(IMAGE)
        message_id = text_or_none(message.get("id"))
        if message_id and message_id == self.open_message:
            last = self.turns[-1]
            last.content = "\n".join(part for part in (last.content, *texts) if part)
            last.tool_calls.extend(calls)
        elif texts or calls:
            self.turns.append(Turn("assistant", "\n".join(texts), timestamp, calls))
            self.open_message = message_id

    def _user(self, record: dict, message: dict, timestamp: int | None, number: int) -> None:
        self.open_message = None
        if record.get("isMeta") is True:
            return
        texts = []
        for block in _blocks(message.get("content"), number):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "image":
                texts.append(IMAGE)
            elif kind == "tool_result":
                extra = {"is_error": True} if block.get("is_error") is True else {}
                self.turns.append(Turn("tool", clip(_result_text(block.get("content"))), timestamp,
                                       tool_name=self.tool_names.get(text_or_none(block.get("tool_use_id"))),
                                       extra=extra))
        if not texts:
            return
        if record.get("isCompactSummary") is True:
            self.turns.append(Turn("system", "\n".join(texts), timestamp, extra={"compaction_summary": True}))
        else:
            self.turns.append(Turn("user", "\n".join(texts), timestamp))

    def session(self) -> Session:
        if self.session_id is None:
            if self.sidechain_records:
                raise refuse("a Claude Code sub-agent transcript (every message is on a sidechain): ingest the "
                             "session that started the sub-agent")
            raise refuse("no Claude Code messages (only summary or bookkeeping lines)")
        session_id = check_session_id(ID_PREFIX + self.session_id)
        start = next((turn.timestamp for turn in self.turns if turn.timestamp is not None), None)
        if start is None:
            raise refuse("no Claude Code message has a timestamp")
        metadata: dict[str, Any] = {"format": "claude-code-jsonl", **self.context}
        title = next((self.titles[uuid] for uuid in self.titles if uuid in self.uuids), None)
        if title:
            metadata["title"] = title
        return finish(Session(id=session_id, timestamp=start, turns=self.turns,
                              channel=project_channel(self.context.get("cwd"), AGENT), agent=AGENT,
                              metadata=metadata))


def _blocks(content: Any, number: int) -> list[dict]:
    """A message's content as blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    raise refuse(f"line {number}: message content must be a string or a list")


def _result_text(content: Any) -> str:
    """A tool result's text: a string, or text and image blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [block.get("text") if block.get("type") == "text" else IMAGE if block.get("type") == "image" else None
             for block in content if isinstance(block, dict)]
    return "\n".join(part for part in parts if isinstance(part, str))
