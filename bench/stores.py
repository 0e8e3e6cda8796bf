"""Stores made once per ``python -m bench`` run and copied for each benchmark that needs one.

``Engine.init`` costs seconds (the model's tokenizer is built and pickled into the store's cache, the graph
schema created, the core relations embedded), a synthetic store of 100k cards most of a minute and a labelled
dataset's store (its sessions ingested and distilled) tens of seconds, so each is made once per run in the
run's scratch folder. Every benchmark works on its own copy, which it may change:
recalls write access counters, introspect cools cards down and forgets some.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from alaya_engine.engine import Engine

from .synthetic import build_store


class Stores:
    def __init__(self, scratch: Path):
        self.scratch = scratch
        self.init_seconds = 0.0
        """Wall time of the one ``Engine.init`` of this run (the empty template)."""
        self._template: Path | None = None
        self._synthetic: dict[int, tuple[Path, dict]] = {}
        self._datasets: dict[str, tuple[Path, dict]] = {}

    @contextmanager
    def empty(self) -> Iterator[Path]:
        """A fresh copy of an empty, initialised store."""
        with self._copy(self._template_home()) as home:
            yield home

    @contextmanager
    def synthetic(self, size: int) -> Iterator[Path]:
        """A fresh copy of the synthetic store of ``size`` cards (:func:`bench.synthetic.build_store`)."""
        with self._copy(self.built(size)[0]) as home:
            yield home

    def built(self, size: int) -> tuple[Path, dict]:
        """The pristine synthetic store of ``size`` cards and its build statistics, built on first use."""
        if size not in self._synthetic:
            home = self.scratch / f"synthetic-{size}" / "home"
            shutil.copytree(self._template_home(), home)
            self._synthetic[size] = (home, build_store(home, size))
        return self._synthetic[size]

    @contextmanager
    def dataset(self, name: str, build: Callable[[Path], dict]) -> Iterator[tuple[Path, dict]]:
        """A fresh copy of the store named ``name``, which ``build(home)`` fills on first use from a copy of the
        empty one, and what ``build`` returned (its statistics)."""
        if name not in self._datasets:
            home = self.scratch / name / "home"
            shutil.copytree(self._template_home(), home)
            self._datasets[name] = (home, build(home))
        source, built = self._datasets[name]
        with self._copy(source) as home:
            yield home, built

    def _template_home(self) -> Path:
        if self._template is None:
            home = self.scratch / "template" / "home"
            started = time.perf_counter()
            Engine.init(home)
            self.init_seconds = time.perf_counter() - started
            self._template = home
        return self._template

    @contextmanager
    def _copy(self, source: Path) -> Iterator[Path]:
        with tempfile.TemporaryDirectory(prefix="copy-", dir=self.scratch) as folder:
            home = Path(folder) / "home"
            shutil.copytree(source, home)
            yield home


def update_config(home: Path, section: str, values: dict) -> None:
    """Set ``values`` in ``section`` of the store's config.json, as a user editing it would."""
    path = home / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config[section].update(values)
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
