"""A backend for explorer tests that need no store: canned documents, recorded calls, errors on demand.

The documents in ``fixtures/tui_documents.json`` are what a real store answered (the demo built as of
``DEMO_NOW``, asked by :func:`record_documents`), so screens render the real contract; ``test_tui_explore`` checks
that they still have the shape a store answers with today and that the recall documents match
``recall.schema.json``. Re-record them with ``python tests/fake_backend.py`` after a contract change.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alaya_engine.foundations.errors import AlayaError

DOCUMENTS = Path(__file__).parent / "fixtures" / "tui_documents.json"
HOME_MARK = "{home}"
"""Stands for the store's directory in recorded session paths."""

Answer = dict | Callable[[dict], dict]


class FakeBackend:
    """Answers ``call(method, params, progress)`` like :class:`~alaya_engine.server.backend.LocalBackend`, from
    documents.

    An answer is a document (the same one for any params) or a function of the params. Every call is recorded in
    :attr:`calls`; :meth:`fail` makes a method raise an :class:`AlayaError` until :meth:`answer` sets it again.
    """

    def __init__(self, home: Path, answers: dict[str, Answer] | None = None):
        self.home = home
        self.calls: list[tuple[str, dict]] = []
        self._answers: dict[str, Answer] = dict(answers or {})
        self._failures: dict[str, AlayaError] = {}

    def answer(self, method: str, answer: Answer) -> None:
        self._failures.pop(method, None)
        self._answers[method] = answer

    def fail(self, method: str, error: AlayaError) -> None:
        self._failures[method] = error

    def called(self, method: str) -> list[dict]:
        """The params of every call of ``method``, in order."""
        return [params for name, params in self.calls if name == method]

    def call(self, method: str, params: dict | None = None, progress: Callable[[int, int], None] | None = None
             ) -> dict:
        params = params or {}
        self.calls.append((method, copy.deepcopy(params)))
        if method in self._failures:
            raise self._failures[method]
        if method not in self._answers:
            raise AlayaError("unknown_method", f"the fake backend has no answer for '{method}'")
        answer = self._answers[method]
        return copy.deepcopy(answer(params) if callable(answer) else answer)


def recorded() -> dict[str, Any]:
    """The recorded documents: ``recall`` (the first query's result), ``card`` and ``trace`` (by card id),
    ``overview``, ``session.turns`` (by session id, the first window's, from its first turn),
    ``status``, ``schema``, ``review.list``, ``review.show`` (by suggestion id), ``introspect`` (its consolidate
    step), ``neighbourhood`` (by card id: the first result's and its neighbour of the lowest id), ``card.heat`` (by card
    id: those and the recorded cards),
    ``timeline`` (by period: ``day``, ``week``), ``browse`` (by filter, as ``name=value``: the HOT tier) and the
    session ``files``."""
    return json.loads(DOCUMENTS.read_text(encoding="utf-8"))


def by_id(documents: dict[str, dict], key: str, code: str, what: str) -> Callable[[dict], dict]:
    """An answer looking ``params[key]`` up in ``documents``; an unknown id fails with ``code``, as the engine's."""
    def answer(params: dict) -> dict:
        if params.get(key) not in documents:
            raise AlayaError(code, f"no {what} '{params.get(key)}' in this store")
        return documents[params[key]]

    return answer


def demo_backend(home: Path) -> FakeBackend:
    """A fake answering every read the explorer makes with the recorded demo documents.

    The recorded sessions are written under ``home`` (the trace pane reads them from the paths in ``trace``).
    """
    documents = recorded()
    for relative, content in documents["files"].items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    traces, sessions = (json.loads(json.dumps(documents[method]).replace(HOME_MARK, str(home)))
                        for method in ("trace", "session.turns"))
    return FakeBackend(home, {
        "recall": documents["recall"],
        "card": by_id(documents["card"], "card_id", "unknown_card", "card"),
        "trace": by_id(traces, "card_id", "unknown_card", "card"),
        "status": documents["status"],
        "schema": documents["schema"],
        "review.list": documents["review.list"],
        "review.show": by_id(documents["review.show"], "id", "unknown_suggestion", "suggestion"),
        "introspect": documents["introspect"],
        "overview": documents["overview"],
        "session.turns": by_id(sessions, "session_id", "unknown_session", "session"),
        "neighbourhood": by_id(documents["neighbourhood"], "card_id", "unknown_card", "card"),
        "card.heat": by_id(documents["card.heat"], "card_id", "unknown_card", "card"),
        "timeline": lambda params: documents["timeline"][params.get("by", "day")],
        "browse": lambda params: documents["browse"][filter_key(params)],
    })


def filter_key(params: dict) -> str:
    """``tier=HOT``: how a ``browse`` document is filed (the one filter of its params)."""
    return next(f"{name}={params[name]}" for name in ("tier", "band", "type", "relation") if name in params)


def record_documents(home: Path, query: str) -> dict[str, Any]:
    """Ask the store at ``home`` what :func:`demo_backend` answers with, through the public API (the last
    request, ``introspect``, changes the store: record from a copy)."""
    from alaya_engine.introspect.suggestions import CARD_KINDS
    from alaya_engine.server.backend import LocalBackend

    backend = LocalBackend(home)
    result = backend.call("recall", {"request": {"text": query}})
    pending = backend.call("review.list", {"status": "pending"})
    suggestions = pending["suggestions"][:20]  # the review screen asks for the first rows' titles
    shown = {s["id"]: backend.call("review.show", {"id": s["id"]}) for s in suggestions if s["kind"] in CARD_KINDS}
    card_ids = [result["nodes"][0]["card_id"], *(suggestions[0]["subjects"] if suggestions else [])]
    traces = {card_id: backend.call("trace", {"card_id": card_id}) for card_id in card_ids[:1]}
    files = {}
    for trace in traces.values():
        for session in trace["sessions"]:
            path = Path(session["path"])
            relative = path.relative_to(home).as_posix()
            files[relative] = path.read_text(encoding="utf-8")
            session["path"] = f"{HOME_MARK}/{relative}"
    focus = result["nodes"][0]["card_id"]
    around = {focus: backend.call("neighbourhood", {"card_id": focus, "limit": 40})}
    neighbour = min(node["card_id"] for node in around[focus]["nodes"] if node["hop"] == 1)
    around[neighbour] = backend.call("neighbourhood", {"card_id": neighbour, "limit": 40})
    windows = [node for node in result["nodes"] if node["kind"] == "session_turns"]
    sessions = {node["session_id"]: backend.call("session.turns", {"session_id": node["session_id"], "count": 200})
                for node in windows[:1]}
    for document in sessions.values():
        document["path"] = f"{HOME_MARK}/{Path(document['path']).relative_to(home).as_posix()}"
    return {
        "recall": result,
        "overview": backend.call("overview"),
        "session.turns": sessions,
        "card": {card_id: backend.call("card", {"card_id": card_id}) for card_id in dict.fromkeys(card_ids)},
        "trace": traces,
        "status": backend.call("status"),
        "schema": backend.call("schema", {"relations": True}),
        "review.list": pending,
        "review.show": shown,
        "files": files,
        "neighbourhood": around,
        "card.heat": {card_id: backend.call("card.heat", {"card_id": card_id})
                      for card_id in dict.fromkeys([*card_ids, *around])},
        "timeline": {by: backend.call("timeline", {"by": by}) for by in ("day", "week")},
        "browse": {filter_key(chosen): backend.call("browse", chosen) for chosen in ({"tier": "HOT"},)},
        "introspect": backend.call("introspect", {"steps": ["consolidate"]}),  # last: it changes the store
    }


def shape(document: Any) -> Any:
    """The field names of a document, recursively (list items merged); values and their types left out."""
    if isinstance(document, dict):
        return {key: shape(value) for key, value in sorted(document.items())}
    if isinstance(document, list):
        merged: dict = {}
        for item in document:
            if isinstance(item, dict):
                merged.update(shape(item))
        return [merged] if merged else []
    return None


if __name__ == "__main__":
    # python tests/fake_backend.py: rebuild the pinned demo in a scratch directory and record its answers.
    import tempfile

    from alaya_engine.demo import FIRST_QUERY, build_demo

    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import DEMO_NOW

    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "home"
        build_demo(store, now=DEMO_NOW)
        DOCUMENTS.write_text(json.dumps(record_documents(store, FIRST_QUERY), indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    print(f"recorded {DOCUMENTS}")
