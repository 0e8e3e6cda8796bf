"""``alaya demo``: a memory built offline from sample sessions shipped inside the package.

It shows the whole product at once: the sessions are dated over the seven weeks before the build
(:mod:`.timeline`), each session's cards are dated as if distilled when it happened, and the demo ends with its
own introspect, so there are HOT, WARM and COLD cards, a spread of temperatures and pending review suggestions.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from ..distill.pipeline import DistillReport
from ..engine import Engine
from ..foundations.domain import IngestReport, InitReport, Session, millis_now
from ..maintenance.status import StatusReport
from .timeline import record_shift, shift_days, shifted_copies

FIRST_QUERY = "gateway restart telegram"
"""The recall the demo suggests first: its results lead on along explorable relations."""

DEMO_HOME_ENV = "ALAYA_DEMO_HOME"
DEFAULT_DEMO_HOME = "~/.alaya-demo"


def sample_sessions_dir() -> Path:
    return Path(str(files(__name__).joinpath("sessions")))


def resolve_demo_home(explicit: Path | None, store_home: Path | None = None) -> Path:
    """Where the demo is built: ``--demo-home``, else the ``--home`` given on the command line when it is new,
    empty or an earlier demo (a store of one's own is never filled with sample sessions), else
    ``$ALAYA_DEMO_HOME`` or ``~/.alaya-demo``."""
    from ..foundations.errors import AlayaError
    from ..foundations.paths import Layout
    from .timeline import SHIFT_FILE

    if explicit is None and store_home is not None:
        home = Path(store_home).expanduser().absolute()
        if Layout(home).is_initialised() and not (home / SHIFT_FILE).exists():
            raise AlayaError("not_a_demo_store", f"{home} holds a store of its own; the demo builds one of its own "
                                                 "elsewhere: leave out --home, or name an empty folder with "
                                                 "--demo-home PATH")
        return home
    return Path(explicit or os.environ.get(DEMO_HOME_ENV) or DEFAULT_DEMO_HOME).expanduser().absolute()


@dataclass
class DemoReport:
    home: str
    init: InitReport
    ingest: IngestReport
    distill: DistillReport
    introspect: dict
    status: StatusReport

    def to_json(self) -> dict:
        return {"home": self.home, "init": self.init.to_json(), "ingest": self.ingest.to_json(),
                "distill": self.distill.to_json(), "introspect": self.introspect, "status": self.status.to_json(),
                "first_query": FIRST_QUERY}


def build_demo(home: Path | None = None, fresh: bool = False, now: int | None = None) -> DemoReport:
    """Initialise the demo home (idempotent), ingest every shipped sample session moved in time (newest: the day
    before ``now``), distill them offline and introspect. ``now`` (milliseconds) pins the clock for tests."""
    target = resolve_demo_home(home)
    if fresh and (target / "store.json").exists():
        shutil.rmtree(target)
    now = now or millis_now()
    init = Engine.init(target)
    engine = Engine.open(target)
    files = sorted(sample_sessions_dir().iterdir())
    days = shift_days(target, files, now, new_store=init.created)
    with tempfile.TemporaryDirectory(prefix="alaya-demo-") as folder:
        ingest = engine.ingest([str(path) for path in shifted_copies(files, days, Path(folder))])
    record_shift(target, days)
    distill = engine.distill(clock=lambda session: min(session_end(session), now))
    introspect = engine.introspect(now=now)
    return DemoReport(home=str(target), init=init, ingest=ingest, distill=distill, introspect=introspect,
                      status=engine.status())


def session_end(session: Session) -> int:
    """When the session's last timed turn happened (its start when no turn has a time)."""
    return max([session.timestamp, *(turn.timestamp for turn in session.turns if turn.timestamp is not None)])
