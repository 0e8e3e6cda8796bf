"""Whole processes as an agent runs them: wall time and peak RSS of one child, and an owner server to call.

Every child gets an explicit environment (:func:`child_env`): whether it may use the owner server is the
benchmark's choice, never inherited from the caller's ``ALAYA_NO_SERVER`` (the test suite sets it). A child
allowed the server finds it running, because it only runs inside :func:`owner_server`, which stops the server
again; a child would otherwise autostart one that outlives the benchmark by the server's idle timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("alaya")
ALAYA = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "alaya_cli"]
"""``alaya`` as an agent runs it: the console script installed beside this Python. ``python -m alaya_cli``
(the fallback) runs the same ``main`` but starts 30–50 ms slower here (runpy, and the module run as ``__main__``)."""


LAUNCHER = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
with open(sys.argv[1], "w") as out:
    json.dump({"ms": elapsed * 1000, "maxrss": usage.ru_maxrss, "exit": os.waitstatus_to_exitcode(status)}, out)
"""
"""A small Python (no ``site``) that starts the measured process and reports its wall time and peak RSS.

Linux counts the memory a process replaced at ``exec`` into its peak RSS: a child forked (or vforked, as
``subprocess`` does) straight from this process would report the benchmark's own peak, hundreds of MB once a
store has been built here. Forked from this launcher, it inherits ~10 MB at most.
"""


@dataclass
class Measured:
    ms: float
    peak_mb: float
    """The child's own peak resident set size (``wait4`` rusage), not its children's."""
    stdout: str


def child_env(server: bool) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in ("ALAYA_NO_SERVER", "ALAYA_HOME")}
    if not server:
        env["ALAYA_NO_SERVER"] = "1"
    return env


def measure(argv: list[str], env: dict[str, str]) -> Measured:
    """Run ``argv`` to completion under :data:`LAUNCHER`; raises with the tail of its stderr if it fails."""
    with tempfile.TemporaryDirectory(prefix="alaya-bench-run-") as folder:
        result, output, errors = (Path(folder) / name for name in ("result.json", "stdout", "stderr"))
        with open(output, "wb") as stdout, open(errors, "wb") as stderr:
            subprocess.run([sys.executable, "-S", "-c", LAUNCHER, str(result), *argv], env=env,
                           stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, check=True)
        launched = json.loads(result.read_text())
        if launched["exit"]:
            tail = errors.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise RuntimeError(f"{' '.join(argv)} exited with {launched['exit']}: {' / '.join(tail)}")
        divisor = 1024 * 1024 if sys.platform == "darwin" else 1024
        return Measured(launched["ms"], launched["maxrss"] / divisor, output.read_text(encoding="utf-8"))


def measure_many(argv: list[str], env: dict[str, str], runs: int) -> list[Measured]:
    return [measure(argv, env) for _ in range(runs)]


@dataclass
class OwnerServer:
    client: object
    """An ``alaya_engine.server.client.ServerClient`` connected to the server."""
    pid: int

    def peak_mb(self) -> float | None:
        """The server's peak RSS so far (``VmHWM``, Linux); None where ``/proc`` does not tell."""
        return self._status_mb("VmHWM")

    def resident_mb(self) -> float | None:
        """The server's RSS now (``VmRSS``): what it holds once the loads' passing buffers are freed."""
        return self._status_mb("VmRSS")

    def _status_mb(self, field: str) -> float | None:
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return None
        line = next((line for line in status.splitlines() if line.startswith(f"{field}:")), "")
        return int(line.split()[1]) / 1024 if line else None


@contextmanager
def owner_server(home: Path) -> Iterator[OwnerServer]:
    """A warm owner server for ``home`` (model loaded, one recall answered, the graph snapshot read), stopped on
    the way out."""
    from alaya_engine.server.client import ServerClient, start_server, wait_until_gone

    client = start_server(home, timeout=120)
    try:
        client.call("recall", {"request": {"text": "warm up"}})
        deadline = time.monotonic() + 300
        while client.call("server.status")["graph_snapshot"] != "fresh" and time.monotonic() < deadline:
            time.sleep(0.2)
        pid = json.loads((home / "server.pid").read_text())["pid"]
        yield OwnerServer(client, pid)
    finally:
        client.call("server.stop")
        wait_until_gone(ServerClient(home), 60)
