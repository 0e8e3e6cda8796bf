"""Key-to-screen time of the explorer (``alaya tui``) on the largest synthetic store of the run (100k cards;
``--quick``: 1k).

The app runs headless (Textual's test driver, 120×36) against a warm owner server of the store, as ``alaya tui``
does. Two rows:

- *screen switch*: a digit key (``2`` … ``5``, then ``1``, in turn) until the new screen is mounted and laid out,
  measured by polling the app from its own event loop every 2 ms (a screen shows at once with its loading state;
  its figures follow from a worker);
- *query*: Enter in the query bar until the results of that query are in the results table (a free-text recall
  through the server, the table drawn). The bar is focused and filled, and the app left to settle, before the
  clock starts, as when a person types the query: moving the focus redraws the footer (100–200 ms on a loaded
  machine), which is the ``/`` key's work, not the query's.

Both start once the app has built every screen ahead (``AlayaApp.built_modes``), a few seconds after it opens.

Each sample is wall time from the key event being posted to the condition holding; p50 and p95 over the samples,
against the targets of 150 ms (switch) and 300 ms (query) at p95.
"""

from __future__ import annotations

import asyncio
import time

from .plan import Plan, size_label
from .processes import owner_server
from .report import Row, median_p95
from .synthetic import free_text_queries

NAME = "explorer_keys"
SIZE = (120, 36)
POLL = 0.002
MODE_KEYS = {"2": "status", "3": "tiers", "4": "review", "5": "timeline", "1": "explore"}
TARGETS_MS = {"screen switch": 150, "query": 300}
START_TIMEOUT = 120


async def _until(condition, app, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            said = [str(widget.content) for widget in app.screen.query("#explore-message")]
            raise TimeoutError(f"the explorer did not get there in time (on {type(app.screen).__name__}: {said})")
        await asyncio.sleep(POLL)


async def _measure(client, switches: int, queries: list[str]) -> tuple[dict[str, list[float]], list[float]]:
    """The app on the owner server's client itself (``ALAYA_NO_SERVER``, which the test suite sets, must not turn it
    into an in-process engine waiting for the server's store lock)."""
    from textual.widgets import Input

    from alaya_engine.server.backend import RemoteBackend
    from alaya_tui.app import MODE_SCREENS, AlayaApp
    from alaya_tui.widgets.results_table import ResultsTable

    app = AlayaApp(RemoteBackend(client, START_TIMEOUT))
    switching: dict[str, list[float]] = {}
    querying: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: app.built_modes >= set(MODE_SCREENS), app)  # built ahead after the first screen
        await app.workers.wait_for_complete()
        await pilot.press("escape")  # no text is edited: the digits switch screens
        for number in range(switches):
            key = list(MODE_KEYS)[number % len(MODE_KEYS)]
            wanted = MODE_SCREENS[MODE_KEYS[key]]
            started = time.perf_counter()
            pressing = asyncio.create_task(pilot.press(key))
            await _until(lambda: isinstance(app.screen, wanted) and app.screen.is_mounted
                         and app.screen.size.width > 0, app)
            switching.setdefault(MODE_KEYS[key], []).append((time.perf_counter() - started) * 1000)
            await pressing
            await app.workers.wait_for_complete()
        screen = app.screen
        for text in queries:
            screen.query_one("#query", Input).focus()
            screen.query_one("#query", Input).value = text
            await pilot.pause()  # the query bar focused and typed in before Enter, as a person does
            started = time.perf_counter()
            pressing = asyncio.create_task(pilot.press("enter"))
            await _until(lambda: screen.request == {"text": text}
                         and screen.query_one("#results", ResultsTable).nodes == screen.result["nodes"], app)
            querying.append((time.perf_counter() - started) * 1000)
            await pressing
            await app.workers.wait_for_complete()
    return switching, querying


def run(plan: Plan) -> list[Row]:
    size = max(plan.sizes)
    switches, query_count = plan.pick(5, 50), plan.pick(2, 20)
    with plan.stores.synthetic(size) as home, owner_server(home) as server:
        queries = list(dict.fromkeys(free_text_queries(query_count)))  # each a new step
        switching, querying = asyncio.run(_measure(server.client, switches, queries))
    screens = ", ".join(f"{mode} {median_p95(samples)[1]:.0f}" for mode, samples in switching.items())
    rows = []
    for what, samples, by_screen in (("screen switch", [ms for got in switching.values() for ms in got],
                                      f"; p95 by screen (ms): {screens}"), ("query", querying, "")):
        p50, p95 = median_p95(samples)
        verdict = "within" if p95 <= TARGETS_MS[what] else "over"
        rows.append(Row(NAME, f"{size_label(size)}: key to {what} p95 (tui, warm server)", round(p95), "ms p95",
                        f"p50 {p50:.0f} ms over {len(samples)} keys; {verdict} the {TARGETS_MS[what]} ms "
                        f"target{by_screen}"))
    return rows
