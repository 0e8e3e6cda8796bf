"""Every ``alaya`` command shown in the README and docs/ runs, and the README's "your own memory in three
commands" works on a fresh home through the installed console script.

Conventions the docs follow (and this test reads):

- Examples are the lines of fenced ``bash``/``sh``/``console`` blocks that run ``alaya`` (at the start of the line,
  or after ``|``, ``&&`` or ``;``). Cron lines and other tools' commands (``crontab -e``, ``claude mcp add``) are not
  examples of ours.
- A line carrying a ``# needs: network`` or ``# needs: llm`` comment is skipped here (it needs what CI lacks).
- ``CARD_ID`` stands for a card id; the test puts in a card of the demo store.
- A fenced ``json`` block right after text ending in ```NAME.json`:`` ("save this one as ``first.json``:") is the
  file ``NAME.json`` that later examples read; examples run in a folder holding those files.
- Besides ``alaya``, a line may use ``echo … |`` (stdin) and ``> FILE``; anything else fails the test: show it
  another way or mark what it needs.

The examples run in-process (Typer's CliRunner) against a copy of the demo store given as ``ALAYA_HOME``, so the
whole file takes seconds, not a process start per example.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from alaya_cli.app import app

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BLOCKS = {"bash", "sh", "shell", "console"}
RUNS_ALAYA = re.compile(r"(^|\||&&|;)\s*alaya\s")
NEEDS = re.compile(r"#\s*needs:\s*(\w+)")
SAVED_AS = re.compile(r"`([\w.-]+\.jsonl?)`:\s*$")


def fenced_blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, body, the line just before the block) for each fenced block of a page."""
    blocks = []
    for match in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.S | re.M):
        before = text[:match.start()].rstrip().rsplit("\n", 1)[-1]
        blocks.append((match.group(1).strip(), match.group(2), before))
    return blocks


def examples(text: str) -> list[str]:
    return [line.strip() for language, body, _ in fenced_blocks(text) if language in SHELL_BLOCKS
            for line in body.splitlines() if RUNS_ALAYA.search(line.strip())]


def saved_files(text: str) -> dict[str, str]:
    return {SAVED_AS.search(before).group(1): body for language, body, before in fenced_blocks(text)
            if language.startswith("json") and SAVED_AS.search(before)}


TEXTS = {page.relative_to(ROOT).as_posix(): page.read_text(encoding="utf-8") for page in PAGES}
ALL_EXAMPLES = [(page, line) for page, text in TEXTS.items() for line in examples(text)]


def run_example(line: str, env: dict[str, str]) -> list[str]:
    """Run one example line in-process; returns what went wrong (nothing when it worked)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    tokens = list(lexer)
    problems = []
    for command in _split(tokens, "&&"):
        stdin, output = None, None
        stages = _split(command, "|")
        for stage in stages[:-1]:
            if stage[:1] != ["echo"]:
                return [f"unsupported command {stage[0]!r}"]
            stdin = " ".join(stage[1:]) + "\n"
        last = stages[-1]
        if ">" in last:
            last, output = last[:last.index(">")], last[last.index(">") + 1]
        if last[:1] != ["alaya"]:
            return [f"unsupported command {last[0]!r}"]
        result = CliRunner().invoke(app, last[1:], input=stdin, env=env)
        if result.exit_code != 0:
            problems.append(f"exit {result.exit_code}: {result.stderr.strip() or result.stdout[-300:]}")
        elif "--json" in last:
            json.loads(result.stdout)
        if output:
            Path(output).write_text(result.stdout, encoding="utf-8")
    return problems


def _split(tokens: list[str], operator: str) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == operator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def test_the_docs_have_examples_and_mark_what_they_need():
    pages = {page for page, _ in ALL_EXAMPLES}
    assert {"README.md", "docs/recall.md", "docs/session-format.md"} <= pages and len(ALL_EXAMPLES) >= 10
    assert {NEEDS.search(line).group(1) for _, line in ALL_EXAMPLES if NEEDS.search(line)} <= {"network", "llm"}
    assert "first.json" in saved_files(TEXTS["README.md"])


def test_every_example_runs(demo_home, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    openclaw = tmp_path / "openclaw"
    openclaw.mkdir()
    env = {"ALAYA_HOME": str(demo_home), "OPENCLAW_STATE_DIR": str(openclaw),
           "ALAYA_DEMO_HOME": str(tmp_path / "demo")}
    card = next(node["card_id"] for node in json.loads(CliRunner().invoke(
        app, ["recall", "gateway restart telegram", "--json"], env=env).stdout)["nodes"] if node["kind"] == "card")
    failures, ran = [], 0
    for page, line in ALL_EXAMPLES:
        if NEEDS.search(line):
            continue
        for name, body in saved_files(TEXTS[page]).items():
            Path(name).write_text(body, encoding="utf-8")
        problems = run_example(line.replace("CARD_ID", card), env)
        failures += [f"{page}: {line}\n    {problem}" for problem in problems]
        ran += 1
    assert ran >= 8
    assert not failures, "\n".join(failures)


def readme_section(title: str) -> str:
    text = TEXTS["README.md"]
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


@pytest.mark.slow
def test_your_own_memory_in_three_commands_from_the_readme(tmp_path):
    """Copied from the README, run by the installed ``alaya`` in a shell, on a home that does not exist yet."""
    section = readme_section("Your own memory in three commands")
    files = saved_files(section)
    assert list(files) == ["first.json"]
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    commands = examples(section)
    assert [shlex.split(line, comments=True)[:2] for line in commands] == [["alaya", "init"], ["alaya", "ingest"],
                                                                           ["alaya", "recall"]]
    home = tmp_path / "my-memory"
    env = {**os.environ, "ALAYA_HOME": str(home), "ALAYA_NO_SERVER": "1",
           "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert shutil.which("alaya", path=env["PATH"])
    outputs = []
    for line in commands:
        done = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (line, done.stderr)
        assert "Traceback" not in done.stderr
        outputs.append(done.stdout)
    assert "Alaya is ready" in outputs[0] and (home / "config.json").exists()
    assert "1 ingested" in outputs[1] and "Distillation complete" in outputs[1]
    assert "[1] " in outputs[2] and "nginx" in outputs[2] and "Average h_distance" in outputs[2]
    first = outputs[2].split("[2] ")[0]  # as the README says: the cause card first, the problem on it
    assert "#gotcha" in first and "proxy_read_timeout" in first and "502" in first, outputs[2]
    assert "300s" in outputs[2] and "CAUSED_BY" in outputs[1], outputs
    last = outputs[2].strip().splitlines()[-1]  # as the README says: three results, nothing further to read
    assert "nothing further down" in last and "Next step" not in outputs[2], outputs[2]
