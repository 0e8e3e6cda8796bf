"""SavedLoads: the owner server's resident loads written to the store's cache when it stops, and mapped back by
its next start while their table is unchanged.

A load is what recall holds of one L1 table (:class:`.index.ResidentVectors`: ids, vectors or 8-bit codes, the
coarse projection; for the windows also their packed rows). Read from LanceDB it is rebuilt every time: at the aged
100k store the windows took 3.1-3.3 s of a server's start (scan, quantising, packing the rows' text, the
projection), at a million cards most of a 45 s start. Saved, its arrays are ``.npy`` files mapped read-only: the
pages a search touches come in from the page cache as it touches them. That makes the start fast, not the server
small: a concept's candidates lie all over the full codes, so after a few recalls they are resident whole
(docs/benchmarks.md, "How much memory a million-card server needs").

A saved load is named by what it is a load of: its table, the table's version, and the inode and mtime of the
table's ``_versions`` folder (a rebuilt or re-created table starts its versions again, in a new folder). Its folder
is written under a temporary name and renamed into place, so it is complete or absent and never changes after; a
save removes the table's other folders. Everything here is a cache: a load that cannot be read is read from
LanceDB, as it was before (docs/architecture.md).
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np

FORMAT = 4
"""Part of every folder's name: a change to what a load holds changes it, and older folders are not read."""
SEPARATOR = "\n"
"""Between the strings of a saved list (session ids never hold it: a list that does is not saved)."""
log = logging.getLogger(__name__)


class SavedLoads:
    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, table: str, key: str) -> Path:
        return self.folder / f"{table}-v{FORMAT}-{key}"

    def has(self, table: str, key: str) -> bool:
        return self._path(table, key).is_dir()

    def restore(self, table: str, key: str) -> "tuple[dict[str, np.ndarray], dict[str, list[str]]] | None":
        """The arrays (mapped) and string lists saved for ``table`` as of ``key``, or None when there are none or
        they cannot be read."""
        import numpy as np

        path = self._path(table, key)
        if not path.is_dir():
            return None
        try:
            # plain arrays over the maps: slicing an np.memmap runs Python code (a tenth of a recall's time)
            arrays = {file.stem: np.asarray(np.load(file, mmap_mode="r", allow_pickle=False))
                      for file in path.glob("*.npy")}
            texts = {file.stem: _strings(file.read_text(encoding="utf-8")) for file in path.glob("*.txt")}
        except (OSError, ValueError) as error:
            log.warning("the saved load %s cannot be read (%s); reading its table instead", path.name, error)
            return None
        return arrays, texts

    def save(self, table: str, key: str, arrays: "dict[str, np.ndarray]", texts: dict[str, list[str]]) -> bool:
        """Write this load of ``table`` as of ``key`` and remove the table's other saved loads; False (logged)
        when it could not be written (a full disk: the cache is only ever a shortcut)."""
        import numpy as np

        if any(SEPARATOR in text for strings in texts.values() for text in strings):
            return False
        final = self._path(table, key)
        temporary = self.folder / f".{final.name}.{os.getpid()}"
        try:
            shutil.rmtree(temporary, ignore_errors=True)
            self.folder.mkdir(exist_ok=True)  # not its parents: a store whose cache folder is gone is not one
            temporary.mkdir()
            for name, array in arrays.items():
                np.save(temporary / f"{name}.npy", np.asarray(array), allow_pickle=False)
            for name, strings in texts.items():
                (temporary / f"{name}.txt").write_text(SEPARATOR.join(strings), encoding="utf-8")
            _sync_folder(temporary)
            if not final.exists():
                temporary.rename(final)
        except OSError as error:
            log.warning("could not save the resident load of %s (%s); the next start reads the table", table, error)
            return False
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
        self._remove_others(table, final)
        return True

    def _remove_others(self, table: str, kept: Path) -> None:
        """A table's saved loads but ``kept``, and what a save cut short left (a dot folder)."""
        for path in self.folder.iterdir():
            if path != kept and path.name.lstrip(".").startswith(f"{table}-"):
                shutil.rmtree(path, ignore_errors=True)


class Load(Protocol):
    """What a saved load is made from and made into (:class:`.index.ResidentVectors`)."""

    ids: "Sequence[str]"
    matrix: Any

    def arrays(self) -> "tuple[dict[str, np.ndarray], dict[str, list[str]]]": ...


class SavedTable:
    """The saved loads of one table, ``identity()`` telling what the table is now (its version and name, as
    :meth:`~alaya_engine.vectors.versions.TableVersions.identity`), ``made(arrays, lists)`` making a load again."""

    def __init__(self, loads: SavedLoads, table: str, identity: "Callable[[], tuple[int, str] | None]",
                 made: "Callable[[dict, dict], Load]"):
        self.loads, self.table, self.identity, self.made = loads, table, identity, made

    def restore(self, version: int) -> "Load | None":
        """The load of the table at ``version`` saved earlier, when that is still the table's version."""
        current = self.identity()
        saved = self.loads.restore(self.table, current[1]) if current and current[0] == version else None
        if saved is None:
            return None
        try:
            load = self.made(*saved)
        except (KeyError, ValueError, IndexError) as error:  # what a damaged or tampered folder raises
            log.warning("the saved load of %s is incomplete (%s); reading the table instead", self.table, error)
            return None
        return load

    def save(self, load: Load, version: int | None) -> bool:
        """Save ``load``, the table's at ``version``, unless the table has moved on since or it is saved already."""
        current = self.identity()
        if not load.ids or version is None or current is None or current[0] != version \
                or self.loads.has(self.table, current[1]):
            return False
        return self.loads.save(self.table, current[1], *load.arrays())


def _strings(text: str) -> list[str]:
    return text.split(SEPARATOR) if text else []


def _sync_folder(folder: Path) -> None:
    """Every file written to disk before the folder is renamed into place, so a crash cannot leave a complete
    name over incomplete files."""
    for file in folder.iterdir():
        with open(file, "rb") as handle:
            os.fsync(handle.fileno())
