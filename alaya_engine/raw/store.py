"""RawStore: L3 session files under ``raw/sessions/YYYY-MM/``.

Every file is written atomically (temp file, fsync, rename), JSON first and
its Markdown summary second: the JSON is the record, the summary is derived
and can always be rewritten from it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..foundations.atomic import atomic_write_json, atomic_write_text
from ..foundations.domain import Session
from ..foundations.errors import RUNTIME, AlayaError
from ..foundations.folder_sizes import FolderSizes
from ..foundations.last_used import LastUsed
from ..foundations.scope import share_mark
from .formats import parse_session_json
from .summary import session_markdown


def session_file_stem(session_id: str) -> str:
    """``session-<id>``, without doubling the prefix session ids often carry."""
    return session_id if session_id.startswith("session-") else f"session-{session_id}"


LOCATED = 4096
"""Session files whose place :meth:`RawStore.locate` keeps, the last asked for."""


@dataclass
class RawStats:
    sessions: int
    bytes: int


class RawStore:
    def __init__(self, sessions_dir: Path, contexts_dir: Path):
        self.sessions_dir = sessions_dir
        self.contexts_dir = contexts_dir
        self._sizes = FolderSizes(sessions_dir.parent, self._is_session_file, _appended)
        self._located: LastUsed[str, Path] = LastUsed(LOCATED)

    def create(self) -> None:
        self.sessions_dir.mkdir(parents=True, exist_ok=True)
        self.contexts_dir.mkdir(parents=True, exist_ok=True)

    def path_for(self, session: Session) -> Path:
        month = session.started_at.strftime("%Y-%m")
        return self.sessions_dir / month / f"{session_file_stem(session.id)}.json"

    def find(self, session_id: str) -> Path | None:
        """The stored file of ``session_id`` in any month folder, or None.

        Ids ``x`` and ``session-x`` share a file name; a file that holds the other one is refused,
        so neither session can overwrite the other (nor its distilled record).
        """
        path = self.locate(session_id)
        if path is None:
            return None
        stored_id = self._document(path).get("id")
        if stored_id != session_id:
            raise AlayaError("session_id_collision", f"session id {session_id!r} would share the file "
                                                     f"{path.name} with stored session {stored_id!r}; "
                                                     "give this session another id")
        return path

    def locate(self, session_id: str) -> Path | None:
        """Where the file named for ``session_id`` is, without reading it: the id it holds is the caller's to check
        (:meth:`find` reads it). A recall reads the windows of the same few sessions again and again; searching the
        month folders and reading the whole file to check its id took 0.6 of a demo recall's 8 ms. A place kept (a
        lookup's, or a write's) is used while its file exists."""
        path = self._located.get(session_id)
        if path is not None and path.exists():
            return path
        matches = sorted(self.sessions_dir.glob(f"*/{session_file_stem(session_id)}.json"))
        if not matches:
            return None
        self._located.put(session_id, matches[0])
        return matches[0]

    def read(self, path: Path) -> Session:
        return parse_session_json(self._document(path), stored=True)

    @staticmethod
    def _document(path: Path) -> dict:
        """A stored session's JSON; a damaged file is a store problem, named with its path."""
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, RecursionError) as exc:
            raise AlayaError("store_damaged", f"{path} is damaged ({exc}); delete it and ingest the session "
                                              "again", RUNTIME) from None
        if not isinstance(document, dict):
            raise AlayaError("store_damaged", f"{path} is damaged (not a JSON object); delete it and ingest "
                                              "the session again", RUNTIME)
        return document

    def write(self, session: Session, replacing: Path | None = None) -> Path:
        """Store ``session`` (JSON, then its Markdown summary); drop a replaced file in another month."""
        path = self.path_for(session)
        atomic_write_json(path, session.to_json())
        atomic_write_text(path.with_suffix(".md"), session_markdown(session))
        if replacing is not None and replacing != path:
            replacing.unlink(missing_ok=True)
            replacing.with_suffix(".md").unlink(missing_ok=True)
        self._located.put(session.id, path)
        return path

    def iter_paths(self) -> Iterator[Path]:
        yield from sorted(self.sessions_dir.glob("*/session-*.json"))

    def share_marks(self) -> dict[str, str]:
        """Session id → :func:`share_mark`, for the sessions that carry one: what a graph made before the marks were
        kept on its Session nodes is given once (a damaged file is left to ``alaya verify``)."""
        marks = {}
        for path in self.iter_paths():
            try:
                document = self._document(path)
            except (OSError, AlayaError):
                continue
            metadata = document.get("metadata")
            mark = share_mark(metadata) if isinstance(metadata, dict) else None
            if mark is not None and isinstance(document.get("id"), str):
                marks[document["id"]] = mark
        return marks

    def stats(self) -> RawStats:
        """Session count, and bytes of everything under ``raw/`` (sessions, summaries, records, contexts, the
        journal); a directory unchanged since this store's last call is not listed again (:class:`FolderSizes`)."""
        sessions, total = self._sizes.totals()
        return RawStats(sessions=sessions, bytes=total)

    def _is_session_file(self, directory: str, name: str) -> bool:
        """A session's JSON in its month's folder (its Markdown summary beside it is not counted)."""
        return (name.startswith("session-") and name.endswith(".json")
                and os.path.dirname(directory) == str(self.sessions_dir))


def _appended(name: str) -> bool:
    """The journal's files are appended to; every other file under ``raw/`` is written whole, by an atomic rename."""
    return name.endswith(".jsonl")
