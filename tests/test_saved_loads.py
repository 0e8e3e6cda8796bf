"""Saved loads: what an owner server held of L1, written to the store's cache when it stops and mapped back by the
next process while the table is unchanged; read from LanceDB again whenever it is not.

Real stores (graph database and LanceDB) in temporary homes, real files, a real server process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
from conftest import cli_for
from test_server import server_env
from test_turn_windows import CHAT, chat_session

from alaya_engine.engine import Engine
from alaya_engine.foundations.id_table import IdTable
from alaya_engine.recall.index import EXACT_SEARCH_ROWS, ResidentVectors
from alaya_engine.recall.saved_loads import SavedLoads, SavedTable
from alaya_engine.vectors.packed_rows import PackedRows, pack_batches, unpack_batches


def unit_rows(count: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, 128)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def mapped(array: np.ndarray) -> bool:
    """A view of a file mapped read-only (a plain array: slicing an ``np.memmap`` runs Python code)."""
    return type(array) is np.ndarray and isinstance(array.base, np.memmap) and not array.flags.writeable


def test_a_large_load_saved_and_mapped_back_searches_exactly_as_it_did(tmp_path):
    """Floats and 8-bit codes, each above the row count that builds the coarse projection: the restored load maps
    the same arrays (nothing recomputed) and ranks every query the same."""
    matrix = unit_rows(EXACT_SEARCH_ROWS + 700, 1)
    codes_scales = (np.abs(matrix).max(axis=1) / 127).astype(np.float32)
    codes = np.rint(matrix / codes_scales[:, None]).astype(np.int8)
    ids = [f"card-{row}" for row in range(len(matrix))]
    queries = unit_rows(6, 2)
    loads = SavedLoads(tmp_path / "resident")
    for name, load in (("floats", ResidentVectors(ids, matrix)), ("codes", ResidentVectors(ids, codes, codes_scales))):
        assert load.coarse is not None
        table = SavedTable(loads, name, lambda: (3, "3-key"), ResidentVectors.of_arrays)
        assert table.save(load, 3) and not table.save(load, 3)  # saved once
        restored = table.restore(3)
        assert mapped(restored.matrix) and mapped(restored.coarse.codes)
        assert restored.ids == ids and all(restored.position.get(card_id) == row for row, card_id in enumerate(ids))
        assert restored.position.get("card-x") is None and restored.ids[7] == "card-7"
        assert np.array_equal(restored.coarse.codes, load.coarse.codes)
        for query in queries:
            assert restored.scored_search(query[None], 20, 0.0) == load.scored_search(query[None], 20, 0.0)
        assert table.restore(4) is None  # the table moved on: not this load


def test_an_id_table_reads_and_finds_ids_as_a_list_and_a_dict_would():
    ids = ["synth-1:turns:0-2", "card-b", "周末-爬山:turns:2-4", "", "card-a", "card-ab", "z" * 300, "card-aa"]
    table = IdTable(*IdTable.arrays_of(ids).values())
    assert len(table) == len(ids) and list(table) == ids and table == ids and table[2] == ids[2]
    assert [table.get(card_id) for card_id in ids] == list(range(len(ids)))
    for missing in ("card-", "card-c", "a", "zz", "周末", "~"):
        assert table.get(missing) is None
    again = IdTable(*IdTable.arrays_of(table).values())
    assert again == ids and again.get("card-aa") == 7
    asked = [*reversed(ids), "card-c", "周末", ids[1]]
    assert again.rows(asked).tolist() == [table.get(card_id, -1) for card_id in asked]
    assert IdTable(*IdTable.arrays_of([]).values()).rows(["card-a"]).tolist() == [-1]


def test_ids_whose_digests_collide_are_still_told_apart(monkeypatch):
    """Many ids to one digest (here by their length): each is found by its own bytes, one at a time or together."""
    from alaya_engine.foundations import id_table

    monkeypatch.setattr(id_table, "digest", len)
    ids = ["card-a", "card-b", "card-c", "card-aa", "card-bb", "x"]
    table = IdTable(*IdTable.arrays_of(ids).values())
    assert [table.get(card_id) for card_id in ids] == list(range(len(ids)))
    assert table.rows(["card-c", "card-d", "card-bb", "x", "y"]).tolist() == [2, -1, 4, 5, -1]


def test_packed_rows_flattened_and_split_again_read_every_row_as_before():
    import pyarrow as pa

    schema = pa.schema([("session_id", pa.string()), ("first", pa.int32()), ("last", pa.int32()),
                        ("time", pa.int64()), ("text", pa.string())])
    batches = []
    for batch, count in enumerate((70, 1, 33, 0, 64)):
        columns = {"session_id": [f"s-{batch}-{row // 9}" for row in range(count)], "first": list(range(count)),
                   "last": [row + 2 for row in range(count)], "time": [1_700_000_000_000 + row for row in range(count)],
                   "text": [f"user: 第{row}行 of batch {batch}\nassistant: ok" * (row % 3) for row in range(count)]}
        batches.append(PackedRows(pa.RecordBatch.from_pydict(columns, schema=schema)))
    arrays, sessions = pack_batches(batches)
    again = unpack_batches(arrays, sessions)
    assert [batch.num_rows for batch in again] == [70, 1, 33, 0, 64]
    assert [[batch.row(row) for row in range(batch.num_rows)] for batch in again] == \
        [[batch.row(row) for row in range(batch.num_rows)] for batch in batches]


def stored(home, tmp_path) -> Engine:
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in", f"chat-{n}", CHAT[n:] + CHAT[:n])) for n in range(3)])
    engine.distill()
    return engine


def held(engine: Engine) -> tuple:
    """What one engine holds after a refresh of both indexes, as the owner server holds it (windows with rows)."""
    engine.card_index().refresh()
    windows = engine.turn_index()
    windows.keep_rows()
    windows.refresh()
    return engine.card_index().resident, windows.resident


def test_the_next_engine_maps_what_the_last_one_saved_until_the_table_changes(home, tmp_path):
    first = stored(home, tmp_path)
    cards, windows = held(first)
    assert sorted(first.save_resident()) == ["cards", "windows"] and first.save_resident() == []
    saved = sorted(path.name.split("-v")[0] for path in (home / "cache" / "resident").iterdir())
    assert saved == ["card_vectors", "turn_windows"]  # no COLD card yet: nothing to save of that table

    second = Engine.open(home)
    mapped_cards, mapped_windows = held(second)
    assert mapped(mapped_cards.matrix) and mapped(mapped_windows.matrix)
    assert mapped_cards.ids == cards.ids and mapped_windows.ids == windows.ids
    assert mapped_windows.windows(windows.ids) == windows.windows(windows.ids)
    question = {"text": "王峰周末打算做什么？"}
    assert [node.card_id for node in second.recall(question).nodes] == \
        [node.card_id for node in first.recall(question).nodes]

    second.ingest([str(chat_session(tmp_path / "more", "chat-9", CHAT[1:]))])
    _, reloaded = held(second)
    assert not mapped(reloaded.matrix) and len(reloaded.ids) > len(windows.ids)
    assert second.save_resident() == ["windows"]
    names = [path.name for path in (home / "cache" / "resident").iterdir()]
    assert len([name for name in names if name.startswith("turn_windows")]) == 1  # the older one removed


def test_a_damaged_saved_load_is_read_from_its_table_instead(home, tmp_path):
    first = stored(home, tmp_path)
    _, windows = held(first)
    first.save_resident()
    folder = next((home / "cache" / "resident").glob("turn_windows-*"))
    ends = np.load(folder / "ids_ends.npy")
    np.save(folder / "ids_ends.npy", ends[:-1])  # a valid file that disagrees with the others
    _, again = held(Engine.open(home))
    assert not mapped(again.matrix) and again.ids == windows.ids
    np.save(folder / "ids_ends.npy", ends)
    _, mapped_again = held(Engine.open(home))
    assert mapped(mapped_again.matrix)  # the same folder, whole again: used
    codes = folder / "matrix.npy"
    codes.write_bytes(codes.read_bytes()[:-7])  # cut short, as a disk that filled up mid-write leaves it
    _, again = held(Engine.open(home))
    assert not mapped(again.matrix) and again.ids == windows.ids


def test_a_save_never_recreates_a_cache_folder_that_is_gone(home, tmp_path):
    first = stored(home, tmp_path)
    held(first)
    shutil.rmtree(home / "cache")
    assert first.save_resident() == [] and not (home / "cache").exists()


def test_the_owner_server_saves_its_loads_as_it_stops_and_the_next_one_answers_from_them(home, tmp_path):
    stored(home, tmp_path)
    cli = cli_for(home)
    question = ["recall", "--json", "王峰在读什么书"]
    env = server_env()

    def through_server() -> list[str]:
        done = subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), *question], env=env,
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        return [node["card_id"] for node in json.loads(done.stdout)["nodes"]]

    first = through_server()
    assert not (home / "cache" / "resident").exists()  # saved as the server stops, not before
    stop = subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), "server", "stop"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert stop.returncode == 0, stop.stderr
    assert sorted(path.name.split("-v")[0] for path in (home / "cache" / "resident").iterdir()) == \
        ["card_vectors", "turn_windows"]
    assert through_server() == first
    assert "saved the resident cards and windows" in (home / "logs" / "alaya.log").read_text(encoding="utf-8")
    subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), "server", "stop"], env=env,
                   capture_output=True, text=True, timeout=60)
    verified = cli("verify", "--json")
    assert verified.exit_code == 0, verified.stdout
    saved = sum(file.stat().st_size for file in (home / "cache" / "resident").rglob("*") if file.is_file())
    assert json.loads(cli("status", "--json").stdout)["l1"]["saved_bytes"] == saved > 0
    assert "Saved for the next server's start" in cli("status").stdout


def test_a_save_that_cannot_be_made_leaves_nothing_and_the_next_one_cleans_up(small_disk, tmp_path):
    """A full disk, a cache folder that is a file, session ids holding the list separator, a save cut short by a
    kill: nothing half-written is ever named as a load, and a later save removes what a killed one left."""
    from conftest import fill

    big = {"matrix": np.ones((20_000, 512), dtype=np.int8)}  # 10 MB
    loads = SavedLoads(small_disk / "resident")
    filler = fill(small_disk, 2048)
    assert not loads.save("turn_windows", "1-a", big, {})
    assert list(loads.folder.iterdir()) == []  # the temporary folder went with the failure
    filler.unlink()
    (loads.folder / ".turn_windows-v9-0-a.123").mkdir()  # what a save killed midway leaves
    assert loads.save("turn_windows", "2-b", big, {"sessions": ["s-1", "s-2"]})
    assert [path.name.split("-v")[0] for path in loads.folder.iterdir()] == ["turn_windows"]
    assert loads.restore("turn_windows", "2-b")[1] == {"sessions": ["s-1", "s-2"]}
    assert not loads.save("turn_windows", "3-c", big, {"sessions": ["s-1\nforged"]})
    assert loads.restore("turn_windows", "3-c") is None

    a_file = SavedLoads(tmp_path / "resident")
    a_file.folder.write_text("not a folder")
    assert not a_file.save("cards", "1-a", big, {}) and a_file.restore("cards", "1-a") is None
