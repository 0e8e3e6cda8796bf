"""The human-readable ``.md`` that sits beside every stored session."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from ..foundations.domain import Session, Turn


def session_markdown(session: Session) -> str:
    model = session.metadata.get("model", "unknown")
    lines = [
        f"# {session.id}",
        "",
        f"- Started: {session.started_at:%Y-%m-%d %H:%M:%S} UTC",
        f"- Channel: {session.channel} · Agent: {session.agent} · Model: {model}",
        f"- Turns: {len(session.turns)} · Tokens: {session.tokens} · Duration: {session.duration_ms / 1000:.1f}s",
        "",
    ]
    for index, turn in enumerate(session.turns):
        lines.extend(_turn_markdown(index, turn))
    return "\n".join(lines).rstrip() + "\n"


def _turn_markdown(index: int, turn: Turn) -> list[str]:
    when = ""
    if turn.timestamp is not None:
        when = f" · {datetime.fromtimestamp(turn.timestamp / 1000, tz=timezone.utc):%H:%M:%S}"
    label = f"{turn.role} ({turn.tool_name})" if turn.tool_name else turn.role
    lines = [f"## [{index}] {label}{when}", ""]
    if turn.content.strip():
        body = turn.content.strip()
        lines.append(f"```\n{body}\n```" if turn.role == "tool" else body)
        lines.append("")
    for call in turn.tool_calls:
        arguments = json.dumps(call.get("arguments"), ensure_ascii=False)
        lines.extend([f"Tool call `{call.get('name')}`: `{arguments}`", ""])
    return lines
