"""Diffs read as what they change: the lines they add, a setting's replaced value beside its new one.

Agents change configuration by diff (``-max_slot_wal_keep_size = 64GB`` / ``+max_slot_wal_keep_size = 128GB``).
Read as any code, a diff gave the card the removed line as if it still held, the hunk header's context
(``@@ -88,6 +88,7 @@ max_wal_size = 16GB``) as a setting of its own, and not the added line, whose ``+`` no setting
starts with: the card kept the old value and lost the new. A diff is read instead as the file it changes and the
lines it adds, each setting that replaces a removed one saying the value it replaces ("… = 128GB (instead of
64GB)", "（之前是 64GB）" when the words around the diff are Chinese), which is how introspect tells that the card
updates an earlier one. Unchanged context lines are left out: they are what the file held, not what the session did.
A tool's bare run of removed and added lines (``git diff | grep '^[-+] '``) is read the same way when it sets a
setting anew, and so are the settings a coding agent's edit calls change (:func:`edited_settings`).
"""

from __future__ import annotations

import re

from .chinese import is_chinese
from .markdown import FENCED_BLOCK

DIFF_FENCE = re.compile(r"^([ \t]*)(```|~~~)[ \t]*(?:diff|patch)\b[^\n]*\n(.*?)^[ \t]*\2[ \t]*$",
                        re.MULTILINE | re.DOTALL)
"""A fenced block said to be a diff."""
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.MULTILINE)
"""A hunk header: an unmarked fence holding one is a diff too."""
NEW_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)")
"""The file a diff changes, which names what the change is about (``deploy/alert-dispatcher/values-prod.yaml``)."""
FILE_HEADER = re.compile(r"^(?:---|\+\+\+|diff --git|index [0-9a-f]+\.\.)")
BARE_RUN = re.compile(r"(?:^[-+](?![-+]).*\n?){2,}", re.MULTILINE)
"""Consecutive lines marked removed or added, outside any diff block (a list's items are marked too: see
:func:`_sets_anew`)."""
PATCHED_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (\S+)")
"""A file an ``apply_patch`` call changes."""
SETTING = re.compile(r"([A-Za-z_][\w.\-/]*)\s*(=|:)\s*(\S.*?);?$")
"""A line that sets something (stripped: see :func:`setting_of`): a name, ``=`` or ``:``, the value."""
DIRECTIVE = re.compile(r"([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)(\s)\s*([^\s=:#;][^;#]*?);?$")
"""A line that sets something the way nginx, Redis and many daemons' files do: a name with a separator in it, a
space, the value (``proxy_cache_valid 200 5m;``, ``maxmemory-policy allkeys-lru``)."""


COMMENT = re.compile(r"\s((?:#|//)\s.*)$")
"""A comment after the code of a line."""
MARKS = {False: (" (instead of ", ")"), True: (" （之前是 ", "）")}
"""How :func:`added_lines` ends a setting that replaces a removed one, in English and in Chinese: the value it
replaces between these."""
REPLACED = re.compile("|".join(f"{re.escape(opening)}[^{re.escape(opening[1] + closing)}]*{re.escape(closing)}"
                               r"(?:$| #| //)" for opening, closing in MARKS.values()))
"""The end :func:`added_lines` gives a setting that replaces a removed one: a line that tells a change."""


def setting_of(line: str) -> re.Match | None:
    """The setting ``line`` sets (groups: name, separator, value), in either form. Matched on the stripped line
    with nothing to backtrack over at its end: spaces trailing a value cost a pattern that ends by skipping spaces
    around an optional ``;`` time in the square of their number (a padded line of tool output, 20,000 spaces:
    3-12 s)."""
    line = line.strip()
    return SETTING.fullmatch(line) or DIRECTIVE.fullmatch(line)


def resolve_diffs(text: str, chinese: bool | None = None) -> str:
    """``text`` with each diff block (fenced and said to be one, or holding a hunk header) replaced by a block of
    the lines it adds, and each bare run of removed and added lines that sets a setting anew (a tool's ``git diff |
    grep '^[-+] '``) by the lines it adds. ``chinese``: the language a replaced value is said in; None: the
    language of the words around the diffs."""
    if "@@" not in text and "diff" not in text and "patch" not in text and "\n+" not in text:
        return text
    if chinese is None:
        chinese = is_chinese(FENCED_BLOCK.sub(" ", text))

    def bare(match: re.Match) -> str:
        run = match.group(0)
        if not _sets_anew(run):
            return run
        return "".join(f"{line}\n" for line in added_lines(run, chinese))

    def resolved(match: re.Match) -> str:
        indent, fence, body = match.group(1), match.group(2), match.group(3)
        if not (match.re is DIFF_FENCE or HUNK.search(body)):
            return match.group(0)
        added = added_lines(body, chinese)
        return f"{indent}{fence}\n" + "".join(f"{indent}{line}\n" for line in added) + f"{indent}{fence}"

    text = DIFF_FENCE.sub(resolved, text)
    text = FENCED_BLOCK.sub(resolved, text) if HUNK.search(text) else text
    return BARE_RUN.sub(bare, text) if "\n+" in text else text


def edited_settings(calls: list[dict]) -> str:
    """The settings a turn's edit calls change, as one diff (empty when they change none): a coding agent edits
    configuration with a tool (Claude Code's ``Edit`` and ``MultiEdit``, Codex's ``apply_patch``) and often says
    the values in no words. Code that is not a setting is left out: the repository keeps it, a card would only
    repeat it."""
    hunks = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        arguments = call.get("arguments")
        if call.get("name") in ("Edit", "MultiEdit") and isinstance(arguments, dict):
            edits = arguments.get("edits") if call["name"] == "MultiEdit" else [arguments]
            for edit in edits if isinstance(edits, list) else ():
                if isinstance(edit, dict) and isinstance(edit.get("old_string"), str) \
                        and isinstance(edit.get("new_string"), str):
                    hunks.append((str(arguments.get("file_path") or ""),
                                  [f"-{line}" for line in edit["old_string"].splitlines()]
                                  + [f"+{line}" for line in edit["new_string"].splitlines()]))
        elif call.get("name") == "apply_patch" and isinstance(arguments, dict) and isinstance(
                arguments.get("input"), str):
            changed: list[str] | None = None  # the lines of this patch's current file
            for line in arguments["input"].splitlines():
                named = PATCHED_FILE.match(line)
                if named:
                    changed = []
                    hunks.append((named.group(1), changed))
                elif line[:1] in ("-", "+") and changed is not None:
                    changed.append(line)
    lines = []
    for path, changed in hunks:
        settings = [line for line in changed if setting_of(line[1:])]
        if any(line.startswith("+") for line in settings):
            lines += [f"+++ {path}" if path else "", "@@ -1 +1 @@", *settings]
    return "\n".join(line for line in lines if line)


def _comment_off(line: str) -> tuple[str, str]:
    """``line`` and its trailing comment (``PURGE_TIMEOUT_S = 5  # hel1 needs 2-3 s``), apart."""
    found = COMMENT.search(line)
    return (line[:found.start()].rstrip(), found.group(1)) if found else (line, "")


def _value(value: str) -> str:
    """A setting's value without its trailing comment."""
    return _comment_off(value)[0].strip()


def _sets_anew(run: str) -> bool:
    """Whether a run of ``-``/``+`` lines adds a setting a removed line set to another value (its comment aside, as
    :func:`added_lines` compares them): a diff, not a list."""
    removed = {setting.group(1): _value(setting.group(3)) for line in run.splitlines()
               if line.startswith("-") and (setting := setting_of(line[1:]))}
    return any(removed.get(setting.group(1), _value(setting.group(3))) != _value(setting.group(3))
               for line in run.splitlines() if line.startswith("+") and (setting := setting_of(line[1:])))


def added_lines(diff: str, chinese: bool = False) -> list[str]:
    """The file ``diff`` changes and the lines it adds, markers off; an added setting whose name a removed line of
    the same hunk set to another value says that value."""
    removed: dict[str, str] = {}
    added = []
    for line in diff.splitlines():
        changed_file = NEW_FILE.match(line)
        if changed_file and changed_file.group(1) != "/dev/null":
            added.append(changed_file.group(1))
            continue
        if FILE_HEADER.match(line) or line.startswith("@@"):
            removed = {} if line.startswith("@@") else removed
            continue
        if line.startswith("-"):
            setting = setting_of(line[1:])
            if setting:
                removed[setting.group(1)] = setting.group(3)
        elif line.startswith("+"):
            line = line[1:]
            setting = setting_of(line)
            before = removed.get(setting.group(1)) if setting else None
            if before is not None and _value(before) != _value(setting.group(3)):
                code, comment = _comment_off(line.rstrip())
                opening, closing = MARKS[chinese]
                marked = f"{code}{opening}{_value(before)}{closing}"
                line = marked if not comment else f"{marked} {comment}"
            if line.strip():
                added.append(line)
    return added
