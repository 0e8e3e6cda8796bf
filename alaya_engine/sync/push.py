"""``alaya push [NAME]``: this machine's shared part of L3, masked, onto the remote.

The part is rebuilt from L3 on top of the remote's latest commit (see :mod:`.tree`) and committed; a push the
remote rejects because another machine pushed meanwhile starts again from the new tip, a few times, so nothing
anyone pushed is ever overwritten. ``--dry-run`` builds the part and reports what it would send and what the masker
would hide, and touches nothing (it needs no remote yet: what would leave the machine can be checked first).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..foundations.domain import millis_now
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.machine import machine_id
from ..foundations.paths import Layout
from .export_cache import ExportCache
from .git import last_line
from .remotes import BRANCH, Remote, checkout_tip, find_remote, names, sync_lock
from .tree import Export, build_export, own_paths

ATTEMPTS = 6
REJECTED = ("[rejected]", "non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref")


def push(layout: Layout, config: dict, name: str | None = None, dry_run: bool = False) -> dict:
    started, machine = time.perf_counter(), machine_id(layout.home)
    with sync_lock(layout, config):
        remote = None if dry_run and name is None and not names(layout) else find_remote(layout, config, name)
        cache = None if dry_run else ExportCache(layout.home / "sync" / "export-cache.json", remote.git.folder)
        export = build_export(layout, config["share"], machine, cache)
        report = {"remote": remote and remote.name, "url": remote and remote.url(), "machine": machine,
                  "dry_run": dry_run,
                  "sessions_shared": export.shared, "sessions_private": export.private,
                  "sessions_reused": export.reused,
                  "journal_events": export.events, "masked": export.masked, "changed_files": 0,
                  "commit": None, "attempts": 0}
        if not dry_run:
            report.update(_push(remote, export, machine))
            remote.save_state(last_push=millis_now())
            cache.save()
    report["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return report


def _push(remote: Remote, export: Export, machine: str) -> dict:
    git = remote.git
    for attempt in range(1, ATTEMPTS + 1):
        checkout_tip(remote)
        changed = _write_part(git.folder, export, machine)
        git.run("add", "-A")
        if git.run("diff", "--cached", "--quiet", check=False).returncode == 0:
            return {"changed_files": 0, "commit": None, "attempts": attempt}
        git.run("commit", "-q", "--no-verify", "-m",
                f"alaya push from {machine}: {export.shared} shared sessions, {export.events} journal events")
        result = git.run("push", "-q", "--porcelain", "origin", f"HEAD:refs/heads/{BRANCH}", check=False)
        if result.returncode == 0:
            commit = git.run("rev-parse", "HEAD").stdout.strip()
            return {"changed_files": changed, "commit": commit, "attempts": attempt}
        if not any(marker in result.stdout + result.stderr for marker in REJECTED):
            raise AlayaError("git_failed", f"git push failed: {last_line(result)}", RUNTIME)
        time.sleep(0.05 * attempt)  # another machine pushed meanwhile: start again from its commit
    raise AlayaError("push_rejected", f"the remote rejected {ATTEMPTS} pushes in a row (other machines pushing "
                                      "meanwhile); run alaya push again", RUNTIME)


def _write_part(tree: Path, export: Export, machine: str) -> int:
    """Make this machine's part of the working copy exactly ``export``; returns how many files changed."""
    present = set()
    for own in own_paths(machine):
        path = tree / own
        present |= {item for item in path.rglob("*") if item.is_file()} if path.is_dir() else \
            ({path} if path.is_file() else set())
    changed = 0
    for relative, data in export.files.items():
        path = tree / relative
        present.discard(path)
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)  # a cache of L3: a torn file is rewritten by the next push
            changed += 1
    for stale in present:  # a session made private, or deleted, since the last push
        stale.unlink()
        changed += 1
    return changed
