"""Windows of raw turns: made at ingest, returned by recall beside cards, traced from L3, checked and rebuilt.

Real stores (graph database and LanceDB) in temporary homes; the sessions are written by the tests.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from conftest import cli_for

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import Session, Turn
from alaya_engine.foundations.terms import term_list
from alaya_engine.raw.windows import parse_window_id, session_windows, window_heading, window_id
from alaya_engine.recall.access import AccessLog
from alaya_engine.schemas import json_schema

DAY = 1682553600000  # 2023-04-27 00:00 UTC
CHAT = [
    ("user", "你好，我叫王峰，这是我们第一次聊天。"),
    ("assistant", "你好王峰，很高兴认识你。今天想聊些什么？"),
    ("user", "我最近在读《百年孤独》，很喜欢马尔克斯的写法。"),
    ("assistant", "这本书的魔幻现实主义很有名。你读到哪里了？"),
    ("user", "读到一半了。周末我还打算去爬香山。"),
    ("assistant", "祝你周末玩得开心！"),
]


def chat_session(folder: Path, session_id: str = "chat-1", turns=CHAT, day: int = DAY) -> Path:
    document = {"id": session_id, "timestamp": day, "channel": "chat", "agent": "main",
                "turns": [{"role": role, "content": text, "timestamp": day + 30_000 * n, "speaker": speaker}
                          for n, ((role, text), speaker) in enumerate(zip(turns, ["王峰", "AI"] * len(turns)))]}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def held_rows(index):
    """The resident load, when it is of the table's current version and holds the windows' rows."""
    load = index.current()
    return load if load is not None and load.rows is not None else None


def windows_of(result: dict) -> list[dict]:
    return [node for node in result["nodes"] if node["kind"] == "session_turns"]


def test_windows_span_three_spoken_turns_every_two_and_keep_the_tail():
    turns = [Turn("user", "u0"), Turn("assistant", "a1"), Turn("tool", "tool output"), Turn("user", "u3"),
             Turn("assistant", "a4"), Turn("user", "u5"), Turn("assistant", "   ")]
    windows = session_windows(Session("s", DAY, turns))
    # spoken positions 0 1 3 4 5: windows start at the 1st and 3rd spoken turn, the tail window ends at the last
    assert [(window.first, window.last) for window in windows] == [(0, 3), (3, 5)]
    assert windows[0].text == "user: u0\nassistant: a1\nuser: u3"
    assert parse_window_id(windows[1].id) == ("s", 3, 5) and windows[1].id == window_id("s", 3, 5)
    assert parse_window_id("card-3ef7d74365696dbe") is None
    assert session_windows(Session("t", DAY, [Turn("tool", "x")])) == []


def test_a_window_is_headed_by_its_first_line_without_markdown_marks():
    turns = [Turn("assistant", "- **On disk**: `notAfter` Jun 12."), Turn("user", "ok")]
    window = session_windows(Session("s", DAY, turns))[0]
    assert window_heading(window).partition(" · ")[0] == "assistant: - On disk: notAfter Jun 12."
    assert "**" in window.text  # the text itself stays as said


def test_chinese_terms_are_character_pairs_and_words_are_lower_case():
    assert term_list("读书了 书 Form I-130") == ["读书", "书了", "书", "form", "i", "130"]


def test_recall_finds_a_fact_in_raw_turns_and_the_result_matches_the_schema(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    assert engine.ingest([str(chat_session(tmp_path / "in"))]).to_json()["unchanged"] == 1
    assert engine.turn_windows().count() == 3
    result = engine.recall({"text": "王峰在读什么书？"}).to_json()
    jsonschema.validate(result, json_schema("recall"))
    best = windows_of(result)[0]
    assert best["session_id"] == "chat-1" and best["turn_range"][0] <= 2 <= best["turn_range"][1]
    assert "百年孤独" in best["content"] and best["content"].startswith("王峰: ")
    assert best["time"] == DAY + 30_000 * best["turn_range"][0] and best["tier"] == "RAW"
    assert result["nodes"][0]["kind"] == "session_turns"  # nothing else in the store


def test_windows_sharing_a_turn_are_never_returned_apart(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    spans = [node["turn_range"] for node in windows_of(engine.recall({"text": "王峰 百年孤独 香山"}).to_json())]
    assert spans and all(a[1] < b[0] or b[1] < a[0] for i, a in enumerate(spans) for b in spans[i + 1:])


def test_cards_only_when_sessions_are_left_out(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    result = engine.recall({"text": "王峰在读什么书？", "include_sessions": False}).to_json()
    assert windows_of(result) == [] and result["query"]["include_sessions"] is False
    with pytest.raises(Exception, match="'include_sessions' must be true or false"):
        engine.recall({"text": "x", "include_sessions": "yes"})
    document = cli_for(home)("recall", "王峰在读什么书", "--no-sessions", "--json").json()
    assert windows_of(document) == []


def test_a_window_is_traced_and_shown_from_l3_but_never_counted_as_a_card_access(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    best = windows_of(engine.recall({"text": "百年孤独"}).to_json())[0]
    trace = engine.trace(best["card_id"]).to_json()
    first, last = best["turn_range"]
    assert [turn["index"] for turn in trace["context_turns"]] == list(range(first, last + 1))
    assert trace["sessions"][0]["id"] == "chat-1" and Path(trace["sessions"][0]["path"]).is_file()
    card = engine.card(best["card_id"])
    assert card["card"]["kind"] == "session_turns" and card["outgoing"] == card["incoming"] == []
    folded, _ = AccessLog(engine.layout.access_log).fold()
    assert not any(parse_window_id(card_id) for card_id in folded)
    with pytest.raises(Exception, match="not one of its windows"):
        engine.trace("chat-1:turns:4-99")
    with pytest.raises(Exception, match="no session 'nope'"):
        engine.trace("nope:turns:0-2")


def test_a_replaced_session_keeps_only_its_new_windows(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    engine.ingest([str(chat_session(tmp_path / "new", turns=CHAT[:2] + [("user", "其实我在读《活着》。")]))],
                  replace=True)
    assert engine.turn_windows().session_counts() == {"chat-1": 1}
    contents = " ".join(node["content"] for node in windows_of(engine.recall({"text": "在读什么书"}).to_json()))
    assert "活着" in contents and "百年孤独" not in contents


def test_missing_windows_are_reported_caught_up_by_ingest_and_rebuilt(home, tmp_path):
    """An ingest killed between L3 and L1 leaves a session without windows: verify names it, the same ingest
    again fills it in, and rebuild --l1 rebuilds every window from L3."""
    engine = Engine.open(home)
    path = chat_session(tmp_path / "in")
    engine.ingest([str(path), str(chat_session(tmp_path / "in", "chat-2", day=DAY + 86_400_000))])
    engine.turn_windows().replace_sessions(["chat-1"], [], [])
    problems = engine.verify().to_json()["problems"]
    assert [(p["kind"], p["ids"]) for p in problems] == [("missing_windows", ["chat-1"])]
    assert "alaya rebuild --l1" in problems[0]["repair"]
    report = engine.ingest([str(path)])
    assert report.to_json()["unchanged"] == 1
    assert engine.turn_windows().session_counts() == {"chat-1": 3, "chat-2": 3}
    assert engine.verify().to_json()["ok"]

    shutil.rmtree(engine.layout.vectors_dir / "turn_windows.lance")  # as in a store made before windows existed
    engine = Engine.open(home)
    assert engine.verify().to_json()["counts"] == {"missing_windows": 2}
    engine.ingest([str(chat_session(tmp_path / "in", "chat-3", day=DAY + 2 * 86_400_000))])
    assert engine.turn_windows().session_counts() == {"chat-3": 3}
    rebuilt = cli_for(home)("rebuild", "--l1", "--json").json()
    assert rebuilt["windows"] == 9
    engine = Engine.open(home)
    assert engine.verify().to_json()["ok"]
    assert windows_of(engine.recall({"text": "香山"}).to_json())[0]["session_id"] in {"chat-1", "chat-2"}


def test_windows_beyond_the_ingest_budget_are_found_by_words_and_embedded_by_distill(home, tmp_path):
    engine = Engine.open(home)
    session = engine.raw.read(engine.raw.write(Session("chat-1", DAY, [Turn(role, text) for role, text in CHAT])))
    store = engine.turn_windows()
    assert store.index([session], engine.embedder().embed, budget=1) == 3 and store.pending() == 2
    assert len(engine.turn_index().store.active_windows(False, engine.turn_windows().vectors_version())[0]) == 1
    engine.config["recall"]["lexical_floor"] = 0.0  # the one hit counts as exact: distance (1 - 0)(1 - 0.5 · 1)
    found = windows_of(engine.recall({"text": "香山"}).to_json())
    # the full-text hit 3-5 comes first; window 2-4, found by its vector, overlaps it and extends it
    assert found[0]["turn_range"] == [2, 5] and found[0]["concept_distance"] == pytest.approx(0.5, abs=1e-3)
    assert engine.distill().to_json()["windows_embedded"] == 2
    assert store.pending() == 0 and len(store.active_windows(False, store.vectors_version())[0]) == 3
    assert windows_of(engine.recall({"text": "香山"}).to_json())[0]["concept_distance"] < 0.5


def test_a_window_cannot_be_navigated_from(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    with pytest.raises(Exception, match="window of raw turns"):
        engine.recall({"from_nodes": ["chat-1:turns:0-2"]})


def test_vectors_committed_between_the_count_and_the_scan_are_read_whole():
    """The resident reload counts rows, then scans; an ingest committing in between makes the scan longer
    (the owner server's reload failed with 'could not broadcast (147,512) into (144,512)')."""
    import numpy as np
    import pyarrow as pa

    from alaya_engine.vectors.store import read_matrix

    def batch(start: int, rows: int) -> pa.RecordBatch:
        vectors = np.arange(start * 2, (start + rows) * 2, dtype=np.float32)
        return pa.record_batch([pa.array([f"w{n}" for n in range(start, start + rows)]),
                                pa.FixedSizeListArray.from_arrays(pa.array(vectors), 2)], names=["id", "vector"])

    ids, matrix = read_matrix([batch(0, 3), batch(3, 4)], 5, 2)
    assert ids == [f"w{n}" for n in range(7)] and matrix.shape == (7, 2) and matrix[6].tolist() == [12.0, 13.0]
    ids, matrix = read_matrix([batch(0, 2)], 5, 2)
    assert ids == ["w0", "w1"] and matrix.shape == (2, 2)


def test_overlapping_windows_become_one_unit_read_whole_from_l3_and_traceable(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    found = windows_of(engine.recall({"text": "王峰 百年孤独 马尔克斯 香山 周末"}).to_json())
    assert len(found) == 1 and found[0]["turn_range"] == [0, 5]  # windows 0-2, 2-4 and 3-5 all ranked
    lines = found[0]["content"].split("\n")
    assert lines == [f"{speaker}: {text}" for (_, text), speaker in zip(CHAT, ["王峰", "AI"] * 3)]
    assert found[0]["card_id"] == window_id("chat-1", 0, 5) and found[0]["time"] == DAY
    trace = engine.trace(found[0]["card_id"]).to_json()
    assert [turn["index"] for turn in trace["context_turns"]] == [0, 1, 2, 3, 4, 5]


def test_take_units_merges_a_window_into_the_best_it_overlaps_and_gives_bridged_places_back():
    from alaya_engine.recall.run import take_units

    ranked = [(0.1, "s:turns:0-2", "a"), (0.2, "card-1", "c"), (0.3, "s:turns:4-6", "b"), (0.4, "t:turns:0-2", "x"),
              (0.5, "s:turns:2-4", "d"), (0.6, "card-2", "e"), (0.7, "s:turns:6-8", "f"), (0.8, "card-3", "g")]
    assert [row[1] for row in take_units(ranked, 3)] == ["s:turns:0-2", "card-1", "s:turns:4-6"]
    # 2-4 bridges 0-2 and 4-6 into one unit of 7 turns; 6-8 would make it 9 (MAX_MERGED_TURNS) and is skipped; the
    # place given back takes one more card
    assert take_units(ranked, 5) == [(0.1, "s:turns:0-6", "a", ["a", "b", "d"]), (0.2, "card-1", "c", ["c"]),
                                     (0.4, "t:turns:0-2", "x", ["x"]), (0.6, "card-2", "e", ["e"]),
                                     (0.8, "card-3", "g", ["g"])]


def test_a_window_vector_is_the_normalised_sum_of_its_lines_each_embedded_once(home):
    import numpy as np

    from alaya_engine.vectors.turn_windows import window_vectors

    embedder = Engine.open(home).embedder()
    asked: list[list[str]] = []

    def embed(texts):
        asked.append(list(texts))
        return embedder.embed(texts)

    long_line = "王峰: " + "香山" * 400
    vectors = window_vectors(embed, ["a: one\nb: two\na: three", "a: three\nb: four\n" + long_line])
    assert asked == [["a: one", "b: two", "a: three", "b: four", long_line[:300]]]  # the shared line once, cut at 300
    lines = embedder.embed(asked[0])
    expected = np.vstack([lines[[0, 1, 2]].sum(axis=0), lines[[2, 3, 4]].sum(axis=0)])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert vectors.dtype == np.float32 and np.allclose(vectors, expected, atol=1e-5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_load_behind_the_table_leaves_the_rows_to_lancedb_until_it_is_reloaded(home, tmp_path):
    """A long-lived holder reads the windows it returns from memory, but only while the resident load is of the
    table's current version: a window written since is read from the table, then from memory after the reload."""
    from alaya_engine.recall.turns import TurnSearch

    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    index, store = engine.turn_index(), engine.turn_windows()
    index.refresh()
    assert held_rows(index) is None  # a one-shot process holds no rows
    index.keep_rows()  # as the owner server's engine.keep_resident() does
    index.refresh()
    assert held_rows(index) is not None
    later = engine.raw.read(engine.raw.write(Session("chat-2", DAY, [Turn("user", "明天我要去颐和园划船。"),
                                                                     Turn("assistant", "记得带上防晒霜。")])))
    store.index([later], engine.embedder().embed)
    assert held_rows(index) is None  # written after the load: not refreshed yet
    behind = TurnSearch.start(index, engine.raw, "颐和园划船", 20)
    assert behind.load is None and list(behind.full_text.result()) == ["chat-2:turns:0-1"]
    nodes = behind.nodes({"chat-2:turns:0-1": (0.2, 0.4)}, merged=set())
    assert nodes["chat-2:turns:0-1"].content == "user: 明天我要去颐和园划船。\nassistant: 记得带上防晒霜。"
    index.refresh()
    current = TurnSearch.start(index, engine.raw, "颐和园划船", 20)
    assert current.load is not None
    assert current.load.windows(["chat-2:turns:0-1"])["chat-2:turns:0-1"].text == nodes["chat-2:turns:0-1"].content
    assert current.nodes({"chat-2:turns:0-1": (0.2, 0.4)}, merged=set()) == nodes
    found = windows_of(engine.recall({"text": "颐和园划船"}).to_json())
    assert found[0]["session_id"] == "chat-2" and "防晒霜" in found[0]["content"]


def test_a_load_behind_the_table_still_gives_the_windows_of_sessions_not_rewritten_since(home, tmp_path):
    """While an ingest writes, the load falls behind the table; the windows it holds of sessions not written again
    are the table's to the letter, so recall takes them from memory, and asks the table only for the others: new
    ones, and those of a session rewritten since."""
    from alaya_engine.recall.turns import TurnSearch

    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    index, store = engine.turn_index(), engine.turn_windows()
    index.keep_rows()
    index.refresh()
    old = "chat-1:turns:0-2"
    held = held_rows(index).windows([old])[old]
    asked: list[list[str]] = []
    read_from_table = store.windows
    store.windows = lambda ids: asked.append(list(ids)) or read_from_table(ids)
    later = engine.raw.read(engine.raw.write(Session("chat-2", DAY, [Turn("user", "明天我要去颐和园划船。"),
                                                                     Turn("assistant", "记得带上防晒霜。")])))
    store.index([later], engine.embedder().embed)
    behind = TurnSearch.start(index, engine.raw, None, 20)
    assert behind.load is None
    nodes = behind.nodes({old: (0.1, 0.2), "chat-2:turns:0-1": (0.2, 0.4)}, merged=set())
    assert asked == [["chat-2:turns:0-1"]] and nodes[old].content == held.text
    rewritten = engine.raw.read(engine.raw.write(Session("chat-1", DAY, [Turn("user", "这周末改去颐和园了。"),
                                                                         Turn("assistant", "好的！"),
                                                                         Turn("user", "记得叫上小王。")])))
    store.index([rewritten], engine.embedder().embed)
    again = TurnSearch.start(index, engine.raw, None, 20).nodes({old: (0.1, 0.2)}, merged=set())
    assert asked[-1] == [old] and again[old].content.startswith("user: 这周末改去颐和园了。")
    assert "chat-1" in store.rewritten
    index.refresh()  # a load that caught up holds the new text, and the store forgets the session was rewritten
    assert "chat-1" not in store.rewritten
    assert held_rows(index).windows([old])[old].text.startswith("user: 这周末改去颐和园了。")


def test_a_long_lived_holder_reads_returned_windows_from_memory(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    with engine.hold():
        engine.recall({"text": "香山"})
        assert held_rows(engine.turn_index()) is None  # not kept yet: the rows were not read
        engine.keep_resident(wait_seconds=60)
        found = windows_of(engine.recall({"text": "周末去爬香山"}).to_json())
        load = held_rows(engine.turn_index())
        assert load is not None
        assert found and load.ids
        from_lancedb = engine.turn_windows().windows(load.ids)
        fields = ("id", "session_id", "first", "last", "time", "text")
        assert {window_id: tuple(getattr(window, name) for name in fields)
                for window_id, window in load.windows(load.ids).items()} == \
            {window_id: tuple(row[name] for name in fields) for window_id, row in from_lancedb.items()}


def test_packed_rows_read_back_every_row_as_written_across_blocks():
    import pyarrow as pa

    from alaya_engine.vectors.packed_rows import BLOCK, PackedRows

    count = 3 * BLOCK + 5
    texts = [["", "user: 周末去爬香山 🍁", f"assistant: step {index}\nuser: ok"][index % 3] * (index % 4)
             for index in range(count)]
    columns = {"session_id": [f"s-{index // 7}" for index in range(count)], "first": list(range(count)),
               "last": [index + 2 for index in range(count)],
               "time": [1_700_000_000_000 + index for index in range(count)], "text": texts}
    packed = PackedRows(pa.RecordBatch.from_pydict(columns, schema=pa.schema([
        ("session_id", pa.string()), ("first", pa.int32()), ("last", pa.int32()), ("time", pa.int64()),
        ("text", pa.string())])))
    assert packed.num_rows == count
    assert [packed.row(index) for index in range(count)] == [
        {name: values[index] for name, values in columns.items()} for index in range(count)]


def test_a_search_of_the_loads_version_names_its_hits_as_a_search_of_the_table_does(home, tmp_path):
    """Hits of the resident load's version are named from the load by their row ids, a hit the load does not hold
    (a window not embedded yet) by reading it; after a compaction the load is behind, and the latest table is
    searched by id as before. A version that cannot be read falls back to the latest one."""
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    index, store = engine.turn_index(), engine.turn_windows()
    waiting = engine.raw.read(engine.raw.write(Session("chat-2", DAY, [Turn("user", "周末我们去香山看红叶。"),
                                                                       Turn("assistant", "香山的红叶十月最好。")])))
    store.index([waiting], engine.embedder().embed, budget=0)
    index.refresh()
    load = index.current()
    assert load is not None and "chat-2:turns:0-1" not in load.ids  # not embedded: not in the load
    by_id = store.start_search("香山", 20).result()
    assert set(by_id) >= {"chat-1:turns:2-4", "chat-1:turns:3-5", "chat-2:turns:0-1"}
    named = []

    def ids_of(row_ids):
        named.append(len(row_ids))
        return load.ids_of(row_ids)

    assert store.start_search("香山", 20, load.version, ids_of).result() == by_id and named == [len(by_id)]
    assert store.start_search("香山", 20, 10**6, ids_of).result() == by_id and len(named) == 1  # no such version

    store.table().optimize()  # compaction: the row ids of the new version are not the load's
    assert index.current() is None
    assert store.start_search("香山", 20, load.version, ids_of).result() == by_id and len(named) == 2  # still its own
    index.refresh()
    assert index.current().version != load.version
    assert store.start_search("香山", 20, index.current().version, index.current().ids_of).result() == by_id


def test_rows_asked_for_while_a_load_without_them_runs_come_with_the_next_refresh(home, tmp_path):
    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    index, store = engine.turn_index(), engine.turn_windows()
    read = store.active_windows

    def read_then_keep_rows(with_rows, version):
        scanned = read(with_rows, version)
        index.keep_rows()  # the owner server's keep_resident, on another thread, while this load ran
        return scanned

    store.active_windows = read_then_keep_rows
    index.refresh()
    assert held_rows(index) is None
    store.active_windows = read
    index.refresh()
    assert held_rows(index) is not None


def test_the_owner_server_loads_the_windows_while_it_warms_up_without_waiting_for_a_recall(home, tmp_path):
    """Its warm-up loads the card vectors before it answers and starts the windows' load beside it: at 200k windows
    that load takes seconds, which the first recall would otherwise pay."""
    import time

    from alaya_engine.server.service import OwnerServer

    Engine.open(home).ingest([str(chat_session(tmp_path / "in"))])
    server = OwnerServer(home)
    server.engine = Engine.open(home)
    with server.engine.hold():
        server._warm_up()
        deadline = time.monotonic() + 30
        while held_rows(server.engine.turn_index()) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        load = held_rows(server.engine.turn_index())
        assert load is not None, "no recall ran, yet the windows should be resident with their rows"
        assert sorted(load.ids) == sorted(server.engine.turn_windows().windows(load.ids))
        assert len(load.ids) == server.engine.turn_windows().count() > 0


def test_a_span_read_again_after_its_session_is_replaced_shows_the_new_turns(home, tmp_path):
    # recall keeps the sessions it read spans from parsed; a session ingested again is a new file, read again
    from alaya_engine.raw.windows import read_spans

    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    first = read_spans(engine.raw, [("chat-1", 0, 5)])[window_id("chat-1", 0, 5)]
    assert read_spans(engine.raw, [("chat-1", 0, 5)])[window_id("chat-1", 0, 5)].text == first.text
    changed = CHAT[:4] + [("user", "读完了。周末改去爬八达岭长城。"), CHAT[5]]
    engine.ingest([str(chat_session(tmp_path / "new", turns=changed))], replace=True)
    again = read_spans(engine.raw, [("chat-1", 0, 5)])[window_id("chat-1", 0, 5)]
    assert "八达岭" in again.text and "香山" not in again.text


def test_a_span_whose_session_file_is_gone_or_damaged_after_it_was_read_is_left_out(home, tmp_path):
    # the parsed session recall kept must not outlive its file: deleted, then damaged, it is read from L3 again
    from alaya_engine.raw.windows import read_spans

    engine = Engine.open(home)
    engine.ingest([str(chat_session(tmp_path / "in"))])
    assert window_id("chat-1", 0, 5) in read_spans(engine.raw, [("chat-1", 0, 5)])
    path = engine.raw.find("chat-1")
    kept = path.read_bytes()
    path.unlink()
    assert read_spans(engine.raw, [("chat-1", 0, 5)]) == {}
    path.write_bytes(kept[: len(kept) // 2])
    assert read_spans(engine.raw, [("chat-1", 0, 5)]) == {}


def test_a_session_moved_to_another_month_or_holding_another_id_is_read_where_it_is(home, tmp_path):
    """Recall reads a span's session from where its file is now: a place kept from an earlier read is dropped when
    the file moves (a session stored again under another month), and a file named for the id but holding another
    session (ids ``x`` and ``session-x`` share a name) gives no window."""
    from alaya_engine.raw.windows import read_spans

    engine = Engine.open(home)
    first = engine.raw.write(Session("chat-1", DAY, [Turn(role, text) for role, text in CHAT]))
    assert engine.raw.locate("chat-1") == first
    assert read_spans(engine.raw, [("chat-1", 0, 2)])[window_id("chat-1", 0, 2)].text.startswith("user: 你好")
    first.unlink()
    later = DAY + 40 * 86_400_000
    moved = engine.raw.write(Session("chat-1", later, [Turn("user", "换了个月份。"), Turn("assistant", "好的。")]))
    assert moved.parent != first.parent
    assert engine.raw.locate("chat-1") == moved
    window = read_spans(engine.raw, [("chat-1", 0, 1)])[window_id("chat-1", 0, 1)]
    assert window.text == "user: 换了个月份。\nassistant: 好的。"
    other = moved.parent / "session-other.json"
    other.write_text(moved.read_text(encoding="utf-8").replace('"chat-1"', '"session-other-x"'), encoding="utf-8")
    assert read_spans(engine.raw, [("other", 0, 1)]) == {}
    assert read_spans(engine.raw, [("chat-*", 0, 1), ("chat-?", 0, 1)]) == {}  # a name's pattern reads no session
