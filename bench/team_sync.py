"""Sharing a memory through a git remote: push and pull of 200 new sessions, a push with nothing new, and a fresh
machine rebuilding from a remote of 1,000 sessions; the secret masker measured on its labelled file. Named with
``--only``, 1,000 and 10,000 sessions (:meth:`bench.plan.Plan.thorough`): the fresh machine's pull then takes most of
an hour.

Three stores of this run and a bare repository in the scratch folder; each step is one engine call, in-process
(the command line adds its ~0.2 s start). Sessions are the ``ingest`` benchmark's generated ones. The first ones
are ingested and distilled offline on the first machine, so their push carries records and their pull replays them
instead of distilling again. The rest of the large remote are written straight into the first machine's L3
(what an ingest stores there, without its graph and windows): only L3 travels, and ingesting them there first would
only double the run's longest step. The fresh machine's pull is the whole rebuild: ingest (L3, graph, the windows
of raw turns embedded), the records replayed, the graph and vectors converged.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from pathlib import Path

from alaya_engine.api import call
from alaya_engine.engine import Engine
from alaya_engine.raw.formats import parse_session_json
from alaya_engine.sync.mask import mask_text

from .ingest import generate_sessions
from .plan import Plan
from .report import Row

NAME = "team_sync"
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "secrets.jsonl"


def masker_rows() -> list[Row]:
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    secrets = [row for row in rows if row["secret"]]
    others = [row for row in rows if not row["secret"]]
    hidden = sum(row["secret"] not in mask_text(row["text"])[0] for row in secrets)
    false = sum(mask_text(row["text"])[0] != row["text"] for row in others)
    return [Row(NAME, f"secrets masked ({len(secrets)} labelled)", 100 * hidden / len(secrets), "%", "target ≥ 99"),
            Row(NAME, f"look-alikes masked by mistake ({len(others)} labelled)", 100 * false / len(others), "%",
                "hashes, commit ids, UUIDs, versions, paths; target ≤ 2")]


def _timed(engine: Engine, method: str, **params) -> tuple[float, dict]:
    started = time.perf_counter()
    document = call(engine, method, params)
    return time.perf_counter() - started, document


def _unchanged_push(engine: Engine, repeats: int) -> float:
    """Median of ``repeats`` pushes with nothing new: what cron pays every few minutes."""
    times = []
    for _ in range(repeats):
        seconds, pushed = _timed(engine, "push")
        assert pushed["changed_files"] == 0, pushed
        times.append(seconds)
    return statistics.median(times)


def _store_directly(engine: Engine, paths: list[str]) -> None:
    for path in paths:
        engine.raw.write(parse_session_json(json.loads(Path(path).read_text(encoding="utf-8"))))


def run(plan: Plan) -> list[Row]:
    rows = masker_rows()
    thorough = plan.thorough(NAME)
    new, large = plan.pick(4, 1_000 if thorough else 200), plan.pick(8, 10_000 if thorough else 1_000)
    repeats = plan.pick(1, 3)
    scratch = plan.stores.scratch / "team-sync"
    remote = scratch / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, timeout=60)
    with plan.stores.empty() as home_a, plan.stores.empty() as home_b, plan.stores.empty() as home_c:
        first, second, fresh = (Engine.open(home) for home in (home_a, home_b, home_c))
        for engine in (first, second, fresh):
            call(engine, "remote.add", {"name": "origin", "url": str(remote)})
        paths = generate_sessions(scratch / "sessions", large)
        first.ingest(paths[:new])
        first.distill()
        push_s, pushed = _timed(first, "push")
        again_s = _unchanged_push(first, repeats)
        pull_s, pulled = _timed(second, "pull")
        assert pulled["sessions"].get("ingested") == new and pulled["records"] == new, pulled
        _store_directly(first, paths[new:])
        push_large_s, pushed_large = _timed(first, "push")
        again_large_s = _unchanged_push(first, repeats)
        catch_up_s, caught = _timed(fresh, "pull")
        assert caught["sessions"].get("ingested") == large and caught["records"] == new, caught
        windows = fresh.turn_windows().count()
    median = f"median of {repeats}" if repeats > 1 else "one run"
    return rows + [
        Row(NAME, f"push of {new} new distilled sessions", push_s, "s", f"{pushed['changed_files']} files, masked"),
        Row(NAME, f"push with nothing new, {new} sessions stored", again_s, "s", median),
        Row(NAME, f"pull of {new} new sessions", pull_s, "s", "ingest + windows embedded; records replayed"),
        Row(NAME, f"push of {large - new} more sessions ({large} stored)", push_large_s, "s",
            f"{pushed_large['changed_files']} files"),
        Row(NAME, f"push with nothing new, {large} sessions stored", again_large_s, "s", median),
        Row(NAME, f"fresh machine pulls a remote of {large} sessions", catch_up_s, "s",
            f"one pull: ingest of every session, {windows} windows embedded, {new} records replayed"),
    ]
