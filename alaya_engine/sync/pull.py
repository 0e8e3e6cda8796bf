"""``alaya pull [NAME]``: what other machines pushed, into this store, L3 first.

New or changed files of the other machines' parts of the tree (a file counts once per content: git's blob id is
remembered) go where a local session's would: sessions through ingest (L3, the Session node, windows of raw turns),
distillation records into L3 and then through distill, which replays a record instead of distilling again, so the
cards are the sender's, not a re-run's. Journal events are appended to the local journal as their machine wrote
them (a union: an event already here is not added twice), review decisions merged, and then L2/L1 converge on
what the whole L3 now describes (:mod:`.converge`). A pull killed anywhere is finished by the next one: every step
is idempotent and the files taken are remembered only at the end.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..foundations.domain import millis_now
from ..foundations.errors import AlayaError
from ..foundations.machine import machine_id
from ..introspect.suggestions import STATUSES, SuggestionStore
from ..raw.distilled import DistilledRecord, DistilledStore
from ..raw.formats import parse_session_json
from ..raw.journal import Journal, is_event
from .converge import converge
from .remotes import checkout_tip, find_remote, sync_lock
from .tree import machine_of, origin

if TYPE_CHECKING:
    from pathlib import Path

    from ..store_parts import StoreParts

Ingest = Callable[[list[str], bool], object]
Distill = Callable[[list[str]], object]


def pull(parts: StoreParts, ingest: Ingest, distill: Distill, name: str | None = None) -> dict:
    """``ingest(paths, replace)`` and ``distill(session_ids)`` are the engine's own."""
    started, machine = time.perf_counter(), machine_id(parts.layout.home)
    report = {"remote": None, "machine": machine, "commit": None, "sessions": {}, "records": 0, "journal_events": 0,
              "review_decisions": 0, "conflicts": [], "unreadable": [], "converged": None}
    with sync_lock(parts.layout, parts.config):
        remote = find_remote(parts.layout, parts.config, name)
        report["remote"] = remote.name
        tip = checkout_tip(remote)
        if tip is not None:
            report["commit"] = tip
            listing = _listing(remote.git.run("ls-tree", "-r", "-z", tip).stdout)
            seen = remote.state().get("pulled", {})
            fresh = sorted(path for path, blob in listing.items()
                           if seen.get(path) != blob and machine_of(path) not in (None, machine))
            tree = remote.git.folder
            _take(parts, ingest, distill, tree, fresh, report)
            remote.save_state(pulled={path: blob for path, blob in listing.items()
                                      if machine_of(path) not in (None, machine)}, last_pull=millis_now(),
                              pulled_commit=tip)
        else:
            remote.save_state(last_pull=millis_now())
    report["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return report


def _listing(output: str) -> dict[str, str]:
    """``git ls-tree -r -z`` → path → blob id, regular files only: a symbolic link someone pushed would make a pull
    read whatever it points to on this machine."""
    entries = {}
    for entry in output.split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            mode, _, blob = meta.split()
            if mode in ("100644", "100755"):
                entries[path] = blob
    return entries


def _take(parts: StoreParts, ingest: Ingest, distill: Distill, tree: Path, fresh: list[str], report: dict) -> None:
    by_part: dict[str, list[Path]] = {}
    for path in fresh:
        if _readable(tree, path, report):
            by_part.setdefault(path.split("/", 1)[0], []).append(tree / path)
    sessions = [path for path in by_part.get("sessions", []) if _may_take(parts, path, report)]
    if sessions:
        for outcome in ingest([str(path) for path in sessions], True).outcomes:
            report["sessions"][outcome.status] = report["sessions"].get(outcome.status, 0) + 1
    replaced, ready = _records(parts, by_part.get("distilled", []))
    report["records"] = len(ready) + replaced
    if ready:
        distill(ready)
    journal = Journal(parts.layout.journal)
    events = _new_events(journal, by_part.get("journal", []))
    if events:
        journal.append_events(events)
    report["journal_events"] = len(events)
    report["review_decisions"] = _merge_decisions(parts, by_part.get("review", []))
    if events or replaced:
        report["converged"] = converge(parts)


def _readable(tree: Path, relative: str, report: dict) -> bool:
    """Whether a pulled file holds what its folder should (a session, a record, a JSON object; a journal's bad
    lines are skipped later, one by one). One that does not is listed in the report and left out, never fatal."""
    part = relative.split("/", 1)[0]
    try:
        text = (tree / relative).read_text(encoding="utf-8")
        if part == "journal":
            return True
        document = json.loads(text)
        if part == "sessions":
            parse_session_json(document, stored=True)
        elif part == "distilled":
            DistilledRecord.from_json(document)
        elif not isinstance(document, dict):
            raise TypeError("not a JSON object")
        return True
    except (OSError, ValueError, KeyError, TypeError, AttributeError, AlayaError):
        report["unreadable"].append(relative)
        return False


def _may_take(parts: StoreParts, path: Path, report: dict) -> bool:
    """A pulled session is taken unless this store holds a session of that id from elsewhere (its own, or another
    machine's): then the local one is kept and the clash reported."""
    document = json.loads(path.read_text(encoding="utf-8"))
    try:
        local = parts.raw.find(document["id"])
    except AlayaError:
        local = None
        report["conflicts"].append({"session_id": document["id"], "from": origin(document)})
        return False
    if local is None:
        return True
    mine = json.loads(local.read_text(encoding="utf-8"))
    if origin(mine) == origin(document):
        return True
    report["conflicts"].append({"session_id": document["id"], "from": origin(document)})
    return False


def _records(parts: StoreParts, paths: list[Path]) -> tuple[int, list[str]]:
    """Write the pulled records whose session is here with the content they were made from. Returns how many
    replaced a different local record (the graph must converge) and the sessions to distill (replayed)."""
    store, replaced, ready = DistilledStore(parts.layout.distilled, parts.layout.contexts), 0, []
    for path in paths:
        record = DistilledRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
        stored = parts.raw.find(record.session_id)
        if stored is None:
            continue
        session = parts.raw.read(stored)
        if session.content_hash() != record.session_hash:
            continue
        previous = store.read(record.session_id)
        if previous is not None and previous.to_json() == record.to_json():
            continue
        store.write(record, session)
        if previous is not None and previous.session_hash == record.session_hash:
            replaced += 1
        else:
            ready.append(record.session_id)
    return replaced, ready


def _new_events(journal: Journal, paths: list[Path]) -> list[dict]:
    known = {_key(event) for event in journal.events() if not journal.own(event)}
    fresh = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and is_event(event) and not journal.own(event) and _key(event) not in known:
                known.add(_key(event))
                fresh.append(event)
    return fresh


def _key(event: dict) -> str:
    return json.dumps(event, sort_keys=True, ensure_ascii=False)


def _merge_decisions(parts: StoreParts, paths: list[Path]) -> int:
    """Other machines' review decisions: a suggestion decided there is decided here (the later decision wins)."""
    store, taken = SuggestionStore(parts.layout.review), 0
    for path in paths:
        for suggestion_id, decided in json.loads(path.read_text(encoding="utf-8")).items():
            if decided.get("status") not in STATUSES:
                continue
            local = store.get(suggestion_id, missing_ok=True)
            if local is None:
                store.propose(decided["kind"], decided["subjects"], {}, decided["updated_at"])
                local = store.get(suggestion_id)
            elif local.status != "pending" and local.updated_at >= decided["updated_at"]:
                continue
            if (local.status, local.updated_at) != (decided["status"], decided["updated_at"]):
                local.status, local.updated_at = decided["status"], decided["updated_at"]
                taken += 1
    if taken:
        store.save()
    return taken

