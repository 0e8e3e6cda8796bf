"""``alaya remote add|list|remove``: the git remotes this store shares its memory through.

Each remote is a working copy of its own under ``<home>/sync/remotes/<name>/`` whose git remote ``origin`` is the
URL; what Alaya remembers of it (last push and pull, the files a pull has taken) is in that copy's ``.git`` folder,
so removing a remote removes everything about it. The working copy is a cache: the store's L3 is the truth, and a
push or pull resets it to the remote's branch first.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..foundations.atomic import atomic_write_json
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.lock import StoreLock
from ..foundations.machine import machine_id
from ..foundations.paths import Layout
from .git import Git
from .mask import mask_text

BRANCH = "main"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")


@dataclass
class Remote:
    name: str
    git: Git

    @property
    def state_file(self) -> Path:
        return self.git.folder / ".git" / "alaya-sync.json"

    def state(self) -> dict:
        try:
            return json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    def save_state(self, **changes) -> None:
        atomic_write_json(self.state_file, {**self.state(), **changes})

    def url(self) -> str:
        """The remote's URL as shown in reports: a token or password in it is masked."""
        return mask_text(self.git.run("config", "--get", "remote.origin.url", check=False).stdout.strip())[0]


def remotes_dir(layout: Layout) -> Path:
    return layout.home / "sync" / "remotes"


def sync_lock(layout: Layout, config: dict) -> StoreLock:
    """One push, pull or remote change at a time per store (the working copies are shared by them); its holder is
    named to whoever waits past ``lock.wait_seconds``."""
    remotes_dir(layout).mkdir(parents=True, exist_ok=True)
    return StoreLock(layout.home / "remotes.lock", config["lock"]["wait_seconds"], command="alaya push/pull")


def _remote(layout: Layout, config: dict, name: str) -> Remote:
    return Remote(name, Git(remotes_dir(layout) / name, config["sync"]["git_timeout_s"], machine_id(layout.home)))


def names(layout: Layout) -> list[str]:
    folder = remotes_dir(layout)
    return sorted(path.name for path in folder.iterdir() if (path / ".git").is_dir()) if folder.is_dir() else []


def find_remote(layout: Layout, config: dict, name: str | None) -> Remote:
    """The remote called ``name``; without a name, the only one (or ``origin`` among several)."""
    known = names(layout)
    if name is None:
        if not known:
            raise AlayaError("no_remote", "this store has no remote yet; add one: alaya remote add origin URL")
        name = known[0] if len(known) == 1 else "origin"
        if name not in known:
            raise AlayaError("which_remote", f"this store has remotes {', '.join(known)}; name the one to use")
    if name not in known:
        raise AlayaError("unknown_remote", f"no remote '{name}'" + (f"; known: {', '.join(known)}" if known else
                                                                     "; add it: alaya remote add NAME URL"))
    return _remote(layout, config, name)


def checkout_tip(remote: Remote) -> str | None:
    """Fetch, then make the working copy exactly the remote's branch (or empty while the remote has none):
    whatever a killed push or pull left there is dropped. Returns the tip's commit, or None."""
    git = remote.git
    git.clear_stale_locks()
    git.run("fetch", "-q", "--prune", "origin")
    tip = git.run("rev-parse", "--verify", "-q", f"refs/remotes/origin/{BRANCH}^{{commit}}", check=False)
    if tip.returncode == 0:
        git.run("checkout", "-q", "-f", "-B", BRANCH, f"refs/remotes/origin/{BRANCH}")
        git.run("clean", "-q", "-f", "-d", "-x")
        return tip.stdout.strip()
    git.run("symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")
    git.run("update-ref", "-d", f"refs/heads/{BRANCH}", check=False)
    git.run("read-tree", "--empty")
    git.run("clean", "-q", "-f", "-d", "-x")
    return None


def add_remote(layout: Layout, config: dict, name: str, url: str) -> dict:
    """Create the working copy, point it at ``url`` and check that the remote answers."""
    if not NAME.fullmatch(name or ""):
        raise AlayaError("bad_remote_name", f"'{name}' cannot name a remote; use letters, digits, '.', '_' or '-'")
    if not url or url.startswith("-") or any(ord(char) < 32 for char in url):
        raise AlayaError("bad_url", f"'{url}' is not a git URL; give one like git@host:team/memory.git, "
                                    "https://host/team/memory.git or a path to a bare repository")
    with sync_lock(layout, config):
        if name in names(layout):
            raise AlayaError("remote_exists", f"remote '{name}' already exists; remove it first: "
                                              f"alaya remote remove {name}")
        remote = _remote(layout, config, name)
        shutil.rmtree(remote.git.folder, ignore_errors=True)  # a copy a killed `remote add` left half made
        remote.git.folder.mkdir(parents=True)
        try:
            remote.git.run("init", "-q", "-b", BRANCH)
            remote.git.run("remote", "add", "origin", "--", url)
            remote.git.run("ls-remote", "--heads", "origin")
        except AlayaError as error:
            shutil.rmtree(remote.git.folder, ignore_errors=True)
            raise AlayaError("remote_unreachable", f"cannot reach {mask_text(url)[0]}: {error.message}",
                             RUNTIME) from None
    return {"name": name, "url": mask_text(url)[0], "added": True}


def list_remotes(layout: Layout, config: dict) -> dict:
    remotes = []
    for name in names(layout):
        remote = _remote(layout, config, name)
        state = remote.state()
        remotes.append({"name": name, "url": remote.url(), "last_push": state.get("last_push"),
                        "last_pull": state.get("last_pull")})
    return {"machine": machine_id(layout.home), "remotes": remotes}


def remove_remote(layout: Layout, config: dict, name: str) -> dict:
    """Forget a remote (its working copy); the remote itself and what was pulled from it stay."""
    with sync_lock(layout, config):
        remote = find_remote(layout, config, name)
        url = remote.url()
        shutil.rmtree(remote.git.folder)
    return {"name": name, "url": url, "removed": True}
