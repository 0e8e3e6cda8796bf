"""Key-to-screen time of the explorer (``alaya tui``) on synthetic stores of 1k, 10k and 100k cards (``--quick``: 1k).

The app runs headless (Textual's test driver, 120×36) against a warm owner server of the store, as ``alaya tui``
does. Two rows per store:

- *screen switch*: a digit key (``2``, ``3``, ``4``, ``1`` in turn) until the new screen is mounted and laid out,
  measured by polling the app from its own event loop every 2 ms (the screen shows at once with its loading state;
  its figures follow from a worker);
- *query*: Enter in the query bar until the results of that query are in the results table (a free-text recall
  through the server, the table drawn).

Each sample is wall time from the key event being posted to the condition holding; p50 and p95 over the samples.
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
MODE_KEYS = {"2": "status", "3": "tiers", "4": "review", "1": "explore"}


async def _until(condition, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the explorer did not get there in time")
        await asyncio.sleep(POLL)


async def _measure(home, switches: int, queries: list[str]) -> tuple[list[float], list[float]]:
    from textual.widgets import Input

    from alaya_engine.server.backend import open_backend
    from alaya_tui.app import MODE_SCREENS, AlayaApp
    from alaya_tui.widgets.results_table import ResultsTable

    app = AlayaApp(open_backend(home))
    switching, querying = [], []
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        for number in range(switches):
            key = list(MODE_KEYS)[number % len(MODE_KEYS)]
            wanted = MODE_SCREENS[MODE_KEYS[key]]
            started = time.perf_counter()
            pressing = asyncio.create_task(pilot.press(key))
            await _until(lambda: isinstance(app.screen, wanted) and app.screen.is_mounted
                         and app.screen.size.width > 0)
            switching.append((time.perf_counter() - started) * 1000)
            await pressing
            await app.workers.wait_for_complete()
        screen = app.screen
        for text in queries:
            screen.query_one("#query", Input).focus()
            screen.query_one("#query", Input).value = text
            started = time.perf_counter()
            pressing = asyncio.create_task(pilot.press("enter"))
            await _until(lambda: screen.request == {"text": text}
                         and screen.query_one("#results", ResultsTable).nodes == screen.result["nodes"])
            querying.append((time.perf_counter() - started) * 1000)
            await pressing
            await app.workers.wait_for_complete()
    return switching, querying


def run(plan: Plan) -> list[Row]:
    rows = []
    switches, query_count = plan.pick(4, 40), plan.pick(2, 20)
    for size in plan.sizes:
        with plan.stores.synthetic(size) as home, owner_server(home):
            queries = list(dict.fromkeys(free_text_queries(query_count)))  # each a new step
            switching, querying = asyncio.run(_measure(home, switches, queries))
        label = size_label(size)
        for what, samples in (("screen switch", switching), ("query", querying)):
            p50, p95 = median_p95(samples)
            rows.append(Row(NAME, f"{label}: key to {what} (tui, warm server)", p50, "ms p50",
                            f"p95 {p95:.0f} ms over {len(samples)} keys"))
    return rows
