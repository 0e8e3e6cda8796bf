"""The explorer as a whole: help that lists every key, the command palette, no store lock held while idle, and
``alaya demo`` opening it only on a terminal."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from fake_backend import demo_backend
from rich.cells import cell_len
from textual.binding import Binding
from textual.command import CommandList
from textual.widgets import Markdown
from textual.widgets._footer import FooterKey
from tui_store import SIZE, review_fixtures, settle

from alaya_engine.demo import FIRST_QUERY
from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import MODE_SCREENS, AlayaApp
from alaya_tui.palette import SCREENS
from alaya_tui.screens.card import CardScreen
from alaya_tui.screens.explore import ExploreScreen
from alaya_tui.screens.help import HelpScreen
from alaya_tui.screens.review import ReviewScreen
from alaya_tui.screens.tiers import TiersScreen

review_template, review_home = review_fixtures()
SNAPSHOT_TEXTUAL = "8.2.8"
MODE_KEYS = {"explore": "1", "status": "2", "tiers": "3", "review": "4"}


def as_binding(entry: Binding | tuple) -> Binding:
    return entry if isinstance(entry, Binding) else Binding(*entry)


async def test_help_lists_every_key_of_the_screen_and_of_the_app(tmp_path):
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # out of the query bar, so single letters are keys
        for mode, key in MODE_KEYS.items():
            await pilot.press(key)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MODE_SCREENS[mode])
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            text = app.screen.query_one("#help-text", Markdown).source
            assert screen.HELP.partition("\n")[2].strip() in text
            listed = {key for section in app.screen.sections for keys in section.keys.values() for key in keys}
            for binding in [*map(as_binding, screen.BINDINGS), *AlayaApp.BINDINGS]:
                if screen.check_action(binding.action, ()) is not False:  # a running job's keys show with it
                    assert app.get_key_display(binding) in listed, (mode, binding)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen


async def choose_in_palette(app, pilot, typed: str, expected: str) -> None:
    """Type into the command palette, wait until the first hit mentions ``expected``, and take it."""
    await pilot.press("ctrl+p", *typed)
    hits = app.screen.query_one(CommandList)
    for _ in range(100):  # card search waits for typing to pause, then asks the engine
        await pilot.pause(0.05)
        if hits.option_count and expected in str(hits.get_option_at_index(0).prompt):
            break
    else:
        pytest.fail(f"no palette hit for {typed!r} mentions {expected!r}")
    await pilot.press("enter")
    await settle(app, pilot)


async def test_palette_opens_screens_cards_by_title_and_other_stores(review_home, home):
    app = AlayaApp(LocalBackend(review_home))
    async with app.run_test(size=SIZE) as pilot:
        await choose_in_palette(app, pilot, "tiers", "Go to Tiers")
        assert isinstance(app.screen, TiersScreen)

        await choose_in_palette(app, pilot, "restart drops", "card-restart")
        assert isinstance(app.screen, CardScreen) and app.screen.card_id == "card-restart"
        assert app.current_mode == "explore"

        await choose_in_palette(app, pilot, str(home), "Switch home")
        for _ in range(40):  # the store opens in a worker, then every screen is rebuilt
            await settle(app, pilot)
            if Path(app.backend.home) == home:
                break
        assert app.sub_title == str(home) and isinstance(app.screen, ExploreScreen)
        await pilot.press("escape", "4")
        await settle(app, pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.suggestions == []


def test_the_palette_goes_to_every_screen_in_the_order_of_their_digits():
    assert [mode for mode, _label, _purpose in SCREENS] == list(MODE_SCREENS)


@pytest.mark.slow
async def test_agents_and_cron_keep_working_while_the_explorer_is_open(review_home):
    """``alaya recall --json`` and ``alaya introspect`` in their own processes, against the open app's store."""
    config_file = review_home / "config.json"
    config = json.loads(config_file.read_text())
    config["lock"]["wait_seconds"] = 2.0  # a lock held by the app would fail them in 2 s, not hang them
    config_file.write_text(json.dumps(config))
    alaya = [sys.executable, "-m", "alaya_cli", "--home", str(review_home)]
    app = AlayaApp(LocalBackend(review_home))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(app, pilot)
        await pilot.press("4")  # list, evidence and titles loaded: the app has used the store and is idle now
        await settle(app, pilot)
        assert app.screen.query_one("#evidence").suggestion is not None
        for command in (["recall", "--json", "gateway restart"], ["introspect", "--json"]):
            child = await asyncio.create_subprocess_exec(*alaya, *command, stdout=subprocess.PIPE,
                                                         stderr=subprocess.PIPE)
            stdout, stderr = await asyncio.wait_for(child.communicate(), timeout=120)
            assert child.returncode == 0, f"alaya {command[0]} failed while the app was open: {stderr.decode()}"
            document = json.loads(stdout)
            assert document["nodes"] if command[0] == "recall" else "forget" in document["steps"]
        await pilot.press("R")  # and the app still works on the changed store
        await settle(app, pilot)
        assert app.screen.suggestions == LocalBackend(review_home).call(
            "review.list", {"status": "pending"})["suggestions"]


def run_on_a_terminal(args: list[str], wait_for: bytes, keys: bytes, timeout: float = 90) -> tuple[int, bytes]:
    """Run ``args`` with a 120×36 pseudo-terminal as stdin/stdout/stderr; type ``keys`` once ``wait_for`` shows."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    child = subprocess.Popen(args, stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True,
                             env={**os.environ, "TERM": "xterm-256color"})
    os.close(terminal)
    output, typed, deadline = b"", False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not typed and wait_for in output:
                os.write(controller, keys)
                typed = True
            if select.select([controller], [], [], 0.2)[0]:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            elif child.poll() is not None:
                break
        return child.wait(timeout=30), output
    finally:
        if child.poll() is None:
            child.kill()
        os.close(controller)


@pytest.mark.slow
def test_demo_opens_the_explorer_on_a_terminal_and_never_when_piped(demo_home):
    alaya = [sys.executable, "-m", "alaya_cli", "demo", "--demo-home", str(demo_home)]
    piped = subprocess.run(alaya, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert piped.returncode == 0 and "Alaya demo at" in piped.stdout and "\x1b[?1049h" not in piped.stdout

    code, output = run_on_a_terminal(alaya, wait_for=b"ecall: free text", keys=b"\x11")  # ctrl+q quits
    assert code == 0, output[-2000:]
    assert b"Alaya demo" in output and b"ecall: free text" in output  # the demo's report, then the app

    code, output = run_on_a_terminal([*alaya, "--no-tui"], wait_for=b"\x00", keys=b"")
    assert code == 0 and b"Alaya demo" in output and b"ecall: free text" not in output


@pytest.mark.skipif(version("textual") != SNAPSHOT_TEXTUAL,
                    reason=f"the help snapshot was recorded with textual {SNAPSHOT_TEXTUAL}")
def test_help_snapshot(review_home, snap_compare):
    async def open_help(pilot) -> None:
        await pilot.press("escape", "4")
        await settle(pilot.app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(AlayaApp(LocalBackend(review_home)), terminal_size=SIZE, run_before=open_help)


async def test_every_screens_footer_fits_in_80_columns(tmp_path):
    """Explore (query bar, results, explorable), a card with its trace, its neighbourhood, Status, Tiers, Review,
    the timeline and a tier's cards at 80×24: the footer's last key ends inside the screen, so no key is cut off."""
    app = AlayaApp(demo_backend(tmp_path))

    async def footer_fits(where: str) -> None:
        await settle(app, pilot)
        keys = [key for key in app.screen.query(FooterKey) if key.display]
        assert keys and max(key.region.right for key in keys) <= 80, where

    async with app.run_test(size=(80, 24)) as pilot:
        await footer_fits("explore, query bar")
        await pilot.press("slash", *FIRST_QUERY, "enter")
        await footer_fits("explore, results")
        await pilot.press("tab")
        await footer_fits("explore, explorable")
        await pilot.press("shift+tab", "enter")
        await footer_fits("card")
        await pilot.press("t")
        await footer_fits("card with its trace")
        await pilot.press("g")
        await footer_fits("neighbourhood")
        for key in ("2", "3", "4", "5"):
            await pilot.press(key)
            await footer_fits(f"screen {key}")
        await pilot.press("3", "enter")
        await footer_fits("the cards of a tier")


async def test_help_shows_keys_verbatim_and_explains_the_numbers(tmp_path):
    """Keys such as ``[`` are text, not markup; every line is the keys, padded to one column, then the description."""
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        for section in help_screen.sections:
            shown = {" / ".join(dict.fromkeys(keys)): description for (_, description), keys in section.keys.items()}
            width = max(map(cell_len, shown))
            lines = section.content().plain.split("\n")
            assert lines == [keys + " " * (width - cell_len(keys)) + "  " + description
                             for keys, description in shown.items()]
        listed = "\n".join(section.content().plain for section in help_screen.sections)
        assert "[ / alt+←" in listed and "1 / f2 / e" in listed and "[/]" not in listed
        text = help_screen.query_one("#help-text", Markdown).source
        assert "**1 − h**" in text and "**rel_sim**" in text and "Tab" in text
