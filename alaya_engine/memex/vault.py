"""Reading a memex vault: walk it safely, read every card file, give each a unique slug, resolve links.

Safety: symbolic links are never followed (a linked folder or file is listed as
skipped, with where it points), so nothing outside the vault is read and a link
loop cannot recur; hidden folders (``.obsidian``, ``.git``, ``.trash``) are not
entered; only regular ``.md`` files up to the size limit are opened.

Slugs: a card's slug is its file name without ``.md``. When two files share a
name, the one with the shortest path (then the first alphabetically) keeps the
bare name, the way Obsidian resolves a bare ``[[name]]``; the others take their
path inside the vault without ``.md`` (``ops/docker``), which ``[[ops/docker]]``
links reach.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .note import NoteError, ParsedNote, parse_note


@dataclass
class VaultNote:
    file: str
    """Path inside the vault, ``/``-separated."""
    slug: str
    parsed: ParsedNote
    file_hash: str
    """sha256 of the file's bytes: an unchanged file is recognised by it."""
    mtime: int
    """Epoch milliseconds: the fallback for ``created``/``modified``."""

    @property
    def title(self) -> str:
        return self.parsed.title or PurePosixPath(self.slug).name


@dataclass
class VaultScan:
    root: Path
    notes: list[VaultNote] = field(default_factory=list)
    unreadable: list[dict] = field(default_factory=list)
    """``{"file", "reason"}`` for files and folders that could not be read."""
    skipped: list[dict] = field(default_factory=list)
    """``{"file", "reason"}`` for symbolic links, which are never followed."""

    def resolver(self) -> "LinkResolver":
        return LinkResolver(self.notes)


class LinkResolver:
    """A wikilink target → the slug of the card it means, as Obsidian would pick it (case-insensitive)."""

    def __init__(self, notes: list[VaultNote]):
        self._by_slug = {note.slug.lower(): note.slug for note in notes}
        self._by_path = {note.file[:-3].lower(): note.slug for note in notes}
        self._by_name: dict[str, str] = {}
        for note in sorted(notes, key=lambda n: _path_rank(n.file)):
            self._by_name.setdefault(PurePosixPath(note.file).stem.lower(), note.slug)

    def resolve(self, target: str) -> str | None:
        key = target.lower()
        return (self._by_slug.get(key) or self._by_path.get(key)
                or self._by_name.get(PurePosixPath(key).name))


def scan_vault(root: Path, max_bytes: int) -> VaultScan:
    """Every card file under ``root`` (itself resolved first), parsed; problems listed, never raised."""
    scan = VaultScan(root=root)
    found: list[tuple[str, ParsedNote, str, int]] = []

    def unreadable_folder(error: OSError) -> None:
        scan.unreadable.append({"file": _relative(root, Path(error.filename or root)),
                                "reason": error.strerror or str(error)})

    for folder, folders, files in os.walk(root, onerror=unreadable_folder):
        here = Path(folder)
        for name in list(folders):
            if name.startswith(".") or (here / name).is_symlink():
                folders.remove(name)
                if not name.startswith("."):
                    scan.skipped.append(_symlink_entry(root, here / name))
        folders.sort()
        for name in sorted(files):
            if not name.lower().endswith(".md"):
                continue
            path = here / name
            if path.is_symlink():
                scan.skipped.append(_symlink_entry(root, path))
                continue
            relative = _relative(root, path)
            try:
                found.append((relative, *_read(path, max_bytes)))
            except (OSError, NoteError) as error:
                reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
                scan.unreadable.append({"file": relative, "reason": reason})
    scan.notes = [VaultNote(file=relative, slug=slug, parsed=parsed, file_hash=digest, mtime=mtime)
                  for (relative, parsed, digest, mtime), slug in zip(found, assign_slugs([f[0] for f in found]))]
    return scan


def assign_slugs(files: list[str]) -> list[str]:
    """The file name without ``.md``; for a shared name only the shortest path keeps it (see module doc)."""
    owners: dict[str, str] = {}
    for file in sorted(files, key=_path_rank):
        owners.setdefault(PurePosixPath(file).stem, file)
    return [stem if owners[stem] == file else file[:-3]
            for file, stem in ((file, PurePosixPath(file).stem) for file in files)]


def _path_rank(file: str) -> tuple[int, str]:
    return len(PurePosixPath(file).parts), file


def _read(path: Path, max_bytes: int) -> tuple[ParsedNote, str, int]:
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode):
        raise NoteError("not a regular file")
    if info.st_size > max_bytes:
        raise NoteError(f"file is {info.st_size / 1e6:.1f} MB, over ingest.max_file_mb ({max_bytes / 1e6:g} MB)")
    data = path.read_bytes()
    if b"\0" in data:
        raise NoteError("binary file (contains NUL bytes), not Markdown")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NoteError(f"not UTF-8 text (invalid byte at offset {error.start})") from None
    return parse_note(text), hashlib.sha256(data).hexdigest(), int(info.st_mtime * 1000)


def _symlink_entry(root: Path, path: Path) -> dict:
    target = Path(os.path.realpath(path))
    inside = target == root or root in target.parents
    where = "inside the vault" if inside else "outside the vault"
    return {"file": _relative(root, path), "reason": f"symbolic link to {where} ({target}); links are not followed"}


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
