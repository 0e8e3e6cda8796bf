"""``alaya demo``: a memory built offline from sample sessions shipped inside the package."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from ..distill.pipeline import DistillReport
from ..domain import IngestReport, InitReport
from ..engine import Engine, StatusReport

DEMO_HOME_ENV = "ALAYA_DEMO_HOME"
DEFAULT_DEMO_HOME = "~/.alaya-demo"


def sample_sessions_dir() -> Path:
    return Path(str(files(__name__).joinpath("sessions")))


def resolve_demo_home(explicit: Path | None) -> Path:
    return Path(explicit or os.environ.get(DEMO_HOME_ENV) or DEFAULT_DEMO_HOME).expanduser().absolute()


@dataclass
class DemoReport:
    home: str
    init: InitReport
    ingest: IngestReport
    distill: DistillReport
    status: StatusReport

    def to_json(self) -> dict:
        return {"home": self.home, "init": self.init.to_json(), "ingest": self.ingest.to_json(),
                "distill": self.distill.to_json(), "status": self.status.to_json()}


def build_demo(home: Path | None = None, fresh: bool = False) -> DemoReport:
    """Initialise the demo home (idempotent), ingest every shipped sample session and distill them (offline)."""
    target = resolve_demo_home(home)
    if fresh and (target / "store.json").exists():
        shutil.rmtree(target)
    init = Engine.init(target)
    engine = Engine.open(target)
    ingest = engine.ingest([str(sample_sessions_dir())])
    distill = engine.distill()
    return DemoReport(home=str(target), init=init, ingest=ingest, distill=distill, status=engine.status())
