"""Sharing one memory between machines: two or three stores on this machine and a real bare git repository.

Pushes run as real processes (at the same time, and killed with SIGKILL); the other commands in-process.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

from conftest import cli_for, machine, write_session
from crash_trials import alaya, signature

from alaya_tui.screens.status import sharing_lines

DAY = 86_400_000
T0 = 1_774_000_000_000
TOPICS = {"nginx": ("Our nginx returns 502 after every deploy. Why?", "proxy_read_timeout: the upstream restarts "
                    "slower than 60 s", "keep the timeout at 300s for all services"),
          "postgres": ("The API times out on every login at 9am. Why?", "the postgres pool of 10 connections is "
                       "exhausted by the cron reports", "run the reports on the replica from now on"),
          "redis": ("The product page stalls whenever the cache expires. Why?", "a redis stampede: every worker "
                    "rebuilds the same key at once", "rebuild expired keys under a lock")}


def small_session(folder: Path, session_id: str, topic: str, timestamp: int, **fields) -> Path:
    """Three turns the offline distiller makes a cause card and a decision card of (and a link between them)."""
    question, cause, decision = TOPICS[topic]
    return write_session(folder, session_id, timestamp=timestamp, turns=[
        {"role": "user", "content": question},
        {"role": "assistant", "content": f"The cause is {cause}."},
        {"role": "user", "content": f"I decided to {decision}."}], **fields)


def ingest(cli, folder: Path, *paths: Path) -> list[dict]:
    result = cli("ingest", *map(str, paths), "--distill", "--json")
    assert result.exit_code == 0, result.stderr
    return [card for session in result.json()["distill"]["sessions"] for card in session["cards"]]


def graph_of(home: Path) -> dict:
    """Cards with their text and links by key: what two machines that pulled the same history must share."""
    from alaya_engine.engine import Engine

    engine = Engine.open(home)
    with engine.hold() as graph:
        cards = {card.id: (card.title, card.content, card.type) for card in graph.all_cards()}
        links = sorted(link.key for link in graph.all_links())
    return {"cards": cards, "links": links, "signature": signature(home)}


def test_concurrent_pushes_converge_card_for_card_and_a_fresh_machine_catches_up(template_home, tmp_path, bare):
    home_a, cli_a = machine(template_home, tmp_path, "a", bare)
    home_b, cli_b = machine(template_home, tmp_path, "b", bare)
    home_c, cli_c = machine(template_home, tmp_path, "c", bare)
    cards_a = ingest(cli_a, tmp_path, small_session(tmp_path / "in", "team-a1", "nginx", T0),
                     small_session(tmp_path / "in", "team-a2", "postgres", T0 + DAY))
    ingest(cli_b, tmp_path, small_session(tmp_path / "in", "team-b1", "redis", T0 + 2 * DAY))
    assert cli_a("link", cards_a[0]["id"], cards_a[-1]["id"], "--rel", "RELATES_TO", "--reason", "same outage"
                 ).exit_code == 0
    hook = bare / "hooks" / "pre-receive"  # the first push waits in the remote, so the second lands before it
    hook.write_text(f"#!/bin/sh\nif mkdir {tmp_path}/first 2>/dev/null; then sleep 2; fi\ncat >/dev/null\n")
    hook.chmod(0o755)
    pushes = [subprocess.Popen(alaya(home, "push", "--json"), stdout=subprocess.PIPE, text=True)
              for home in (home_a, home_b)]
    reports = [json.loads(process.communicate(timeout=120)[0]) for process in pushes]
    assert all(report["commit"] for report in reports), reports
    assert sorted(report["attempts"] for report in reports) == [1, 2]  # the rejected push pulled and retried
    hook.unlink()
    for cli in (cli_a, cli_b, cli_c):
        result = cli("pull", "--json")
        assert result.exit_code == 0, result.stderr
    pulled_b = cli_b("pull", "--json").json()
    assert pulled_b["sessions"] == {} and pulled_b["journal_events"] == 0  # nothing new: a second pull is a no-op
    graphs = [graph_of(home) for home in (home_a, home_b, home_c)]
    assert graphs[0]["signature"]["sessions"] == ["team-a1", "team-a2", "team-b1"]
    assert (cards_a[0]["id"], cards_a[-1]["id"], "RELATES_TO") in graphs[2]["links"]  # a's journal reached c
    assert graphs[0]["cards"] == graphs[1]["cards"] == graphs[2]["cards"]
    assert graphs[0]["links"] == graphs[1]["links"] == graphs[2]["links"]
    asked = ["recall", "nginx 502 after deploy", "--json"]
    assert [n["card_id"] for n in cli_a(*asked).json()["nodes"]] == \
        [n["card_id"] for n in cli_c(*asked).json()["nodes"]]
    assert cli_a("verify").exit_code == 0 and cli_c("verify").exit_code == 0
    status = cli_a("status", "--json").json()
    [remote] = status["sync"]["remotes"]
    assert sharing_lines(status) == [f"Shared through origin ({bare}) as {status['sync']['machine']}: 0 sessions "
                                     "stored since the last push, 0 pushes of other machines fetched and not pulled"]
    assert remote["sessions_ahead"] == 0 and remote["pushes_behind"] == 0 and remote["last_pull"] >= remote["last_push"]
    trace = cli_c("trace", cards_a[0]["id"], "--json").json()
    assert trace["sessions"][0]["machine"] == json.loads((home_a / "machine.json").read_text())["id"]


def kill_when(argv: list[str], ready, seconds: float = 60) -> bool:
    """Start ``argv`` and SIGKILL it as soon as ``ready()`` holds; whether it was still running then."""
    victim = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + seconds
    while not ready() and victim.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    running = victim.poll() is None
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    return running


def test_kill_during_push_or_pull_leaves_both_sides_usable(template_home, tmp_path, bare):
    home_a, cli_a = machine(template_home, tmp_path, "a", bare)
    home_b, cli_b = machine(template_home, tmp_path, "b", bare)
    sessions = [write_session(tmp_path / "in", f"kill-{n}", timestamp=T0 + n * 1000) for n in range(12)]
    assert cli_a("ingest", *map(str, sessions)).exit_code == 0
    copy = home_a / "sync" / "remotes" / "origin"
    assert kill_when(alaya(home_a, "push"), lambda: any(copy.glob("sessions/*/*/*.json")))  # writing, committing
    hook, receiving = bare / "hooks" / "pre-receive", tmp_path / "receiving"
    hook.write_text(f"#!/bin/sh\ntouch {receiving}\nsleep 1\ncat >/dev/null\n")
    hook.chmod(0o755)
    assert kill_when(alaya(home_a, "push"), receiving.exists)  # git is sending: it finishes alone, or not at all
    time.sleep(1.2)
    hook.unlink()
    assert cli_a("push").exit_code == 0
    assert subprocess.run(["git", "-C", str(bare), "fsck", "--strict"], capture_output=True, timeout=60).returncode == 0
    assert kill_when(alaya(home_b, "pull"), lambda: any((home_b / "raw" / "sessions").glob("*/*.json")))  # ingest
    result = cli_b("pull", "--json")
    assert result.exit_code == 0, result.stderr
    assert signature(home_b)["sessions"] == [f"kill-{n}" for n in sorted(range(12), key=str)]
    assert cli_b("verify").exit_code == 0


def test_only_shared_sessions_travel_and_recall_keeps_to_a_scope(template_home, tmp_path, bare):
    home_a, cli_a = machine(template_home, tmp_path, "a", bare)
    home_b, cli_b = machine(template_home, tmp_path, "b", bare)
    config = json.loads((home_a / "config.json").read_text())
    (home_a / "config.json").write_text(json.dumps({**config, "share": {"include": ["*"],
                                                                        "exclude": ["agent=personal"]}}))
    sessions = [small_session(tmp_path / "in", name, topic, T0 + number * DAY, agent=agent,
                              metadata={"share": share} if share else {})
                for number, (name, topic, agent, share) in enumerate((
                    ("work-1", "nginx", "main", None), ("home-1", "postgres", "personal", None),
                    ("secret-1", "redis", "main", "private")))]
    ingest(cli_a, tmp_path, *sessions)
    pushed = cli_a("push", "--json").json()
    assert (pushed["sessions_shared"], pushed["sessions_private"]) == (1, 2)
    assert cli_b("pull").exit_code == 0
    assert signature(home_b)["sessions"] == ["work-1"]
    asked = "login timeouts, nginx 502 and a redis stampede"
    everywhere = cli_a("recall", asked, "--max-results", "20", "--json").json()["nodes"]
    scoped = cli_a("recall", asked, "--max-results", "20", "--scope", "agent=personal", "--json").json()["nodes"]
    assert scoped and len(scoped) < len(everywhere)
    for node in scoped:
        origin = cli_a("trace", node["card_id"], "--json").json()["sessions"]
        assert [session["id"] for session in origin] == ["home-1"], node["card_id"]
    bad = cli_a("recall", "deploy", "--scope", "colour=red", "--json")
    assert bad.exit_code == 2 and bad.json()["error"]["code"] == "bad_scope"


def test_bad_input_and_unreachable_remotes_fail_in_one_line_and_junk_pulled_is_listed(template_home, tmp_path, bare):
    home = tmp_path / "alone"
    shutil.copytree(template_home, home)
    cli = cli_for(home)
    missing = cli("push", "--json")
    assert missing.exit_code == 2 and missing.json()["error"]["code"] == "no_remote"
    assert cli("remote", "add", "bad name", str(bare)).exit_code == 2
    token = "ghp_" + "a1B2" * 9
    unreachable = cli("remote", "add", "origin", f"https://{token}@127.0.0.1:9/memory.git", "--json")
    assert unreachable.exit_code == 1 and unreachable.json()["error"]["code"] == "remote_unreachable"
    assert token not in unreachable.stdout + unreachable.stderr and len(unreachable.stderr.splitlines()) == 1
    assert "Traceback" not in unreachable.stderr and cli("remote", "list", "--json").json()["remotes"] == []
    work = tmp_path / "clone"
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "clone", "-q", str(bare), str(work)], check=True, capture_output=True, timeout=30)
    (work / "sessions" / "other" / "2026-01").mkdir(parents=True)
    (work / "sessions" / "other" / "2026-01" / "session-junk.json").write_text("{not json")
    subprocess.run([*git, "add", "-A"], check=True, timeout=30)
    subprocess.run([*git, "commit", "-qm", "junk"], check=True, timeout=30)
    subprocess.run([*git, "push", "-q", "origin", "HEAD:main"], check=True, capture_output=True, timeout=30)
    assert cli("remote", "add", "origin", str(bare)).exit_code == 0
    pulled = cli("pull", "--json")
    assert pulled.exit_code == 0 and pulled.json()["unreadable"] == ["sessions/other/2026-01/session-junk.json"]


def test_journal_events_name_their_machine_and_older_events_are_this_stores(tmp_path):
    from alaya_engine.foundations.machine import machine_id
    from alaya_engine.raw.journal import Journal

    journal = Journal(tmp_path / "raw" / "journal")
    journal.append("link.add", 1, links=[])
    [event] = journal.events()
    assert event["machine"] == machine_id(tmp_path) == journal.machine
    assert journal.own({"op": "link.add", "at": 1, "links": []})  # written before machines were named
    assert not journal.own({**event, "machine": "elsewhere"})


def test_review_decisions_travel_and_the_later_decision_wins(template_home, tmp_path):
    from alaya_engine.engine import Engine
    from alaya_engine.introspect.suggestions import SuggestionStore
    from alaya_engine.sync.pull import _merge_decisions
    from alaya_engine.sync.tree import build_export

    homes = [tmp_path / name for name in ("a", "b")]
    for home in homes:
        shutil.copytree(template_home, home)
    engine_a, engine_b = (Engine.open(home) for home in homes)
    for engine, status, when in ((engine_a, "approved", 20), (engine_b, "rejected", 10)):
        store = SuggestionStore(engine.layout.review)
        for subjects in (["card-1", "card-2"], ["card-3", "card-4"]):
            suggestion, _ = store.propose("merge_cards", subjects, {}, 1)
            suggestion.status, suggestion.updated_at = (status, when) if subjects[0] == "card-1" else ("pending", 1)
        store.save()
    files = build_export(engine_a.layout, engine_a.config["share"], "a").files
    sent = tmp_path / "review-a.json"
    sent.write_bytes(files["review/a.json"])
    assert _merge_decisions(engine_b, [sent]) == 1
    decided = {s.subjects[0]: s.status for s in SuggestionStore(engine_b.layout.review).all()}
    assert decided == {"card-1": "approved", "card-3": "pending"}  # a's later approval replaced b's rejection


def test_a_damaged_machine_file_gets_a_new_id_and_journal_writes_go_on(tmp_path):
    """machine.json torn by a crash (empty, half a document) must not fail every journal write."""
    from alaya_engine.foundations.machine import machine_id
    from alaya_engine.raw.journal import Journal

    home = tmp_path / "home"
    (home / "raw" / "journal").mkdir(parents=True)
    first = machine_id(home)
    assert first and machine_id(home) == first
    for damage in ("", '{"id": ', '{"id": 7}'):
        (home / "machine.json").write_text(damage)
        Journal(home / "raw" / "journal").append("link.add", 1, links=[])
        renamed = machine_id(home)
        assert renamed and renamed != first and json.loads((home / "machine.json").read_text())["id"] == renamed
    events = list(Journal(home / "raw" / "journal").events())
    assert len(events) == 3 and all(event["machine"] for event in events)
