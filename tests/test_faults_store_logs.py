"""Faults in the append-only logs (issue 21, items 8 and 9): a torn or damaged line in the L3 journal or the access
log never swallows a later write, never makes a command fail, and verify names it (file, line, bytes)."""

from __future__ import annotations

from datetime import datetime, timezone

from alaya_engine.engine import Engine


def journal_file(home):
    folder = home / "raw" / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{datetime.now(timezone.utc):%Y-%m}.jsonl"


def two_cards(home) -> tuple[str, str]:
    with Engine.open(home).step() as graph:
        first, second = sorted(card.id for card in graph.all_cards())[:2]
    return first, second


def links_of(home, relation: str) -> set[tuple[str, str]]:
    with Engine.open(home).step() as graph:
        return {(link.source, link.target) for link in graph.all_links() if link.relation == relation}


def problems(cli, kind: str) -> list[dict]:
    result = cli("verify", "--json")
    assert "Traceback" not in result.stderr
    return [problem for problem in result.json()["problems"] if problem["kind"] == kind]


def test_a_link_after_a_torn_journal_line_is_kept_by_verify_and_rebuild(demo_home, demo_cli):
    first, second = two_cards(demo_home)
    with journal_file(demo_home).open("ab") as handle:
        handle.write(b'{"op": "link.add", "at": 17')  # a crash mid-append
    assert demo_cli("link", first, second, "--rel", "CAUSED_BY").exit_code == 0

    assert problems(demo_cli, "link_without_l3") == []
    (torn,) = problems(demo_cli, "journal_line_unreadable")
    assert torn["ids"][0].endswith(".jsonl") and "bytes" in torn["detail"] and "not JSON" in torn["detail"]
    assert demo_cli("rebuild", "--l2").exit_code == 0
    assert (first, second) in links_of(demo_home, "CAUSED_BY")



def test_a_torn_last_journal_line_is_reported_before_any_line_follows_it(home, cli):
    """A crash mid-append leaves the journal's last line without its newline: verify names it at once, not only
    after the next append has pushed it into the middle, and rebuild reports it and goes on."""
    path = journal_file(home)
    path.write_bytes(b'{"op": "link.add", "at": 17')
    (torn,) = problems(cli, "journal_line_unreadable")
    assert torn["ids"] == [str(path), "1"] and "no newline at the end" in torn["detail"], torn
    rebuilt = cli("rebuild", "--l2", "--json")
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert [entry["path"] for entry in rebuilt.json()["unreadable"]] == [str(path)]

def test_damaged_journal_lines_are_reported_and_never_fail_verify_or_rebuild(demo_home, demo_cli):
    first, second = two_cards(demo_home)
    path = journal_file(demo_home)
    with path.open("ab") as handle:
        handle.write(b'{"op": "link.add", "at": 5, "links": [}\n')  # bad JSON in the middle
        handle.write(b'{"op": "link.add", "at": 6, "links": []}\xff\xfe\n')  # invalid UTF-8
        handle.write(b'[1, 2]\n{"op": "link.add", "at": "soon"}\n')  # valid JSON, not an event
    assert demo_cli("link", first, second, "--rel", "LED_TO", "--new-relation").exit_code == 0

    result = demo_cli("verify", "--json")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    bad = [problem for problem in result.json()["problems"] if problem["kind"] == "journal_line_unreadable"]
    assert len(bad) == 4 and {problem["ids"][0] for problem in bad} == {str(path)}
    assert any("invalid UTF-8" in problem["detail"] for problem in bad)
    assert all("line" in problem["detail"] and problem["repair"] for problem in bad)
    assert {problem["kind"] for problem in result.json()["problems"]} == {"journal_line_unreadable"}

    rebuilt = demo_cli("rebuild", "--l2", "--json")
    assert rebuilt.exit_code == 0, rebuilt.stderr
    assert len(rebuilt.json()["unreadable"]) == 4
    assert (first, second) in links_of(demo_home, "LED_TO")


def access_counts(home) -> int:
    return sum(row["access_count"] for row in Engine.open(home).vectors().heat_rows())


def test_every_access_after_a_torn_access_line_is_counted(demo_home, demo_cli):
    assert demo_cli("introspect", "--step", "cooldown").exit_code == 0
    before = access_counts(demo_home)
    log = demo_home / "stats" / "access.jsonl"
    log.parent.mkdir(exist_ok=True)
    with log.open("ab") as handle:
        handle.write(b'{"at": 1, "cards": [["card-')
    engine = Engine.open(demo_home)
    returned = sum(sum(1 for node in engine.recall({"text": f"gateway telegram {n}"}).nodes if node.kind == "card")
                   for n in range(30))
    assert returned >= 30
    assert demo_cli("introspect", "--step", "cooldown").exit_code == 0
    assert access_counts(demo_home) - before == returned
    assert len(problems(demo_cli, "access_line_unreadable")) == 1


def test_an_empty_or_undecodable_access_line_fails_nothing_and_verify_names_it(demo_home, demo_cli):
    log = demo_home / "stats" / "access.jsonl"
    log.parent.mkdir(exist_ok=True)
    with log.open("ab") as handle:
        handle.write(b'{}\n\xff\xfe\n{"at": 1, "cards": [["x"]]}\n')
    Engine.open(demo_home).recall({"text": "gateway telegram"})
    for command in (("introspect",), ("rebuild", "--l1")):
        result = demo_cli(*command)
        assert result.exit_code == 0, (command, result.stderr)
    bad = problems(demo_cli, "access_line_unreadable")
    assert [problem["ids"] for problem in bad] == [[str(log), "1"], [str(log), "2"], [str(log), "3"]]
