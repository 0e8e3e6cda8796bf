"""The Python client: each method is one engine call through the store's backend, its document turned back into
the engine's own dataclass."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from alaya_engine.foundations.domain import IngestReport, LinkReport, UnlinkReport
from alaya_engine.maintenance.status import StatusReport
from alaya_engine.recall.result import RecallResult
from alaya_engine.recall.trace import TraceReport
from alaya_engine.server.backend import Backend, open_backend


@dataclass
class IngestResult:
    report: IngestReport
    distill: dict | None
    """The distillation's document when ``distill=True`` (or ``distill.auto_distill``) ran one."""


class Memory:
    """One store. Close it (or use ``with``) to let go of an in-process engine; a server-backed one holds
    nothing between calls."""

    def __init__(self, backend: Backend):
        self._backend: Backend | None = backend

    @property
    def home(self) -> Path:
        return self._call_backend().home

    def recall(self, text: str | None = None, *, concepts: list[str] | None = None,
               relations: list[str] | None = None, depth: int | None = None, from_nodes: list[str] | None = None,
               top_k: int | None = None, types: list[str] | None = None, max_results: int | None = None,
               include_sessions: bool | None = None, include_memex: bool | None = None,
               scope: list[str] | None = None, as_of: str | None = None, entity: str | None = None) -> RecallResult:
        """Recall by navigation, as ``alaya recall --json`` (options left out take the store's defaults); ``scope``
        keeps to the sessions its rules match (``["agent=main", "project=infra"]``); ``as_of`` (an ISO date or
        date-time) answers as the memory stood then; ``entity`` (a name from a result's ``entities``) starts from
        the cards that mention it, beside what ``text`` finds or, alone, with its name as the goal."""
        request = {key: value for key, value in {
            "text": text, "concepts": concepts, "relations": relations, "depth": depth, "from_nodes": from_nodes,
            "top_k": top_k, "types": types, "max_results": max_results, "include_sessions": include_sessions,
            "include_memex": include_memex, "scope": scope, "as_of": as_of, "entity": entity}.items()
            if value is not None}
        return self._recall(request)

    def follow(self, result: RecallResult) -> RecallResult | None:
        """The next round the result suggests (its ``next_request``: the same goal, twice as many results), or
        None when it is close to the target or found nothing."""
        return None if result.next_request is None else self._recall(result.next_request)

    def trace(self, card_id: str) -> TraceReport:
        return TraceReport.from_json(self._call("trace", {"card_id": card_id}))

    def entity(self, name: str) -> dict:
        """An entity by one of its names (``{"entity": {id, name, kind, aliases}, "cards": [...]}``, newest card
        first); an unknown name raises ``AlayaError`` ``unknown_entity``."""
        return self._call("entity", {"name": name})

    def ingest(self, *paths: str | os.PathLike, replace: bool = False, distill: bool = False) -> IngestResult:
        """Store session files or folders (JSON or OpenClaw JSONL); a refused file is reported, not raised."""
        document = self._call("ingest", {"paths": [os.path.abspath(os.fspath(path)) for path in paths],
                                         "replace": replace, "distill": distill, "stdin_b64": None})
        return IngestResult(IngestReport.from_json(document), document.get("distill"))

    def link(self, source: str, target: str, relation: str = "RELATES_TO", reason: str = "", weight: float = 1.0,
             new_relation: bool = False) -> LinkReport:
        return LinkReport.from_json(self._call("link", {"source": source, "target": target, "relation": relation,
                                                        "reason": reason, "weight": weight,
                                                        "new_relation": new_relation}))

    def unlink(self, source: str, target: str, relation: str) -> UnlinkReport:
        """Remove an edge and its other direction (see ``alaya unlink``)."""
        return UnlinkReport.from_json(self._call("unlink", {"source": source, "target": target,
                                                            "relation": relation}))

    def status(self) -> StatusReport:
        return StatusReport.from_json(self._call("status"))

    def close(self) -> None:
        self._backend = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def _recall(self, request: dict) -> RecallResult:
        return RecallResult.from_json(self._call("recall", {"request": request}))

    def _call(self, method: str, params: dict | None = None) -> dict:
        return self._call_backend().call(method, params or {})

    def _call_backend(self) -> Backend:
        if self._backend is None:
            raise ValueError("this Memory is closed; open another with alaya.open()")
        return self._backend


def open(home: str | os.PathLike | None = None, *, server: bool = True) -> Memory:
    """The store at ``home`` (default ``$ALAYA_HOME`` or ``~/.alaya``), through its owner server (started on
    demand, as the command line does) unless ``server=False`` or ``ALAYA_NO_SERVER`` is set."""
    return Memory(open_backend(home, no_server=not server))
