"""Item 10 of issue 21: verify reads vector values, not just rows. A NaN, infinite or all-zero vector written into
LanceDB (what random bytes in a data fragment leave) is named, with ``rebuild --l1`` as its repair, which works."""

from __future__ import annotations

import lancedb
import numpy as np
import pyarrow as pa

from alaya_engine.engine import Engine
from alaya_engine.vectors.store import CARD_VECTORS
from alaya_engine.vectors.turn_windows import TURN_WINDOWS


def overwrite_vector(table, row_id: str, vector: list[float]) -> None:
    """Put ``vector`` in the row straight through LanceDB, not through Alaya."""
    row = table.search().where(f"id = '{row_id}'").limit(1).to_arrow()
    column = row.schema.get_field_index("vector")
    values = pa.FixedSizeListArray.from_arrays(pa.array(np.array(vector, np.float32)), len(vector))
    table.merge_insert("id").when_matched_update_all().execute(row.set_column(column, "vector", values))


def damage_vector_bytes(folder, vector: np.ndarray) -> None:
    """Overwrite the first float of ``vector`` with a NaN wherever a data file holds it, as random bytes in a
    fragment do (LanceDB itself refuses to write a NaN). Every copy: older fragments of the table may hold the same
    vector, and which one a read uses depends on the store's history."""
    needle = vector.astype(np.float32).tobytes()[:64]
    damaged = 0
    for path in folder.glob("data/*.lance"):
        data = bytearray(path.read_bytes())
        at = data.find(needle)
        while at >= 0:
            data[at:at + 4] = np.array([np.nan], np.float32).tobytes()
            damaged += 1
            at = data.find(needle, at + 4)
        path.write_bytes(bytes(data))
    assert damaged, "the vector's bytes are in no data file"


def test_non_finite_and_zero_vectors_are_found_and_rebuild_l1_repairs_them(demo_home, demo_cli):
    engine = Engine.open(demo_home)
    nan, zero = sorted(engine.vectors().vector_ids())[:2]
    database = lancedb.connect(str(demo_home / "lancedb"))
    dimension = engine.manifest["embedding"]["dimension"]
    cards = database.open_table(CARD_VECTORS)
    ids, matrix = engine.vectors().active_vectors()
    damage_vector_bytes(demo_home / "lancedb" / f"{CARD_VECTORS}.lance", matrix[ids.index(nan)])
    overwrite_vector(cards, zero, [0.0] * dimension)
    windows = database.open_table(TURN_WINDOWS)
    window = windows.search().where("embedded").select(["id"]).limit(1).to_list()[0]["id"]
    overwrite_vector(windows, window, [float("inf")] * dimension)

    result = demo_cli("verify", "--json")
    assert result.exit_code == 1
    bad = [problem for problem in result.json()["problems"] if problem["kind"] == "unusable_vector"]
    assert sorted(problem["ids"][0] for problem in bad) == sorted([nan, zero, window])
    assert all(problem["repair"] == "alaya rebuild --l1" for problem in bad)

    assert demo_cli("rebuild", "--l1").exit_code == 0
    assert demo_cli("verify", "--json").json()["ok"]
