"""A table's version is asked of LanceDB only when its ``_versions`` folder may have changed; a commit by another
handle (another process, in production) is always seen."""

from __future__ import annotations

import os

import numpy as np

from alaya_engine.vectors.store import RELATIONS, VectorStore
from alaya_engine.vectors.versions import SETTLE_NS


def _store(folder) -> VectorStore:
    store = VectorStore(folder, 8)
    store.create_tables()
    return store


def _commit(store: VectorStore, name: str) -> None:
    store.upsert_relations([name], np.ones((1, 8), np.float32), is_core=False, examples=[[]])


def _counted(store: VectorStore) -> list[int]:
    """Count the questions put to LanceDB by ``store.version``."""
    asked = []
    real = store._versions.version
    store._versions.version = lambda name, ask: real(name, lambda: asked.append(name) or ask())
    return asked


def _versions_folder(store: VectorStore):
    return store.folder / f"{RELATIONS}.lance" / "_versions"


def test_a_settled_unchanged_table_is_not_asked_again(tmp_path):
    store = _store(tmp_path)
    _commit(store, "A_TO_B")
    folder = _versions_folder(store)
    settled = os.stat(folder).st_mtime_ns - 2 * SETTLE_NS
    os.utime(folder, ns=(settled, settled))
    asked = _counted(store)
    first = store.version(RELATIONS)
    assert store.version(RELATIONS) == first == store.table(RELATIONS).version
    assert asked == [RELATIONS]


def test_a_commit_by_another_handle_is_seen(tmp_path):
    store = _store(tmp_path)
    folder = _versions_folder(store)
    settled = os.stat(folder).st_mtime_ns - 2 * SETTLE_NS
    os.utime(folder, ns=(settled, settled))
    before = store.version(RELATIONS)
    _commit(VectorStore(tmp_path, 8), "WRITTEN_ELSEWHERE")
    assert store.version(RELATIONS) > before
    assert "WRITTEN_ELSEWHERE" in store.relation_vectors()[0]


def test_a_commit_in_the_same_clock_tick_is_seen(tmp_path):
    """The folder's mtime may not move for a commit in the tick of the previous one: a version checked that soon
    after the folder changed is asked again, so the commit is not missed."""
    store = _store(tmp_path)
    folder = _versions_folder(store)
    before = store.version(RELATIONS)
    unchanged = os.stat(folder)
    _commit(VectorStore(tmp_path, 8), "SAME_TICK")
    os.utime(folder, ns=(unchanged.st_atime_ns, unchanged.st_mtime_ns))
    assert store.version(RELATIONS) > before
