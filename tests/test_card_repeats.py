"""One point, one card: a card another card of the session says nearly in full folds into it without losing what
it added; an assistant's answer the user accepts naming what is decided is that decision's, not also an addition
to the message it answered; two decisions one after the other, each about its own thing, stay two cards; a cause
the decision it led to tells in full is that decision's card, a cause with more to say its own.
Sessions and cards written by hand for these tests."""

from __future__ import annotations

from copy import copy

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.distill.offline.candidate import Candidate
from alaya_engine.distill.offline.distiller import _fold_contained
from alaya_engine.distill.offline.text.overlap import content_words
from alaya_engine.foundations.domain import Session, Turn

DEC_1 = 1764547200000
SAID = "(said by the assistant on 1 December 2025.)"


def distilled(*turns: tuple[str, str]):
    made = [Turn(role=role, content=content) for role, content in turns]
    return OfflineDistiller().distill(Session(id="s", timestamp=DEC_1, channel="chat", turns=made))


def card(kind: str, label: str, said: str, turns: list[int]) -> Candidate:
    return Candidate(type=kind, title=said.split(". ")[0], content=f"**{label}:** {said}\n\n{SAID}", tags=[],
                     importance=0.6, turns=turns, order=(turns[0], 50), words=content_words(said), body=said)


CAUSE = card("gotcha", "Cause", "The cache key drops the tenant id, so tenants see each other's reports. The fix is "
                                "to add tenant_id to the key in reports/cache.py.", [1, 2])
FIX = "The fix is to add tenant_id to the key in reports/cache.py. Then flush the reports cache once."


def test_a_fix_its_cause_card_says_folds_into_it_keeping_the_sentence_the_cause_lacked():
    kept = _fold_contained([CAUSE, card("pattern", "Fix", FIX, [2, 3])])
    assert len(kept) == 1 and kept[0].type == "gotcha", [(c.type, c.title) for c in kept]
    assert kept[0].turns == [1, 2, 3]
    assert "**Details:** Then flush the reports cache once." in kept[0].content
    assert kept[0].content.endswith(SAID), "the details go before the attribution"


def test_a_decision_a_cause_card_quotes_stays_a_card_of_its_own():
    kept = _fold_contained([CAUSE, card("decision", "Decision", FIX, [2, 3])])
    assert sorted(c.type for c in kept) == ["decision", "gotcha"]


def test_an_accepted_answer_is_on_the_decision_only_and_two_decisions_stay_two_cards():
    result = distilled(
        ("user", "The invoice totals are off by a cent on some orders."),
        ("assistant", "ledgerkit rounds half-up by default. Patch: add round_money() in src/billing/money.py that "
                      "passes ROUND_HALF_EVEN, and use it at every call site."),
        ("user", "tests green, thanks — pip keeps pulling pydantic 2 every time I refresh the lock and the app breaks"),
        ("assistant", "That's expected: ledgerkit 0.9 still uses the pydantic v1 API. Until ledgerkit ships v2 "
                      "support, pin pydantic below 2 in requirements.in."),
        ("user", "fine, pin it. pydantic>=1.10,<2"),
    )
    telling = [c for c in result.cards for _ in range(c.content.count("pin pydantic below 2"))]
    assert len(telling) == 1, [(c.title, c.content) for c in result.cards]
    pin = telling[0]
    assert pin.type == "decision" and "pydantic>=1.10,<2" in pin.content and "round_money" not in pin.content
    patch = [c for c in result.cards if "round_money" in c.content]
    assert len(patch) == 1 and patch[0] is not pin and patch[0].type == "decision"



def backup_window(finding: str, approval: str, chinese: bool = False):
    """An agent at work, read by the agent reader and the stated reader: a backup killed by its window, a longer
    window proposed, a lock timeout checked first (one command), what the assistant ``finding`` there, and the user
    accepting the proposal by its value (``approval``)."""
    said = [("user", REPORT_ZH if chinese else REPORT), ("assistant", PROPOSAL_ZH if chinese else PROPOSAL),
            ("tool", "lock_timeout = 300m"), ("assistant", finding), ("user", approval),
            ("assistant", DONE_ZH if chinese else DONE)]
    made = [Turn(role=role, content=content, tool_name="exec" if role == "tool" else None) for role, content in said]
    return OfflineDistiller().distill(Session(id="s", timestamp=DEC_1, channel="cli", turns=made))


REPORT = "the nightly dump of db-03 got killed again at 02:00, it is 410 GB now and takes about 3 h"
PROPOSAL = ("Then the stopgap is to raise `backup_window` on the db-03 job from 2 h to 4 h. One thing to check first: "
            "the snapshot agent has its own lock timeout, 90 min by default, which would stop it anyway. Can you run "
            "`snapctl config get --host db-03 lock_timeout`?")
FINDING = ("`lock_timeout` is **300m**, so someone already raised it and I was wrong to assume the default. The "
           "snapshot agent won't stop a 4 h dump; only the job window matters. The DBA team raised it in ticket "
           "OPS-1182 last spring.")
DONE = "Done: jobs/db-03.yaml now has `window: 4h` (was 2h)."
REPORT_ZH = "db-03 的夜间备份又在 02:00 被杀掉了，现在 410 GB，要跑 3 个小时左右"
PROPOSAL_ZH = ("那临时方案是把 db-03 任务的 `backup_window` 从 2 小时调到 4 小时。先确认一件事："
               "快照代理自己有个锁超时，默认 90 分钟，到时候也会把它停掉。"
               "你能跑一下 `snapctl config get --host db-03 lock_timeout` 吗？")
FINDING_ZH = ("`lock_timeout` 是 **300m**，有人已经调过了，我不该假设是默认值。"
              "所以备份被杀的原因不是快照代理，它不会停掉 4 小时的备份，只有任务窗口要改。"
              "这个值是 DBA 组在工单 OPS-1182 里定的，"
              "那张工单也记录了 db-03 的磁盘配额和快照代理的版本 snapagent 2.7。")
DONE_ZH = "改好了：jobs/db-03.yaml 现在是 `window: 4h`（原来是 2h）。"


def test_a_cause_the_decision_tells_in_full_is_one_card_the_decision():
    # the decision quotes the finding's first sentences and its details the ticket: the cause card adds nothing
    for result in (backup_window(FINDING, "ok, go with 4 h"), backup_window(FINDING_ZH, "好，就用 4 小时", True)):
        assert len(result.cards) == 1, [(c.type, c.title) for c in result.cards]
        decision = result.cards[0]
        assert decision.type == "decision"
        assert all(said in decision.content for said in ("300m", "OPS-1182", "4h", "02:00"))
        assert {3, 4} <= set(decision.turns), "the finding's turn and the go-ahead are the card's"
        titles = {card.title for card in result.cards}
        assert all({link.from_title, link.to_title} <= titles for link in result.links), "no link to the cause"


def test_a_cause_with_a_point_the_decision_lacks_stays_its_own_card():
    # the two cards share the finding, but only the cause card says that restores die the same way
    restores = [(f"{FINDING} Restores are stopped by that same lock, so a long restore of the nightly dump gets "
                 "killed halfway and has to start again from scratch.", "ok, go with 4 h", False),
                (f"{FINDING_ZH}恢复也会被同一把锁卡住，所以很长的恢复会在中途被杀掉。", "好，就用 4 小时", True)]
    for finding, approval, chinese in restores:
        result = backup_window(finding, approval, chinese)
        assert sorted(c.type for c in result.cards) == ["decision", "gotcha"], [(c.type, c.title) for c in
                                                                                 result.cards]
        cause, decision = sorted(result.cards, key=lambda card: card.type != "gotcha")
        restore = "restore" if not chinese else "恢复"
        assert restore in cause.content and restore not in decision.content
        assert "300m" in decision.content, "the decision still says what it rests on"


NDOTS = "The cause is ndots:5: api.example.com has only 2 dots, so the resolver tries 4 search domains first"
EXPLAINED = card("pattern", "How", f"{NDOTS}. That makes 10 DNS queries per message, 8 of them NXDOMAIN.", [4, 5])


def test_two_readers_quoting_one_sentence_make_one_card_that_keeps_what_each_added():
    cause = card("gotcha", "Cause", f"{NDOTS}. The latency sits at exactly 5 s and 10 s.", [0, 5])
    assert len(_fold_contained([copy(cause), copy(EXPLAINED)])) == 2, "the first pass leaves them"
    kept = _fold_contained([cause, EXPLAINED], same_point=True)
    assert len(kept) == 1 and kept[0].type == "gotcha", [(c.type, c.title) for c in kept]
    assert "8 of them NXDOMAIN" in kept[0].content and "5 s and 10 s" in kept[0].content
    assert kept[0].turns == [0, 4, 5]


def test_a_list_whose_lead_another_card_quotes_stays_a_card_of_its_own():
    steps = "Before every restart of the gateway, in this order:\n1. post a notice in Telegram\n" \
            "2. validate openclaw.json with jq\n3. check that plugins.allow lists telegram"
    checklist = Candidate(type="pattern", title="Before every restart of the gateway, in this order",
                          content=f"**How:** {steps}", tags=[], importance=0.6, turns=[9, 10], order=(9, 0),
                          words=content_words(steps), body=steps)
    rule = card("pattern", "Rule", "Upgrade the plugins first. Before every restart of the gateway, in this order: "
                                   "the checklist, then a test message.", [10, 11])
    kept = _fold_contained([checklist, rule], same_point=True)
    assert len(kept) == 2, [(c.type, c.title) for c in kept]


def test_a_card_named_by_a_list_item_takes_the_title_of_the_point_it_holds():
    rule = card("pattern", "Rule", "Always set a memory limit on every compose service. No limit means the host "
                                   "OOM killer picks a victim.", [16, 19])
    listed = card("pattern", "Rule", "- nginx: mem_limit: 128m - postgres: mem_limit: 2g. Rule recorded: always set a "
                                     "memory limit on every compose service. api: mem_limit: 1g, redis: 256m, "
                                     "worker: 1.5g, and CI fails when a service has none.", [19])
    kept = _fold_contained([rule, listed], same_point=True)
    assert [c.title for c in kept] == ["Always set a memory limit on every compose service"]
    assert "mem_limit: 128m" in kept[0].content and "OOM killer" in kept[0].content


def test_a_message_that_is_only_code_states_nothing_of_its_own():
    test_code = '```python\ndef test_send_email(client, mail):\n    resp = client.post("/webhooks/shipped")\n' \
                '    assert len(mail.outbox) == 1\n```'
    result = distilled(("user", "test_send_email is flaky on CI, passes locally every time"),
                       ("assistant", "Can you show me the test?"), ("user", test_code),
                       ("assistant", "The cause is a race: the job goes to a real Redis and a separate worker "
                                     "picks it up, so the assertion runs before the email is sent. Fix: run the "
                                     "queue inline in tests with is_async=False."))
    assert result.cards, "the cause is a card"
    assert not any(card.title.startswith(("```", "def ")) for card in result.cards), [c.title for c in result.cards]



def test_a_recorded_decision_and_the_decision_it_records_make_one_card_titled_without_the_lead():
    from alaya_engine.demo import sample_sessions_dir
    from alaya_engine.raw.formats import parse_session_bytes

    # the demo's linter session: the decision, then the assistant's "Decision recorded: …" of the same words
    path = sample_sessions_dir() / "session-20260331-060000.json"
    cards = OfflineDistiller().distill(parse_session_bytes(path.read_bytes(), 10**9)).cards
    decisions = [card for card in cards if "flake8 + black + isort" in card.title]
    assert len(decisions) == 1, [card.title for card in cards]
    assert not decisions[0].title.startswith("Decision recorded") and not decisions[0].title.endswith("(2)")


def test_a_card_says_each_sentence_once_where_it_is_the_point():
    from alaya_engine.distill.offline.said_once import said_once

    content = ("**Fact:** Thursday 15 Jan at 8:40. Dr Okafor thinks it'll need a crown.\n\n"
               "**The assistant added:** 8:40 fits the user's morning rule. Reminder on Wed 14 Jan at 8pm.\n\n"
               "**Rule:** 8:40 fits the user's morning rule.\n\n" + SAID)
    assert said_once(content) == ("**Fact:** Thursday 15 Jan at 8:40. Dr Okafor thinks it'll need a crown.\n\n"
                                  "**The assistant added:** Reminder on Wed 14 Jan at 8pm.\n\n"
                                  "**Rule:** 8:40 fits the user's morning rule.\n\n" + SAID)
    said = "（助手，2026年9月14日与用户聊天时说的。）"
    joined = ("**助手补充:** P0420 是催化效率低于阈值。\n\n"
              "P0420 是催化效率低于阈值。常见原因有三个：催化器老化、氧传感器故障。\n\n"
              "**细节:** P0420 是催化效率低于阈值。\n\n" + said)
    assert said_once(joined) == ("**助手补充:** P0420 是催化效率低于阈值。\n\n"
                                 "常见原因有三个：催化器老化、氧传感器故障。\n\n" + said)
    code = "**Details:** run it twice.\n\n```\nrun it twice.\n```\n\n**Fix:** run it twice."
    assert said_once(code) == "```\nrun it twice.\n```\n\n**Fix:** run it twice."  # code is left as it is
    plain = "**Fact:** Yes. Yes.\n\n**Rule:** ok."
    assert said_once(plain) == "**Fact:** Yes.\n\n**Rule:** ok."


def test_a_distilled_card_repeats_no_sentence():
    result = distilled(
        ("user", "Dentist booked: Thursday 15 Jan at 8:40 at Harbor Dental. Dr Okafor thinks it'll need a crown."),
        ("assistant", "8:40 fits your morning rule. From now on I'll only book appointments before 10am for you."),
    )
    for made in result.cards:
        sentences = [s for p in made.content.split("\n\n") for s in p.split(". ") if len(s) > 12]
        assert len(sentences) == len(set(sentences)), made.content
