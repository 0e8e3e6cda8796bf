"""Markdown: plain text for titles and matching, and blocks (paragraphs, list items, code, tables)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .memo import within_session

INLINE_CODE = re.compile(r"`([^`\n]+)`")
STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
ITALIC = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
LIST_MARK = re.compile(r"^\s*(?:\d+[.)、]|[-*•+])\s+")
TABLE_ROW = re.compile(r"^\s*\|")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s*#{1,6}\s+")
FENCED_BLOCK = re.compile(r"^([ \t]*)(```|~~~)[^\n]*\n(.*?)^[ \t]*\2[ \t]*$", re.MULTILINE | re.DOTALL)
"""A fenced block, whole (groups: indent, fence, body)."""


def outside_code(text: str, change) -> str:
    """Apply ``change`` to the prose only, leaving inline code spans exactly as written."""
    pieces = re.split(r"(`[^`\n]+`)", text)
    return "".join(piece if piece.startswith("`") and piece.endswith("`") and len(piece) > 1 else change(piece)
                   for piece in pieces)


def _plain_prose(prose: str) -> str:
    prose = STRONG.sub(r"\1", LINK.sub(r"\1", prose)).replace("**", "")
    return ITALIC.sub(r"\1", prose)


@within_session
def strip_markdown(text: str) -> str:
    """Plain text for titles and matching: no emphasis, backticks, links or list marks."""
    text = LIST_MARK.sub("", HEADING.sub("", text))
    text = outside_code(text, _plain_prose)
    text = INLINE_CODE.sub(r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Block:
    """One piece of a message: a paragraph, a list item, a code block or a table."""

    kind: str
    """``para``, ``item``, ``code`` or ``table``."""
    text: str
    lead: str = ""
    """For list items: the paragraph that introduced the list (e.g. ``Root cause:``)."""
    list_id: int = -1


def split_blocks(text: str) -> list[Block]:
    """Cut Markdown into blocks, remembering which paragraph introduced each list."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    paragraph: list[str] = []
    list_state = {"id": -1, "lead": "", "open": False}

    def flush_paragraph() -> None:
        if paragraph:
            blocks.append(Block("para", "\n".join(paragraph).strip()))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if FENCE.match(line):
            flush_paragraph()
            end = index + 1
            while end < len(lines) and not FENCE.match(lines[end]):
                end += 1
            blocks.append(Block("code", "\n".join(lines[index:end + 1])))
            index = end + 1
            continue
        if TABLE_ROW.match(line):
            flush_paragraph()
            end = index
            while end < len(lines) and TABLE_ROW.match(lines[end]):
                end += 1
            blocks.append(Block("table", "\n".join(lines[index:end])))
            index = end
            continue
        if LIST_MARK.match(line):
            flush_paragraph()
            if not list_state["open"]:
                list_state.update(id=len(blocks), lead=_lead_before(blocks), open=True)
            item = [line]
            index += 1
            while index < len(lines) and lines[index].startswith((" ", "\t")) and lines[index].strip() \
                    and not LIST_MARK.match(lines[index]):
                item.append(lines[index].strip())
                index += 1
            blocks.append(Block("item", " ".join(item).strip(), list_state["lead"], list_state["id"]))
            continue
        if not line.strip():
            flush_paragraph()
            index += 1
            continue
        if list_state["open"] and not line.startswith((" ", "\t")):
            list_state["open"] = False
        paragraph.append(line)
        index += 1
    flush_paragraph()
    return blocks


def only_code(text: str) -> bool:
    """A message that is code and nothing else (a test pasted to be looked at): it states nothing in words."""
    blocks = split_blocks(text)
    return bool(blocks) and all(block.kind == "code" for block in blocks)


def _lead_before(blocks: list[Block]) -> str:
    """The paragraph right before a list, if it introduces it (ends with a colon)."""
    if blocks and blocks[-1].kind == "para" and blocks[-1].text.rstrip("*_ ").endswith((":", "：")):
        return blocks[-1].text
    return ""


QUOTED_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
"""A quoted line in an assistant's message: mostly the message it drafted for the person to send ("> Hello, we're
arriving…"), theirs to send, not knowledge passed on."""
