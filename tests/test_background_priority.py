"""Long work yields the cores: the owner server's write pool, the model's micro-batch workers and the graph snapshot's
reader run below the priority of its reads (Linux, where each thread has its own nice value)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from alaya_engine.embedding import micro_batches
from alaya_engine.foundations.background import BACKGROUND_NICENESS
from alaya_engine.server.dispatch import Dispatcher

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def test_a_write_runs_below_a_read_on_the_owner_servers_pools():
    folder = Path(tempfile.mkdtemp(prefix="alaya-nice-", dir="/tmp"))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(folder / "s"))
    listener.listen(8)
    dispatcher = Dispatcher(listener, route=lambda request: request["method"],
                            answer=lambda request, send, route: {"v": 1, "id": request["id"], "result": _nice()},
                            describe="the test server")
    dispatcher.start()
    try:
        niceness = {}
        for number, method in enumerate(("read", "write", "read")):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.settimeout(10)
                client.connect(str(folder / "s"))
                client.sendall(json.dumps({"v": 1, "id": number, "method": method}).encode() + b"\n")
                reply = client.makefile("rb").readline()
            niceness.setdefault(method, []).append(json.loads(reply)["result"])
        base = _nice()
        assert niceness["read"] == [base, base]
        assert niceness["write"] == [min(19, base + BACKGROUND_NICENESS)]
    finally:
        dispatcher.stop_accepting()
        dispatcher.drain()
        listener.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_the_models_micro_batch_workers_run_in_the_background():
    seen = []
    micro_batches._workers().submit(lambda: seen.append(_nice())).result(timeout=10)
    assert seen == [min(19, _nice() + BACKGROUND_NICENESS)]


def test_the_graph_snapshot_is_read_in_the_background(home: Path):
    """A read of the whole graph takes seconds at 100k cards, and runs again after writes, often while a job runs:
    the recalls waiting meanwhile go first."""
    import threading

    from alaya_engine.engine import Engine

    engine = Engine.open(home)
    with engine.hold():
        assert engine.keep_resident(wait_seconds=60)
        builder = next(thread for thread in threading.enumerate() if thread.name == "alaya-graph-snapshot")
        fields = Path(f"/proc/self/task/{builder.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(fields[16]) == min(19, _nice() + BACKGROUND_NICENESS)  # field 19 of the thread's stat: its nice
