"""Alaya from Python: ``alaya.open()`` gives a :class:`Memory` over a store, served by its owner server (or
in-process when no server may run), whose calls return the dataclasses behind the ``--json`` contract.

    import alaya

    with alaya.open() as memory:
        result = memory.recall("gateway restart telegram")
        print(result.verdict, [node.title for node in result.nodes])

See docs/python-api.md.
"""

from alaya_engine.foundations.domain import Fact, IngestOutcome, IngestReport, Link, LinkReport, UnlinkReport
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.maintenance.status import StatusReport
from alaya_engine.recall.result import Explorable, RecallNode, RecallResult
from alaya_engine.recall.trace import TraceReport

from .memory import IngestResult, Memory, open

__all__ = ["AlayaError", "Explorable", "Fact", "IngestOutcome", "IngestReport", "IngestResult", "Link", "LinkReport",
           "Memory", "RecallNode", "RecallResult", "StatusReport", "TraceReport", "UnlinkReport", "open"]
