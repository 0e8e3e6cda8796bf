"""The ``git`` command, run without a shell, a terminal prompt or an unbounded wait.

Every call has a timeout (``sync.git_timeout_s``) after which git and whatever it started (ssh, a credential
helper) are killed as a process group; no call ever asks a question on the terminal (``GIT_TERMINAL_PROMPT=0``,
ssh in batch mode), so a missing key or token fails at once with git's own words. Alaya's commits name the
machine through ``-c user.name/user.email`` on the command itself, never in the user's git configuration.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..foundations.errors import RUNTIME, AlayaError
from .mask import mask_text

STALE_LOCKS = ("index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "shallow.lock")


@dataclass
class Git:
    folder: Path
    """The working copy git runs in (``-C``)."""
    timeout: float
    machine: str

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """``git -C folder args``; a failure (with ``check``) is an error quoting git's last line."""
        command = ["git", "-C", str(self.folder), "-c", f"user.name=Alaya ({self.machine})",
                   "-c", f"user.email=alaya@{self.machine}.invalid", "-c", "commit.gpgsign=false",
                   "-c", "core.quotepath=false", *args]
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_ASKPASS": "",
               "SSH_ASKPASS": "", "GCM_INTERACTIVE": "never"}
        env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
        try:
            child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, start_new_session=True)
        except FileNotFoundError:
            raise AlayaError("git_missing", "the git command is not installed; install git to share memory "
                                            "through a remote", RUNTIME) from None
        try:
            out, err = child.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            raise AlayaError("git_timeout", f"git {args[0]} did not finish in {self.timeout:g} s; check that the "
                                            "remote is reachable, or raise sync.git_timeout_s in config.json",
                             RUNTIME) from None
        result = subprocess.CompletedProcess(command, child.returncode, out.decode("utf-8", "replace"),
                                             err.decode("utf-8", "replace"))
        if check and result.returncode != 0:
            raise AlayaError("git_failed", f"git {args[0]} failed: {last_line(result)}", RUNTIME)
        return result

    def clear_stale_locks(self) -> None:
        """Remove the lock files a killed git left behind. Only ever called under the store's sync lock: no other
        git of Alaya's can be running in this working copy, so any lock there is stale."""
        meta = self.folder / ".git"
        for name in STALE_LOCKS:
            (meta / name).unlink(missing_ok=True)
        for folder in (meta / "refs").rglob("*.lock") if (meta / "refs").is_dir() else ():
            folder.unlink(missing_ok=True)


def last_line(result: subprocess.CompletedProcess) -> str:
    """git's last word on a failure, with any token or password it quotes (a URL's) masked."""
    lines = [line.strip() for line in (result.stderr or result.stdout).splitlines() if line.strip()]
    return mask_text(lines[-1])[0] if lines else f"exit code {result.returncode}"
