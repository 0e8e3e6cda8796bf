"""Sharing a memory through a git remote: push and pull of new sessions, a fresh machine catching up from a large
remote, and the secret masker measured on its labelled file.

Three stores of this run and a bare repository in the scratch folder; each step is one engine call, in-process
(the command line adds its ~0.2 s start). Sessions are the ``ingest`` benchmark's generated ones, distilled offline
on the first machine, so the push carries their records and the pull replays them instead of distilling again.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from alaya_engine.api import call
from alaya_engine.engine import Engine
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


def run(plan: Plan) -> list[Row]:
    rows = masker_rows()
    new, large = plan.pick(4, 1_000), plan.pick(8, 10_000)
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
        pull_s, pulled = _timed(second, "pull")
        assert pulled["sessions"].get("ingested") == new and pulled["records"] == new, pulled
        first.ingest(paths[new:])
        _timed(first, "push")
        catch_up_s, caught = _timed(fresh, "pull")
        assert caught["sessions"].get("ingested") == large, caught
    return rows + [
        Row(NAME, f"push of {new} new distilled sessions", push_s, "s", f"{pushed['changed_files']} files, masked"),
        Row(NAME, f"pull of {new} new sessions", pull_s, "s", "ingest + windows embedded; records replayed"),
        Row(NAME, f"fresh machine pulls a remote of {large} sessions", catch_up_s, "s",
            "one pull: ingest of every session, windows embedded"),
    ]
