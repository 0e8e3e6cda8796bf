"""``python -m alaya_engine.server --home PATH``: what ``alaya serve`` and autostart run.

``--ready-fd N`` (given by the client that starts it, :func:`.client.start_server`): the server writes ``ready``
there once it listens, or its error as one JSON line if it cannot start, so that client reports the real cause
at once instead of waiting out ``server.start_timeout``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from ..foundations.disk import disk_full, is_disk_full
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.paths import resolve_home
from .service import OwnerServer

log = logging.getLogger("alaya_engine.server")

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the interpreter while another waits for it (Python's default is 0.005). A recall gives the
interpreter up at each call into numpy, LanceDB or the graph and waits to get it back from a long job's thread
(the distiller is Python): a tenth of the default hands it back sooner. Aged 100k store, recalls through the server
during an ingest + distill of 60 sessions: p95 191 → 159 ms, p50 68 → 66 ms (medians of 5-6 runs; the job 17.6-19.5
s either way; docs/benchmarks.md)."""


class _Starter:
    """The pipe to the client waiting for this server (nothing when started by hand)."""

    def __init__(self, fd: int | None):
        self.fd = fd

    def tell(self, line: str) -> None:
        if self.fd is None:
            return
        try:
            os.write(self.fd, (line + "\n").encode("utf-8"))
            os.close(self.fd)
        except OSError:  # the client gave up waiting: nobody to tell
            pass
        self.fd = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="alaya serve")
    parser.add_argument("--home")
    parser.add_argument("--ready-fd", type=int)
    arguments = parser.parse_args(argv)
    starter = _Starter(arguments.ready_fd)
    sys.setswitchinterval(SWITCH_INTERVAL)
    home = resolve_home(arguments.home)
    try:
        code = OwnerServer(home, on_ready=lambda: starter.tell("ready")).run()
    except AlayaError as error:
        failure = error
    except Exception as error:  # never a hung or silent start: log the traceback, tell the cause in one line
        if is_disk_full(error, home):
            failure = disk_full(error, home)
        else:
            log.exception("the server failed")
            failure = AlayaError("internal", f"unexpected {type(error).__name__}: {error}; see logs/server.log",
                                 RUNTIME)
    else:
        starter.tell("done")
        return code
    # The client first: on a full disk the log (this process's stderr too) cannot take a line, and the client is
    # the one who must hear why.
    starter.tell(json.dumps({"code": failure.code, "message": failure.message, "exit_code": failure.exit_code}))
    log.error("cannot serve: %s", failure.message)
    try:
        print(f"error: {failure.message}", file=sys.stderr, flush=True)
    except OSError:
        pass
    return failure.exit_code


if __name__ == "__main__":
    sys.exit(main())
