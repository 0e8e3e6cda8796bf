"""What ``alaya status`` says about sharing: this machine's id and, per remote, the last push and pull, what is
ahead (sessions stored here since the last push) and behind (other machines' pushes fetched and not yet pulled).

It never touches the network: "behind" counts what the last push or pull fetched, which is what the working copy
knows.
"""

from __future__ import annotations

import os

from ..foundations.errors import AlayaError
from ..foundations.machine import machine_id
from ..foundations.paths import Layout
from .remotes import BRANCH, find_remote, names
from .tree import PARTS


def sync_status(layout: Layout, config: dict) -> dict:
    machine = machine_id(layout.home)
    remotes = []
    for name in names(layout):
        remote = find_remote(layout, config, name)
        state = remote.state()
        pulled = {path.rsplit("/", 1)[-1] for path in state.get("pulled", {}) if path.startswith(f"{PARTS[0]}/")}
        since = (state.get("last_push") or 0) / 1000
        ahead = sum(1 for path in layout.sessions.glob("*/session-*.json")
                    if path.name not in pulled and os.stat(path).st_mtime > since)
        behind = None
        try:
            counted = remote.git.run("rev-list", "--count", "--invert-grep", f"--grep=alaya push from {machine}:",
                                     f"{state['pulled_commit']}..refs/remotes/origin/{BRANCH}"
                                     if state.get("pulled_commit") else f"refs/remotes/origin/{BRANCH}", check=False)
            behind = int(counted.stdout.strip()) if counted.returncode == 0 else 0
        except (AlayaError, ValueError):
            behind = None
        remotes.append({"name": name, "url": remote.url(), "last_push": state.get("last_push"),
                        "last_pull": state.get("last_pull"), "sessions_ahead": ahead, "pushes_behind": behind})
    return {"machine": machine, "remotes": remotes}
