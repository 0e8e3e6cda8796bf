"""The distill prompt: a template file with a system and a user section.

The file is user-editable (``distill.prompt_template``), so it is validated on
load and filled with ``str.replace``: its JSON example is full of braces that
``str.format`` would choke on. Turns keep their original index in the
rendered conversation, even when a long session is cut, because the model
cites those indices back as a card's ``turns``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..foundations.domain import Session, Turn
from ..foundations.errors import USAGE, AlayaError

SYSTEM_MARKER = "=== SYSTEM ==="
USER_MARKER = "=== USER ==="
CONTENT_PLACEHOLDER = "{session_content}"

CONTENT_BUDGET_CHARS = 60_000
"""~15k tokens of conversation: room for the answer in any 32k-context model."""

_TURN_SHARE = 8
"""One turn (typically a huge tool output) may take at most 1/8 of the budget."""


@dataclass(frozen=True)
class PromptTemplate:
    system: str
    user: str

    @property
    def digest(self) -> str:
        """Identifies the template text, so a cached answer is never reused for an edited prompt."""
        return hashlib.sha256(f"{self.system}\0{self.user}".encode("utf-8")).hexdigest()

    def render(self, session: Session, *, budget_chars: int = CONTENT_BUDGET_CHARS) -> tuple[str, str]:
        """The ``(system, user)`` messages for ``session``; the conversation is cut to ``budget_chars``."""
        # The conversation goes in last so text inside it is never taken for a placeholder.
        values = {
            "{session_id}": session.id,
            "{timestamp}": session.started_at.isoformat(timespec="seconds"),
            "{channel}": session.channel,
            CONTENT_PLACEHOLDER: render_turns(session.turns, budget_chars),
        }
        return _fill(self.system, values), _fill(self.user, values)


def load_prompt(path: Path) -> PromptTemplate:
    """Read and validate a template file; errors name the file and what to fix."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AlayaError("prompt_invalid", f"cannot read prompt template {path}: {exc}", USAGE) from None
    return parse_prompt(text, source=str(path))


def parse_prompt(text: str, *, source: str) -> PromptTemplate:
    """Split ``text`` at its marker lines: SYSTEM first, then USER."""
    lines = text.splitlines()
    markers = {line.strip(): index for index, line in reversed(list(enumerate(lines)))}
    missing = [marker for marker in (SYSTEM_MARKER, USER_MARKER) if marker not in markers]
    if missing:
        raise _invalid(source, f"has no {' and no '.join(repr(m) for m in missing)} line")
    system_at, user_at = markers[SYSTEM_MARKER], markers[USER_MARKER]
    if user_at < system_at:
        raise _invalid(source, f"has {USER_MARKER!r} before {SYSTEM_MARKER!r}")
    system = "\n".join(lines[system_at + 1 : user_at]).strip()
    user = "\n".join(lines[user_at + 1 :]).strip()
    if not system or not user:
        raise _invalid(source, f"has an empty {'system' if not system else 'user'} section")
    if CONTENT_PLACEHOLDER not in user:
        raise _invalid(source, f"user section lacks {CONTENT_PLACEHOLDER}, so the model would never see the session")
    return PromptTemplate(system=system, user=user)


def render_turns(turns: list[Turn], budget_chars: int = CONTENT_BUDGET_CHARS) -> str:
    """``[i] role: content`` blocks; over budget, the head and tail survive around a marked cut."""
    turn_chars = max(budget_chars // _TURN_SHARE, 1)
    blocks = [_render_turn(index, turn, turn_chars) for index, turn in enumerate(turns)]
    if sum(len(block) + 1 for block in blocks) <= budget_chars:
        return "\n".join(blocks)
    head = _fit(blocks, budget_chars // 2)
    tail = _fit(blocks[head:][::-1], budget_chars - sum(len(b) + 1 for b in blocks[:head]))
    first_cut, last_cut = head, len(blocks) - tail - 1
    marker = f"[… turns {first_cut}–{last_cut} omitted ({last_cut - first_cut + 1} of {len(blocks)}) …]"
    return "\n".join([*blocks[:head], marker, *blocks[len(blocks) - tail :]])


def _render_turn(index: int, turn: Turn, max_chars: int) -> str:
    content = turn.content
    if turn.role == "tool" and turn.tool_name:
        content = f"[{turn.tool_name}] {content}"
    lines = [f"[{index}] {turn.role}: {_shorten(content, max_chars)}"]
    lines.extend(f"    → {_render_call(call, max_chars)}" for call in turn.tool_calls)
    return "\n".join(lines)


def _render_call(call: dict[str, Any], max_chars: int) -> str:
    """Accepts the plain ``{name, arguments}`` and OpenAI's ``{function: {name, arguments}}``."""
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    name = function.get("name") or "tool"
    arguments = function.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return f"{name}({_shorten(arguments, max_chars)})"


def _shorten(text: str, max_chars: int) -> str:
    """Keep the start and end of an over-long text; errors and results tend to sit at the end."""
    if len(text) <= max_chars:
        return text
    keep = max_chars // 2
    return f"{text[:keep]}\n[… {len(text) - 2 * keep} characters cut …]\n{text[len(text) - keep :]}"


def _fit(blocks: list[str], budget: int) -> int:
    """How many leading ``blocks`` fit in ``budget`` characters (one newline each)."""
    used = count = 0
    for block in blocks:
        used += len(block) + 1
        if used > budget:
            break
        count += 1
    return count


def _fill(template: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        template = template.replace(placeholder, value)
    return template


def _invalid(source: str, problem: str) -> AlayaError:
    return AlayaError(
        "prompt_invalid",
        f"prompt template {source} {problem}; it needs a {SYSTEM_MARKER!r} line, then a {USER_MARKER!r} line "
        f"followed by text containing {CONTENT_PLACEHOLDER}",
        USAGE,
    )
