"""Nothing stated is dropped: every turn that says something lies in a card, and cards keep the figures said."""

from __future__ import annotations

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.distill.offline.candidate import Candidate
from alaya_engine.distill.offline.details import ATTACH_GAP, DETAIL_CHARS, keep_details
from alaya_engine.foundations.domain import Session, Turn

MARCH_2 = 1772417700000


def session(lines: list[tuple[str, str]], session_id: str = "export") -> Session:
    return Session(id=session_id, timestamp=MARCH_2, channel="cli",
                   turns=[Turn(role=role, content=content) for role, content in lines])


def english_export() -> Session:
    return session([
        ("user", "The nightly export job failed again with a timeout."),
        ("assistant", "The cause is the statement_timeout of 30s on pg-replica-03: the export query now takes about "
                      "95 seconds because the orders table grew to 40M rows."),
        ("user", "Makes sense. The job runs at 02:15 UTC from the cron host ops-07, and Priya owns it."),
        ("assistant", "Good to know."),
        ("user", "ok, let's raise statement_timeout to 300s for the export role only."),
        ("assistant", "Done: ALTER ROLE export_job SET statement_timeout = '300s'. The rerun finished in 97 seconds "
                      "and wrote 1.2 GB."),
        ("user", "thanks!"),
    ])


def chinese_export() -> Session:
    return session([
        ("user", "每天的报表导出又超时失败了。"),
        ("assistant", "原因是 pg-replica-03 上的 statement_timeout 只有 30 秒，"
                      "orders 表涨到 4000 万行以后，导出要跑 95 秒左右。"),
        ("user", "那就只给导出账号把 statement_timeout 调到 300 秒。"),
        ("assistant", "已执行：ALTER ROLE export_job SET statement_timeout = '300s'。"
                      "重跑用了 97 秒，导出 1.2 GB。"),
        ("user", "另外我每天凌晨 2 点 15 分在 ops-07 上跑这个任务。"),
        ("user", "谢谢！"),
    ], "export-zh")


def cards_of(source: Session):
    return OfflineDistiller().distill(source).cards


def test_the_cause_said_in_plain_words_is_a_cause_card_with_its_symptom():
    cause = next(card for card in cards_of(english_export()) if card.type == "gotcha")
    assert "**Problem:** The nightly export job failed again with a timeout." in cause.content
    assert "**Cause:** The statement_timeout of 30s on pg-replica-03" in cause.content  # not "The cause is"
    assert cause.turns == [0, 1]


def test_lets_with_an_action_is_a_decision_whose_card_keeps_what_the_reply_reports():
    cards = cards_of(english_export())
    decision = next(card for card in cards if card.type == "decision")
    assert decision.title.startswith("Let's raise statement_timeout to 300s")  # the "ok" leads into it
    assert "ALTER ROLE export_job" in decision.content
    # "Done: ALTER ROLE …" reports what was done: the reply, with the figures it gives, before the attribution
    assert "**The assistant added:** ALTER ROLE export_job" in decision.content
    assert "The rerun finished in 97 seconds and wrote 1.2 GB." in decision.content
    assert decision.content.index("97 seconds") < decision.content.index("(said by the user")
    assert sum("97 seconds" in card.content for card in cards) == 1, "the reply's figures are said once"


def test_every_turn_that_says_something_lies_in_a_card_and_small_talk_in_none():
    cards = cards_of(english_export())
    held = set().union(*(card.turns for card in cards))
    assert held == {0, 1, 2, 4, 5}, [(card.title, card.turns) for card in cards]  # "Good to know.", "thanks!"
    said = " ".join(card.content for card in cards)
    for figure in ("02:15", "ops-07", "Priya", "pg-replica-03", "40M", "300s", "1.2 GB"):
        assert figure in said


def test_chinese_details_are_in_chinese_and_in_the_third_person():
    cards = cards_of(chinese_export())
    assert not any("Details" in card.content or "The user" in card.content for card in cards)
    holder = next(card for card in cards if 4 in card.turns)
    assert "用户每天凌晨 2 点 15 分在 ops-07 上跑这个任务" in holder.content
    assert "**细节:**" in holder.content or holder.content.startswith("**")
    assert 5 not in set().union(*(card.turns for card in cards))


def candidate(turns: list[int], content: str) -> Candidate:
    return Candidate(type="concept", title=content[:40], content=content, tags=[], importance=0.5, turns=turns,
                     order=(min(turns), 0), words=set(), body=content)


def test_a_turn_further_than_the_gap_from_every_card_joins_none():
    lines = [("user", f"Host web-{index:02d} has {index + 10} GB of disk left.") for index in range(ATTACH_GAP + 3)]
    card = candidate([0], "Host web-00 has 10 GB of disk left.")
    keep_details([card], session(lines))
    assert card.turns == list(range(ATTACH_GAP + 1))
    assert "web-03" in card.content and "web-04" not in card.content


def test_details_stop_at_their_limit_and_never_repeat_a_figure():
    lines = [("user", "Host web-00 has 10 GB of disk left.")] + \
        [("assistant", " ".join(f"Volume vol-{turn}{index} holds {turn}{index}00 files." for index in range(9)))
         for turn in range(1, 4)]
    first, second = candidate([0, 1], "Host web-00 has 10 GB of disk left."), candidate([2, 3], "Disks.")
    keep_details([first, second], session(lines))
    for card in (first, second):
        details = card.content.split("**Details:** ", 1)[1]
        assert 0 < len(details) <= DETAIL_CHARS + 20  # the third person may lengthen a sentence slightly
    assert "vol-10" in first.content and "vol-10" not in second.content and "vol-20" in second.content


def test_the_opening_report_is_the_problem_of_the_cause_that_answers_it():
    cards = cards_of(session([
        ("user", "Since this morning customers get logged out after a few minutes on auth-svc. Can you check?"),
        ("assistant", "Where does auth-svc keep its sessions?"),
        ("user", "In Redis, cache-eu-1, shared with the product cache."),
        ("assistant", "The cause is that cache-eu-1 is full at 8 GB with allkeys-lru, so Redis evicts auth-svc "
                      "sessions of customers along with cache keys."),
    ], "logout"))
    cause = next(card for card in cards if card.type == "gotcha")
    assert cause.content.startswith("**Problem:** Since 2 March 2026 customers get logged out after a few minutes")
    assert 0 in cause.turns
    assert not any(card is not cause and 0 in card.turns for card in cards), "no card of its own"


def test_details_keep_the_settings_of_code_not_its_statements():
    cards = cards_of(session([
        ("user", "The billing-worker pool keeps running out of connections at month end."),
        ("assistant", "The cause is pool_size 5 with 16 worker processes: each process opens its own pool."),
        ("user", "let's raise it then."),
        ("assistant", "Changed:\n\n```python\nfrom sqlalchemy import create_engine\n"
                      "engine = create_engine(DSN, pool_size=20)\npool_size = 20\nmax_overflow = 0\n"
                      "pool_timeout = 5\ndef connect():\n    return engine.connect()\n```"),
    ], "pool"))
    said = " ".join(card.content for card in cards)
    assert "max_overflow = 0; pool_timeout = 5" in said, "settings quoted as lines, the 5 said before or not"
    assert "from sqlalchemy import" not in said and "def connect" not in said


def test_a_card_keeps_one_sentence_of_figures_another_card_states_but_details_never_repeat_each_other():
    lines = [("user", "The export runs 95 seconds on pg-replica-03 and the limit is 30s."),
             ("assistant", "Raise it on pg-replica-03 to 300s; the export takes 95 seconds."),
             ("assistant", "The rerun on pg-replica-03 took 97 seconds."),
             ("assistant", "The limit on pg-replica-03 is 300s now and the export takes 95 seconds.")]
    cause = candidate([0], "The export runs 95 seconds on pg-replica-03 and the limit is 30s.")
    decision = candidate([1, 2, 3], "Raise the limit to 300s.")
    keep_details([cause, decision], session(lines))
    details = decision.content.split("**Details:** ", 1)[1]
    assert "95 seconds" in details and "97 seconds" in details  # one repeat of the cause's figures, one new figure
    assert details.count("95 seconds") == 1  # the second sentence repeating only figures said is left out


def test_a_detail_never_repeats_a_sentence_the_card_already_says():
    """"Saved: …" opens like a setting ("saved" read as a name the card lacks): the card says the sentence in its
    assistant's words already, so no details paragraph says it a second time."""
    cards = cards_of(session([
        ("user", "The venue for the offsite is Harbour Loft in Leith, 3 nights, booking ref HL-20931."),
        ("assistant", "Saved: Harbour Loft, Leith, 9-12 June, ref HL-20931."),
        ("user", "great, thanks"),
    ], "offsite"))
    card = next(card for card in cards if "Harbour Loft" in card.content)
    assert card.content.count("9-12 June, ref HL-20931") == 1, card.content


def test_a_diff_gives_the_details_the_setting_it_changes_with_the_value_it_replaces():
    """An agent changes a setting by diff: the card keeps the new value and the one it replaces, in the session's
    language, not the removed line as if it held."""
    diff = ("```diff\n--- a/roles/pg/postgresql.conf.j2\n+++ b/roles/pg/postgresql.conf.j2\n"
            "@@ -88,7 +88,7 @@ max_wal_size = 16GB\n wal_keep_size = 0\n-max_slot_wal_keep_size = 64GB\n"
            "+max_slot_wal_keep_size = 128GB\n archive_mode = on\n```")
    english = cards_of(session([
        ("user", "The WAL cap of 64GB on tsdb-ams-02 buys only 6 hours of backfill. Let's go 128GB."),
        ("assistant", f"Change to the template:\n\n{diff}")]))
    chinese = cards_of(session([
        ("user", "tsdb-ams-02 的 WAL 上限 64GB 只够 6 小时的积压，那就改成 128GB 吧。"),
        ("assistant", f"模板改成这样：\n\n{diff}")], "wal-zh"))
    for cards, replaced in ((english, "(instead of 64GB)"), (chinese, "（之前是 64GB）")):
        content = "\n".join(card.content for card in cards)
        assert f"max_slot_wal_keep_size = 128GB {replaced}" in content, content
        assert "-max_slot_wal_keep_size" not in content and "max_wal_size" not in content, content


def test_bare_removed_and_added_lines_that_set_a_setting_anew_are_a_diff_and_a_list_is_not():
    """A tool's ``git diff | grep '^[-+] '`` has no fence and no hunk header: a run of removed and added lines is a
    diff when an added line sets a setting a removed one set to another value; a Markdown list stays a list."""
    from alaya_engine.distill.offline.text.diff import resolve_diffs

    output = ("$ git diff | grep '^[-+] '\n-  ephemeral-storage: 2Gi\n+  ephemeral-storage: 4Gi\n"
              "-  sizeLimit: 8Gi\n+  sizeLimit: 16Gi\n$ kubectl apply -f deployment.yaml\n")
    assert resolve_diffs(output) == ("$ git diff | grep '^[-+] '\n  ephemeral-storage: 4Gi (instead of 2Gi)\n"
                                     "  sizeLimit: 16Gi (instead of 8Gi)\n$ kubectl apply -f deployment.yaml\n")
    listed = "Limits now:\n- cpu: 2\n- memory: 4Gi\n+ one more thing: the pool\n"
    assert resolve_diffs(listed) == listed


def test_a_directive_a_tool_changes_is_on_the_card_in_the_sessions_language_and_a_count_of_no_failures_is_no_error():
    """nginx and many daemons set ``name value;`` without ``=``: a tool's diff of one is a change the card keeps (its
    words need not be the card's), the replaced value said in the session's language before the line's comment.
    Ansible's ``failed=0`` reports that nothing failed: it is no error for the card to quote."""
    from alaya_engine.distill.offline.text.diff import resolve_diffs

    output = ("$ git diff roles/origin/templates/feeds.conf.j2\n-        proxy_cache_valid 200 5m;\n"
              "+        proxy_cache_valid 200 2m;\n$ git diff purge.py\n-PURGE_TIMEOUT_S = 2\n"
              "+PURGE_TIMEOUT_S = 5  # hel1 needs 2-3 s\n$ ansible-playbook origin.yml --tags nginx\n"
              "edge-01 : ok=4 changed=2 unreachable=0 failed=0\n")
    assert resolve_diffs(output, chinese=True) == (
        "$ git diff roles/origin/templates/feeds.conf.j2\n        proxy_cache_valid 200 2m; （之前是 200 5m）\n"
        "$ git diff purge.py\nPURGE_TIMEOUT_S = 5 （之前是 2） # hel1 needs 2-3 s\n"
        "$ ansible-playbook origin.yml --tags nginx\nedge-01 : ok=4 changed=2 unreachable=0 failed=0\n")
    cards = cards_of(session([
        ("user", "直播首发的播客主一直嫌 5 分钟的缓存太慢，把 feed 缓存改成 2 分钟吧，顺便 purge 超时改成 5 秒。"),
        ("tool", output),
        ("assistant", "改好了：三台 origin 上 feed 缓存现在是 2 分钟，purge 超时 5 秒。")], "cache-zh"))
    content = "\n".join(card.content for card in cards)
    assert "proxy_cache_valid 200 2m; （之前是 200 5m）" in content, content
    assert "failed=0" not in content, content


def test_a_padded_line_of_tool_output_is_read_in_one_pass():
    """Tool output pads columns with spaces: a setting's line with tens of thousands of them before what ends it
    took seconds each while patterns backtracked over them (3-12 s at 20,000); it is read as fast as any line."""
    import time

    from alaya_engine.distill.offline.text.diff import resolve_diffs, setting_of

    padding = " " * 50_000
    output = (f"$ git diff\n-pool_size = 10\n+pool_size = 20{padding}# x\n-keep-monthly 6\n+keep-monthly 12{padding};\n"
              f"-a_b\t{padding}x#\n+a_b 2{padding}y\n")
    started = time.monotonic()
    resolved = resolve_diffs(output)
    assert setting_of(f"a_b{padding}x#") is None and setting_of(f"a_b\t{padding};;") is None
    assert time.monotonic() - started < 5
    assert "pool_size = 20 (instead of 10) # x" in resolved and "keep-monthly 12" in resolved, resolved[:300]
    assert "(instead of 6)" in resolved


def test_settings_a_coding_agent_edits_with_a_tool_are_on_its_card_with_the_values_they_replace():
    """Claude Code's Edit and Codex's apply_patch change a setting without the assistant saying the value: the
    card keeps the new value beside the old one, and the fact is the new value; code that sets nothing is left
    out."""
    from conftest import FIXTURES

    from alaya_engine.distill.offline.text.diff import edited_settings
    from alaya_engine.raw.claude_code import parse_transcript

    transcript = FIXTURES / "claude_home/projects/-home-dev-projects-infra/0b7d3f19-2a6c-4e8d-b5f0-7c1e9a2d4b63.jsonl"
    cards = cards_of(parse_transcript(transcript.read_text(encoding="utf-8")))
    assert any("mem_limit: 1g (instead of 256m)" in card.content for card in cards), [c.content for c in cards]
    assert ("mem_limit", "1g") in {(fact.attribute, fact.value) for card in cards for fact in card.facts or ()}
    patch = {"name": "apply_patch", "arguments": {"input": "*** Begin Patch\n*** Update File: config/app.toml\n@@\n"
                                                           "-timeout = 30\n+timeout = 120\n-PYTHON ?= python3\n"
                                                           "+VENV ?= .venv\n*** End Patch"}}
    code = {"name": "Edit", "arguments": {"file_path": "app/db.py", "old_string": 'conn.execute("SELECT 1")',
                                          "new_string": 'conn.execute(text("SELECT 1"))'}}
    assert edited_settings([patch, code]) == "+++ config/app.toml\n@@ -1 +1 @@\n-timeout = 30\n+timeout = 120"
    odd = ["not a call", {"name": "Edit", "arguments": "not an object"}, {"name": "MultiEdit", "arguments": {
        "edits": [5, {"old_string": 1}, {"old_string": "a: 1", "new_string": "a: 2"}]}},
        {"name": "apply_patch", "arguments": {"input": "+before: any file\n*** Add File: new.yml\n+port: 80"}}]
    assert edited_settings(odd) == "@@ -1 +1 @@\n-a: 1\n+a: 2\n+++ new.yml\n@@ -1 +1 @@\n+port: 80"
