"""Knowledge said in plain words becomes cards that keep it: causes, fixes, decisions (also a proposal the user
accepts in a few words), rules, plans and preferences, in English and Chinese, in agent sessions and in chats.
Sessions written by hand for these tests, in the words people use."""

from __future__ import annotations

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.foundations.domain import Session, Turn

DEC_1 = 1764547200000


def session(*turns: tuple[str, str], tools: bool = False) -> Session:
    made = [Turn(role=role, content=content) for role, content in turns]
    if tools:  # an agent at work: one command and its output
        made.insert(1, Turn(role="tool", content="$ npm test\n1 failed, 41 passed", tool_name="exec"))
    return Session(id="s", timestamp=DEC_1, channel="cli", turns=made)


def cards(sess: Session) -> list:
    result = OfflineDistiller().distill(sess)
    assert result.cards, result.skipped_reason
    return result.cards


def card_saying(found: list, *needles: str):
    """The card whose title and content hold every needle (case-insensitive), else None."""
    for card in found:
        text = f"{card.title}\n{card.content}".lower()
        if all(needle.lower() in text for needle in needles):
            return card
    return None


def test_a_cause_and_its_fix_said_in_plain_words_make_a_card_with_the_problem():
    found = cards(session(
        ("user", "The checkout-service integration test fails about one run in five on CI, never locally."),
        ("assistant", "Turns out it's a race: the test reads `order.status` before the `payment_done` event "
                      "handler commits, so on a slow runner it still sees PENDING."),
        ("assistant", "So the fix was to await `bus.drain()` after publishing, in `tests/test_checkout.py`."),
        tools=True))
    cause = card_saying(found, "payment_done", "order.status")
    assert cause is not None and cause.type == "gotcha", [c.title for c in found]
    assert "one run in five" in cause.content  # the symptom travels with the cause
    assert card_saying(found, "bus.drain()") is not None


def test_a_decision_with_what_instead_of_what_and_why_is_one_card():
    found = cards(session(
        ("user", "We need a job queue for invoice emails. Redis or Postgres?"),
        ("assistant", "Either works for 200 jobs a minute. Postgres with SKIP LOCKED keeps the job in the same "
                      "transaction as the invoice row; Redis would be one more service to run."),
        ("user", "I decided to use Postgres with SKIP LOCKED instead of Redis, because we already back it up "
                 "and nobody here runs Redis."),
        tools=True))
    decision = card_saying(found, "SKIP LOCKED", "instead of Redis")
    assert decision is not None and decision.type == "decision", [c.title for c in found]


def test_a_proposal_accepted_in_a_few_words_is_a_decision_with_its_values():
    found = cards(session(
        ("user", "What timeout should the geocoder client have? Upstream p99 is about 800ms."),
        ("assistant", "I'd set the http.Client Timeout to 3 seconds: almost four times the p99, short enough "
                      "that a stuck upstream frees the goroutine."),
        ("user", "ok, 3 seconds it is."),
        tools=True))
    decision = card_saying(found, "3 seconds", "http.Client")
    assert decision is not None and decision.type == "decision", [(c.type, c.title) for c in found]


def test_an_accepted_answer_keeps_the_question_that_names_what_is_decided():
    found = cards(session(
        ("user", "Flutter 列表滑动卡，先把 iOS 的最低版本升到 14 吧。"),
        ("assistant", "好，Podfile 改成 `platform :ios, '14.0'`。"),
        ("user", "cached_network_image 要不要顺便升到 3.4？我们还在 3.3.1。"),
        ("assistant", "3.4.1 可以升：和 3.3 API 兼容，修了几个缓存 key 的问题，`memCacheWidth` 的行为没变。"),
        ("user", "行，升到 3.4.1。"),
        tools=True))
    decision = card_saying(found, "升到 3.4.1", "cached_network_image", "3.3.1")
    assert decision is not None and decision.type == "decision", [(c.type, c.title, c.content) for c in found]


def test_a_question_the_decision_names_already_is_not_repeated_as_its_context():
    found = cards(session(
        ("user", "The report worker keeps getting OOM-killed."),
        ("assistant", "It dies at its 1Gi limit every night at the export step."),
        ("user", "Should we raise the worker's memory limit to 1.5Gi? It keeps getting OOM-killed at 1Gi."),
        ("assistant", "Yes, I'd raise it to 1.5Gi and set MaxRAMPercentage=60 so the heap grows with it."),
        ("user", "ok, go with 1.5Gi and 60%."),
        tools=True))
    decision = card_saying(found, "1.5Gi", "60%")
    assert decision is not None and decision.type == "decision", [(c.type, c.title, c.content) for c in found]
    assert "Should we raise" not in decision.content  # the proposal says all the question names


def test_a_sentence_restating_the_cause_does_not_make_the_advice_after_it_a_cause():
    found = cards(session(
        ("user", "os-search went yellow overnight and the indexer fails with cluster_block_exception."),
        ("assistant", "There it is: `products-restore-20260721` holds 252 GB, all five primaries on os-data-03. "
                      "So the cause is a leftover restore index, not a failed node. If nobody needs it, deleting "
                      "it frees the space immediately."),
        tools=True))
    assert card_saying(found, "products-restore-20260721", "252 GB") is not None, [c.title for c in found]
    advice = card_saying(found, "If nobody needs it")
    assert advice is None or advice.type != "gotcha", advice.content


def test_a_plain_sentence_goes_on_with_the_fix_before_it():
    found = cards(session(
        ("user", "orders-api can't get database connections since reconcile started."),
        ("assistant", "Immediate mitigation: scale the reconcile deployment down (or pause it). "
                      "Leave orders-api alone."),
        tools=True))
    fix = card_saying(found, "scale the reconcile deployment down", "Leave orders-api alone")
    assert fix is not None and fix.type == "pattern", [(c.type, c.content) for c in found]


def test_what_a_short_yes_accepts_is_what_the_assistant_just_offered_even_without_a_proposing_word():
    asked = cards(session(
        ("user", "Please remind me about the dentist the day before."),
        ("assistant", "Understood, a reminder the day before. Is around 7pm good?"),
        ("user", "7pm is perfect.")))
    decision = card_saying(asked, "7pm")
    assert decision is not None and decision.type == "decision", [(c.type, c.title) for c in asked]
    offered = cards(session(
        ("user", "Do we keep the old replica after the cutover to db-7?"),
        ("assistant", "Dropping it at once saves money but makes a rollback lose data. A middle ground: keep the "
                      "reverse subscription to db-6 for 48 hours, then drop it."),
        ("user", "ok, fine — do that."), tools=True))
    decision = card_saying(offered, "48 hours", "db-6")
    assert decision is not None and decision.type == "decision", [(c.type, c.content) for c in offered]


def test_a_choice_made_after_asking_why_is_the_proposal_it_names_with_the_reason_in_the_session_language():
    found = cards(session(
        ("user", "前端测试在我本机和 CI 上结果不一样。"),
        ("assistant", "测试结果依赖运行环境的时区。"
                      "解决办法是在 package.json 的 test 脚本里固定时区：TZ=Asia/Shanghai。"),
        ("user", "为啥选上海，不直接选 UTC？"),
        ("assistant", "如果测试跑在 UTC，本地时间和 UTC 完全一样，把 UTC 当成本地时间的 bug 根本测不出来。"),
        ("user", "有道理，就用 Asia/Shanghai。"),
        tools=True))
    decision = next((card for card in found if card.type == "decision"), None)
    assert decision is not None, [(c.type, c.title) for c in found]
    assert "package.json" in decision.content and "测不出来" in decision.content  # what was chosen, and why
    assert decision.title != "有道理，就用 Asia/Shanghai", "an approval is no title"
    assert "The user" not in decision.content and "The assistant" not in decision.content


def test_a_choice_named_in_a_few_words_accepts_the_offer_before_it():
    found = cards(session(
        ("user", "Exports over 500k rows hit the ingress 60 s timeout. What should we set?"),
        ("assistant", "I'd set proxy-read-timeout and proxy-send-timeout to 120 on the report-export Ingress only, "
                      "which leaves headroom over the 94 s export."),
        ("user", "yeah, 120 it is for now"),
        tools=True))
    decision = card_saying(found, "proxy-read-timeout", "120")
    assert decision is not None and decision.type == "decision", [(c.type, c.title) for c in found]


def test_picking_from_offered_options_is_a_decision_and_an_ok_that_moves_on_accepts_nothing():
    found = cards(session(
        ("user", "那边停车方便吗？"),
        ("assistant", "说不准。建议去之前查一下附近停车场，或者干脆坐公交。"),
        ("user", "好吧。另外，四月回杭州，我想给爸妈带点礼物。我爸现在吃阿司匹林，不让喝酒了；我妈喜欢英国的茶。"),
        ("assistant", "那酒就不考虑了。可以带：一盒好一点的英式红茶、shortbread 饼干、或者给爸爸一条羊毛围巾。"),
        ("user", "就带茶和 shortbread 吧，不带酒。"),
    ))
    decisions = [card for card in found if card.type == "decision"]
    assert len(decisions) == 1, [(c.type, c.title) for c in found]
    assert "停车" not in decisions[0].content  # "好吧" closed the parking question, it chose nothing
    assert "英式红茶" in decisions[0].content and "阿司匹林" in decisions[0].content  # what, and why


def decided(turns: list[tuple[str, str]], *needles: str, tools: bool = True) -> list:
    """The session's cards, one of which is a decision saying every needle."""
    found = cards(session(*turns, tools=tools))
    decision = card_saying(found, *needles)
    assert decision is not None and decision.type == "decision", [(card.type, card.content) for card in found]
    return found


def test_a_go_ahead_naming_the_proposed_value_before_turning_to_something_else_still_decides():
    decided([("user", "report-worker 调用 pdf-render 的 http.Client 超时设多少？"),
             ("assistant", "pdf-render 的 p99 大概 1.2 秒，那 5 秒比较合适：比 p99 宽裕，又不会让请求无限挂着。"),
             ("user", "行，5 秒。另外有没有办法防止以后再犯？加个测试什么的。")], "5 秒", "p99")
    english = decided([
        ("user", "What retry limit should the mail-relay client use?"),
        ("assistant", "Upstream rejects bursts, so I'd cap retries at 4 with a 30 s backoff on mail-relay."),
        ("user", "ok, 4 retries. Also, can we get an alert when the queue backs up?")], "4", "mail-relay")
    assert not any(card.type == "decision" and "alert" in card.content.lower() for card in english)


def test_a_user_reporting_they_did_what_was_proposed_is_a_decision_with_the_proposal():
    decided([("user", "ok 我查到了，是 globex 在做批量导入，一口气导了 80 万条订单，全走的 order-events。"),
             ("assistant", "那就解释通了。短期：给 globex 的导入限流（ingest-api 有 per-tenant rate limit 吧？）。"
                           "长期：批量导入走单独的 topic。"),
             ("user", "rate limit 我调到 300/s 了。另外 Omar 说 runbook 里写着重启 order-indexer 是安全的。")],
            "300/s", "ingest-api")
    decided([("user", "The thumbnail queue on media-worker keeps growing after the upload spike."),
             ("assistant", "For now I'd raise the concurrency of media-worker; it sits at 4 and the box has 16 cores."),
             ("user", "I raised the concurrency to 12 and the queue is draining.")], "12", "16 cores")


def test_a_result_reported_in_the_first_person_is_no_acceptance_without_an_act():
    found = cards(session(
        ("user", "reco-cache 的内存满了，session 也被踢掉了。"),
        ("assistant", "短期止血：给 reco:* 批量加 TTL，推荐缓存丢了可以重建。"),
        ("user", "跑完之后内存已经降到 5.1G 了，reco:* 都有 1 小时 TTL。"),
        tools=True))
    assert not any(card.type == "decision" for card in found), [(c.type, c.content) for c in found]


def test_a_decision_on_a_value_carries_the_question_the_figures_answered():
    decided([("user", "pdf-render 偶尔卡住，report-worker 一直等。"),
             ("assistant", "先给 http.Client 设超时。\n\nClient 的 Timeout 设多少合适？"),
             ("user", "pdf-render 的 p99 大概 1.2 秒。"),
             ("assistant", "那 5 秒比较合适：比 p99 宽裕很多，又不会让请求无限挂着。"),
             ("user", "行，5 秒。")], "5 秒", "Timeout", "1.2 秒")
    decided([("user", "Remind me to renew the parking permit for Flat 4B."),
             ("assistant", "Sure. When does the current permit expire?"),
             ("user", "On 31 March, and the council wants two weeks' notice."),
             ("assistant", "Then I'll remind you on 10 March. Is 7pm good?"),
             ("user", "7pm is perfect.")], "7pm", "expire", "31 March", tools=False)


def test_a_question_asked_through_tool_calls_alone_is_no_question_to_carry():
    """The user answered an assistant turn without text (its tool calls only): the decision stands without a
    question, and nothing fails on the empty turn."""
    decided([("user", "pdf-render hangs now and then and report-worker waits forever."),
             ("assistant", ""),
             ("user", "The p99 of pdf-render is about 1.2 s."),
             ("assistant", "Then a 5 s timeout on the http.Client fits: well above the p99, nothing hangs forever."),
             ("user", "ok, 5 s.")], "5 s", "1.2 s", tools=False)


def test_a_guess_at_a_cause_is_no_card():
    found = cards(session(
        ("user", "ES 快照桶 fw-es-snapshots 的 S3 lifecycle 规则是 7 天就删除，跟 wiki 上写的 30 天对不上。"),
        ("assistant", "确实是 7 天（规则名 expire-old-snapshots），和 wiki 矛盾。要我起草一个改成 30 天的变更吗？"),
        ("user", "先别动。我不知道哪个才是当初想要的——也可能是为了省钱故意改成 7 天的。我先问一下王磊再说。"),
        tools=True))
    assert card_saying(found, "fw-es-snapshots") is not None
    assert card_saying(found, "省钱") is None, [(c.type, c.title) for c in found]


def test_a_message_drafted_for_the_user_is_no_card_and_no_card_is_tagged_with_a_role():
    found = cards(session(
        ("user", "Can you write the hotel an email asking for early check-in? We land at 7:05 on 2 April."),
        ("assistant", "Here's a draft:\n\n> Hello, we're arriving on 2 April on the 7:05 flight and would be "
                      "grateful for an early check-in if a room is free.\n> Kind regards, Shu Lin"),
        ("user", "Thanks. Also, I've booked the Oceanário for Sunday 15 Feb at 10:00."),
    ))
    assert card_saying(found, "grateful for an early check-in") is None, [c.title for c in found]
    assert card_saying(found, "Oceanário") is not None
    assert not any(tag in ("The user", "The assistant", "用户", "助手") for card in found for tag in card.tags)


def test_a_cause_pieced_together_over_turns_keeps_the_numbers_it_rests_on():
    found = cards(session(
        ("user", "api-gw returns 503 since 02:10, can you look?"),
        ("assistant", "Here is what the pool shows: `shop/shop_app` has only 6 server connections and 90 clients "
                      "waiting. Postgres on db-7 has max_connections = 120 and 118 are in use."),
        ("user", "oh. the nightly export job runs at 02:00 since Monday, Priya moved it."),
        ("assistant", "That's it then. The nightly export job starts 12 workers with 10 connections each, so it "
                      "takes almost every connection of db-7 and the shop pool starves."),
        tools=True))
    cause = card_saying(found, "export job", "max_connections = 120", "02:00")
    assert cause is not None and cause.type == "gotcha", [(c.type, c.content) for c in found]


def test_a_number_ending_a_sentence_stays_and_a_list_written_on_one_line_loses_its_numbers():
    found = cards(session(
        ("user", "Rachel is my physio. Sessions are £48 each and she thinks I'll need about 5."),
        ("assistant", "Noted: about 5 sessions at £48 each, roughly £240."),
        ("user", "Plan for the node from now on: 1. drain ops-03 first 2. patch the kernel to 6.8 3. reboot it.")))
    assert card_saying(found, "£48", "about 5"), [(c.title, c.content) for c in found]
    assert not any(c.title.endswith(("about", " 2.", " 3.")) for c in found), [c.title for c in found]
    from alaya_engine.distill.offline.stated.sentences import sentences_of
    listed = sentences_of(Turn(role="user", content="Steps: 1. drain ops-03 2. patch the kernel 3. reboot it."))
    assert listed[-3:] == ["drain ops-03", "patch the kernel", "reboot it."], listed


def test_a_plan_carries_the_assistants_recap_with_its_exact_dates():
    found = cards(session(
        ("user", "We land in Porto on Friday. The Livraria Lello visit goes on Saturday morning, for sure."),
        ("assistant", "Done: Saturday 21 Mar, 9:30 = Livraria Lello, tickets for three.")))
    plan = card_saying(found, "Livraria Lello", "21 Mar")
    assert plan is not None, [(c.title, c.content) for c in found]
    zh = cards(session(("user", "四月要回杭州看爸妈，爸爸月初复查，我陪他去。"),
                       ("assistant", "好的，记下：4 月 2 日–12 日回杭州，陪爸爸复查。")))
    assert card_saying(zh, "杭州", "4 月 2 日") is not None, [(c.title, c.content) for c in zh]


def test_an_assistant_promising_to_remember_is_not_a_rule():
    found = OfflineDistiller().distill(session(
        ("user", "My son Leo has a sesame allergy, his inhaler is in the blue bag."),
        ("assistant", "Thanks, that's important: I'll keep it in mind whenever food or trips come up. Tell me what "
                      "else you'd like me to remember.")))
    assert card_saying(found.cards, "sesame") is not None
    assert not any("keep it in mind" in card.content or "remember" in card.title for card in found.cards), \
        [(c.type, c.title) for c in found.cards]


def test_a_rule_the_user_states_from_now_on_is_kept():
    found = cards(session(
        ("user", "The log volume filled /var on web-3 again."),
        ("assistant", "logrotate only ran weekly there; I rotated by hand and freed 18 GB."),
        ("user", "From now on we roll out logrotate with maxsize 50M and daily rotation on every web host."),
        tools=True))
    rule = card_saying(found, "maxsize 50M")
    assert rule is not None, [c.title for c in found]


def test_chinese_plans_and_decisions_keep_their_dates_and_never_speak_english():
    found = cards(session(
        ("user", "下周六是我女儿的生日，她12号满8岁，想在家里给她办个小派对。"),
        ("assistant", "可以准备一个简单的手工蛋糕，再邀请三四个同学。"),
        ("user", "另外我决定从三月开始学日语，每天通勤的时候学20分钟。"),
        ("assistant", "好主意，可以先用Anki背五十音图。"),
    ))
    assert card_saying(found, "12号", "8岁") is not None, [c.title for c in found]
    assert card_saying(found, "日语", "20分钟") is not None, [c.title for c in found]
    for card in found:
        for english in ("The user", "The assistant", "said by", "talking with"):
            assert english not in card.title + card.content, (english, card.title, card.content)


def test_the_readme_example_gives_a_cause_card_and_a_decision_linked_to_it():
    result = OfflineDistiller().distill(session(
        ("user", "Our nginx returns 502 after every deploy. Why?"),
        ("assistant", "The cause is proxy_read_timeout: the upstream restarts slower than 60 s."),
        ("user", "I decided to keep the timeout at 300s for all services from now on.")))
    cause = card_saying(result.cards, "proxy_read_timeout", "502")
    decision = card_saying(result.cards, "300s")
    assert cause is not None and cause.type == "gotcha" and decision is not None and decision.type == "decision"
    assert any(link.relation == "CAUSED_BY" and link.from_title == decision.title and link.to_title == cause.title
               for link in result.links), result.links
    assert "**Cause:** proxy_read_timeout: the upstream" in cause.content, cause.content  # not "Cause: The cause is"


def test_a_labelled_line_does_not_repeat_its_label():
    from alaya_engine.distill.offline.text.label_echo import without_echo

    assert without_echo("Cause", "So the cause is a leftover restore index, not a failed node.") == \
        "A leftover restore index, not a failed node."
    assert without_echo("Fix", "The fix is to raise proxy_read_timeout to 300 s.") == \
        "Raise proxy_read_timeout to 300 s."
    assert without_echo("原因", "根本原因是：一张 6100 万像素的图解码要 244 MB") == "一张 6100 万像素的图解码要 244 MB"
    assert without_echo("Cause", "The cause is this.") == "The cause is this."  # nothing left to say it
    assert without_echo("Decision", "The cause is X, so we keep 300 s.") == "The cause is X, so we keep 300 s."


def test_every_labelled_line_of_an_agent_card_says_its_label_once():
    found = cards(session(
        ("user", "The nightly export job failed again with a timeout. Why?"),
        ("assistant", "**Root cause:** the statement_timeout of 30s on pg-replica-03 is shorter than the export "
                      "query, which now takes about 95 seconds.\n\n**Fix:** The fix is to raise statement_timeout to "
                      "300s for the export_job role only."), tools=True))
    cause = card_saying(found, "statement_timeout of 30s")
    assert cause is not None and "**Fix:** Raise statement_timeout to 300s" in cause.content, cause and cause.content


def test_small_talk_still_gives_nothing():
    result = OfflineDistiller().distill(session(
        ("user", "Hi! How are you today?"), ("assistant", "I'm doing well, thanks for asking. How about you?"),
        ("user", "Pretty good, thanks. Talk soon!"), ("assistant", "Take care, bye!")))
    assert result.cards == [] and result.skipped_reason


def test_status_names_sessions_that_gave_nothing_even_when_their_record_is_damaged(cli, home, tmp_path):
    import json

    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"id": "small-talk", "timestamp": DEC_1, "turns": [
        {"role": "user", "content": "Hi! How are you today?"},
        {"role": "assistant", "content": "Doing well, thanks. Talk soon!"}]}))
    assert cli("ingest", str(path), "--distill").exit_code == 0
    status = cli("status", "--json").json()["l3"]["gave_nothing"]
    assert status["sessions"] == 1 and status["newest"][0]["session_id"] == "small-talk"
    assert "below distill.min_session_tokens" in status["newest"][0]["reason"]
    for record in (home / "raw" / "distilled").glob("*.json"):
        record.write_bytes(b"{not json")
    damaged = cli("status", "--json")
    assert damaged.exit_code == 0, damaged.stderr
    assert "unreadable" in damaged.json()["l3"]["gave_nothing"]["newest"][0]["reason"]


def test_a_title_states_the_point_without_the_words_that_lead_into_it():
    found = cards(session(
        ("user", "first: the 504s on report-export are back, acme now exports 1.6M rows and it takes ~3.5 min."),
        ("assistant", "One more thing, the stopgap is to raise proxy-read-timeout on the export Ingress to 300."),
        ("user", "另外，四月回杭州，我想给爸妈带点礼物，我妈喜欢英国的茶。"),
    ))
    titles = [card.title for card in found]
    assert not any(title.lower().startswith(("first:", "one more thing", "另外")) for title in titles), titles


def test_an_ok_that_opens_a_finding_is_a_cause_and_a_chinese_sentence_names_the_user_in_chinese():
    found = cards(session(
        ("user", "search-indexer 的 consumer lag 从早上 8 点开始一直涨，新上架的商品都搜不到。"),
        ("assistant", "Lag 几乎全在 partition 7，其他 partition 都是几十。要不要查一下谁在往 product-events 大量写？"),
        ("user", "ok 我查到了，是 acme 在做 bulk import，一口气导了 200 万个 SKU，全走的 product-events。"),
        ("assistant", "那就全解释通了。Short-term：给 acme 的导入限流。"),
        ("user", "rate limit 我调到 500/s 了. Lena says the runbook marks a restart as always safe."),
        tools=True))
    cause = card_saying(found, "bulk import")
    assert cause is not None and cause.type == "gotcha", [(c.type, c.title) for c in found]
    assert not any("The user调" in card.content or "The user调" in card.title for card in found)


def test_a_yes_or_no_question_the_assistant_confirms_is_kept_with_its_figures_and_the_answer():
    found = cards(session(
        ("user", "We moved staging to db-stage-2 over the weekend. It still listens on 5433 like the old box, "
                 "right?"),
        ("assistant", "Correct — only the hostname changed. The read replica moved with it."),
        ("user", "thanks"),
        tools=True))
    confirmed = card_saying(found, "db-stage-2", "5433", "Correct")
    assert confirmed is not None and confirmed.type == "decision", [(c.type, c.title) for c in found]
    assert "Confirmed" in confirmed.content
    explained = cards(session(  # the answer explains a cause: its card carries the question's figures
        ("user", "We moved the image service to Node 22 and sharp 0.34 last week. So the --legacy-peer-deps flag "
                 "in the Dockerfile can go now, right?"),
        ("assistant", "Yes. The flag was only there because sharp 0.32 declared a peer range that excluded Node 20; "
                      "0.34 fixed that range, so a plain `npm ci` resolves cleanly."),
        tools=True))
    assert card_saying(explained, "--legacy-peer-deps", "Node 22", "sharp 0.32") is not None, \
        [c.content for c in explained]
    zh = cards(session(
        ("user", "报表服务已经换到 ClickHouse 24.3 了，原来那个每晚 3 点的 MySQL 同步任务可以停掉了吧？"),
        ("assistant", "可以。那个同步任务只给旧报表供数，新报表直接查 ClickHouse，停掉不会影响任何页面。"),
        tools=True))
    confirmed = card_saying(zh, "ClickHouse 24.3", "同步任务", "可以")
    assert confirmed is not None and "已确认" in confirmed.content, [(c.type, c.title) for c in zh]
    assert "Confirmed" not in confirmed.content and "The assistant" not in confirmed.content


def test_a_question_answered_with_but_or_an_open_question_confirms_nothing():
    hedged = cards(session(
        ("user", "The nightly export runs on worker-3 since Monday. Can we delete the old cron entry on worker-1?"),
        ("assistant", "Yes, but not yet: worker-1 still runs the weekly archive from the same crontab, so move "
                      "that to worker-3 first."),
        tools=True))
    assert not any("Confirmed" in card.content for card in hedged), [c.content for c in hedged]
    opened = cards(session(
        ("user", "The export job on worker-3 takes 14 minutes now. What timeout should its lock have?"),
        ("assistant", "Twice the run time is a safe margin: set the lock TTL to 30 minutes."),
        tools=True))
    assert not any("Confirmed" in card.content for card in opened), [c.content for c in opened]
    restated = cards(session(  # the answer names all the question does: its own card says it
        ("user", "Ok. And the CDN caches the 404s from the origin too, right?"),
        ("assistant", "Correct — the CDN caches origin 404s for 10 minutes by default, so a fixed page can keep "
                      "failing for a while unless you purge it."),
        tools=True))
    assert not any("Confirmed" in card.content for card in restated), [c.content for c in restated]
    assert card_saying(restated, "404s", "10 minutes") is not None, [c.content for c in restated]



def stated_lines(found: list) -> list[str]:
    """The lines that state a card's point (its labelled paragraphs, not its details)."""
    return [line for card in found for line in card.content.splitlines()
            if line.startswith("**") and not line.startswith(("**Details:**", "**细节:**"))]


def test_a_user_asking_the_assistant_to_do_something_states_no_fact():
    asked = cards(session(
        ("user", "The status page for the March 14 maintenance is not written yet. Please draft it as a 30 minute "
                 "read-only window for the billing portal."),
        ("assistant", "Draft: the billing portal is read-only on 14 March from 02:00 to 02:30 UTC."),
        ("user", "The maintenance moves the billing database from db-bill-1 to db-bill-3.")))
    assert card_saying(asked, "db-bill-3") is not None, [c.content for c in asked]
    assert not any("draft it" in line for line in stated_lines(asked)), stated_lines(asked)
    zh = cards(session(
        ("user", "3 月 20 日凌晨要迁移 cache-main-2，应该是 01:00 开始吧。"
                 "你先按\"部分用户需要重新登录\"写一版公告，影响时间写 15 分钟。"),
        ("assistant", "公告草稿：3 月 20 日 01:00–01:15 迁移 cache-main-2，部分用户需要重新登录。"),
        ("user", "cache-main-2 上的会话数据会迁到 cache-main-5。")))
    assert card_saying(zh, "cache-main-5") is not None, [c.content for c in zh]
    assert not any("写一版公告" in line for line in stated_lines(zh)), stated_lines(zh)


def test_a_go_ahead_naming_a_value_accepts_the_proposal_of_it_not_a_later_mention():
    found = cards(session(
        ("user", "The nightly invoice export to the warehouse times out after 90 seconds since the March data grew."),
        ("assistant", "The stopgap is to raise the export job's statement_timeout to 240 s; the real fix is "
                      "batching, which is a bigger change."),
        ("user", "is there anything else in the path that would cut it before that?"),
        ("assistant", "I checked the pooler: its query_timeout is 600 s, so a 240 s query goes through untouched."),
        ("user", "ok, go with 240."),
        tools=True))
    decision = card_saying(found, "statement_timeout", "240")
    assert decision is not None and decision.type == "decision", [(c.type, c.content) for c in found]
    assert "raise the export job's statement_timeout to 240 s" in decision.content.split("**Decision:**")[-1], \
        decision.content
    zh = cards(session(
        ("user", "订单同步任务每次跑到第 40 分钟就被 Kubernetes 杀掉了。"),
        ("assistant", "临时方案是把 CronJob 的 activeDeadlineSeconds 调到 5400 秒，长期还是要拆成增量同步。"),
        ("user", "节点那边会不会也有限制？"),
        ("assistant", "查过了：节点上没有别的超时，5400 秒的任务可以跑完。"),
        ("user", "行，就 5400。"),
        tools=True))
    decision = card_saying(zh, "activeDeadlineSeconds", "5400")
    assert decision is not None and decision.type == "decision", [(c.type, c.content) for c in zh]
    assert "把 CronJob 的 activeDeadlineSeconds 调到 5400 秒" in decision.content.split("**决定:**")[-1], \
        decision.content


def test_a_cause_concluded_after_a_command_keeps_what_the_assistant_read_before_running_it():
    made = [Turn(role="user", content="The image-resizer pods restart every few hours, no errors in the logs."),
            Turn(role="tool", content="$ kubectl top pod\nimage-resizer-7c9  1890Mi", tool_name="exec"),
            Turn(role="assistant", content="Memory sits at 1890Mi against a 2Gi limit."),
            Turn(role="user", content="Hm, I was sure it was the thumbnail LRU, I was planning to shrink it to 500 "
                                      "entries."),
            Turn(role="assistant", content="The LRU may matter too, but 37,000 open file descriptors on a pod "
                                           "serving 50 requests a second are leaking."),
            Turn(role="tool", content="$ rg -n 'os.open' resizer/\nresizer/cache.py:88: fd = os.open(path, flags)",
                 tool_name="exec"),
            Turn(role="assistant", content="Found it: the cause is `resizer/cache.py` line 88, which opens every "
                                           "image with `os.open` and never closes its descriptor.")]
    found = cards(Session(id="s", timestamp=DEC_1, channel="cli", turns=made))
    cause = card_saying(found, "resizer/cache.py", "os.open")
    assert cause is not None and cause.type == "gotcha", [(c.type, c.content) for c in found]
    assert "37,000" in cause.content, cause.content
    made_zh = [Turn(role="user", content="report-api 的内存每天涨大概 500MB，重启就恢复。"),
               Turn(role="tool", content="$ curl -s localhost:6060/debug/pprof/heap | head\nheap profile: 1.9GB",
                    tool_name="exec"),
               Turn(role="assistant", content="堆一共 1.9GB。"),
               Turn(role="user", content="我还以为是结果缓存没清理，正准备给它加个 1000 条的上限呢。"),
               Turn(role="assistant", content="缓存也可能有问题，但堆上有 120 万个 *bytes.Buffer 没被回收，"
                                              "说明导出模块的缓冲区一直被引用着，先查缓冲区。"),
               Turn(role="tool", content="$ rg -n 'bufs' internal/export/\ninternal/export/csv.go:41: "
                                         "bufs = append(bufs, b)", tool_name="exec"),
               Turn(role="assistant", content="找到了，原因是 `internal/export/csv.go` 第 41 行把每个缓冲区追加到"
                                              "全局切片 bufs 里，导出模块从不释放。")]
    found_zh = cards(Session(id="s", timestamp=DEC_1, channel="cli", turns=made_zh))
    cause_zh = card_saying(found_zh, "internal/export/csv.go", "bufs")
    assert cause_zh is not None and "120 万" in cause_zh.content, [c.content for c in found_zh]


def test_the_assistant_reporting_what_it_just_did_is_no_rule_of_its_own():
    found = cards(session(
        ("user", "The invoice totals are off by a cent again on the 2.3 release."),
        ("assistant", "The fix is to round once, in `billing/totals.py`, with `quantize(Decimal('0.01'))`. I also "
                      "added the ruff rule TID251 so a bare `round(` in billing/ fails the hook."),
        tools=True))
    assert not any(line.startswith("**Rule:**") for line in stated_lines(found)), stated_lines(found)
    assert card_saying(found, "billing/totals.py", "TID251") is not None, [c.content for c in found]
    zh = cards(session(
        ("user", "2.3 版本的发票总额又差了一分钱。"),
        ("assistant", "修复方法是只在 `billing/totals.py` 里用 `quantize(Decimal('0.01'))` 统一取整一次。"
                      "我顺便加了一条 ruff 规则 TID251，billing/ 目录下直接调用 round( 会被拦下。"),
        tools=True))
    assert not any(line.startswith("**规则:**") for line in stated_lines(zh)), stated_lines(zh)
    assert card_saying(zh, "billing/totals.py", "TID251") is not None, [c.content for c in zh]


def test_a_lets_naming_an_offered_option_decides_it_with_the_problem_the_option_answered():
    found = cards(session(
        ("user", "The Android app crashes on the new totals: it parses them with Gson into an Int."),
        ("assistant", "Two ways out: (a) send totals as integers again, or (b) keep the decimal string and switch "
                      "the app to BigDecimal parsing."),
        ("user", "Let's keep the decimal string. The Android team ships BigDecimal parsing in release 5.2."),
        tools=True))
    decision = card_saying(found, "Gson", "Int", "BigDecimal", "5.2")
    assert decision is not None and decision.type == "decision", [(c.type, c.content) for c in found]
    zh = cards(session(
        ("user", "安卓端直接崩了：它用 Gson 把金额解析成 Int。"),
        ("assistant", "两个办法：(a) 金额改回整数；(b) 保持字符串，让安卓端改成 BigDecimal 解析。"),
        ("user", "Let's keep 字符串。安卓团队在 5.2 版本改成 BigDecimal 解析。"),
        tools=True))
    decision = card_saying(zh, "Gson", "Int", "BigDecimal", "5.2")
    assert decision is not None and decision.type == "decision", [(c.type, c.content) for c in zh]


def test_what_the_assistant_would_do_is_a_proposal_not_a_rule():
    found = cards(session(
        ("user", "The invoice rounding is off by a cent on the 2.3 release."),
        ("assistant", "I wouldn't rely on the default. I'd add one helper so nobody has to remember the constant."),
        ("user", "ok let's do that, find the call sites"),
        tools=True))
    assert not any(line.startswith("**Rule:**") for line in stated_lines(found)), stated_lines(found)
    zh = cards(session(
        ("user", "2.3 版本的发票金额取整差了一分钱。"),
        ("assistant", "别依赖默认值。我建议加一个 helper，以后每次取整都走它，这样不用靠人记着那个常量。"),
        ("user", "好，先找出所有调用的地方"),
        tools=True))
    assert not any(line.startswith("**规则:**") for line in stated_lines(zh)), stated_lines(zh)


def test_a_go_ahead_that_names_its_choice_is_the_decision_title():
    """"sounds good, switch to poetry" says what was chosen in three words: the title, rather than the first
    sentence of the proposal, which only leads into it."""
    turns = [
        ("user", "our lock file keeps drifting between laptops and CI, every week someone's build breaks"),
        ("assistant", "The switch is small for this repo: replace the requirements files with a pyproject and a "
                      "poetry.lock that CI installs with poetry install --no-root."),
        ("user", "sounds good, switch to poetry"),
        ("assistant", "Done: poetry.lock is committed and CI runs poetry install --no-root."),
    ]
    session = Session(id="lockfile", timestamp=1772417700000, channel="cli",
                      turns=[Turn(role=role, content=content) for role, content in turns])
    decision = next(card for card in OfflineDistiller().distill(session).cards if card.type == "decision")
    assert decision.title == "Switch to poetry"


def test_an_offer_taken_with_a_plain_yes_is_the_decision_title_as_an_action():
    """"Shall I draft an email to book a check-up?" answered "yes please": the decision is to draft the email, not a
    question with "the assistant" in it."""
    turns = [
        ("user", "I need a check-up. My dentist is Dr. Alvarez at Riverbend Dental on Mill Road."),
        ("assistant", "Shall I draft an email to Riverbend Dental to book a check-up?"),
        ("user", "yes please"),
    ]
    session = Session(id="check-up", timestamp=1772417700000, channel="cli",
                      turns=[Turn(role=role, content=content) for role, content in turns])
    cards = OfflineDistiller().distill(session).cards
    assert any(card.title == "Draft an email to Riverbend Dental to book a check-up" for card in cards), \
        [card.title for card in cards]


def test_a_rule_the_user_adds_while_accepting_a_report_is_a_card_of_its_own():
    """"perfect. … and from now on every X must be Y": the acceptance is one point, the new rule another, and the
    report it answers, quoted as context, does not make the rule said already."""
    found = cards(session(
        ("user", "The nightly export to the warehouse failed again, the ingest-sftp box ran out of inodes."),
        ("assistant", "Done:\n\n- cleaned /var/spool/ingest-sftp/tmp (2.1M stale part files)\n- added a "
                      "systemd timer `spool-sweep.timer` that deletes part files older than 2 days\n- alert "
                      "`InodesLow` when free inodes on ingest-sftp drop under 10%"),
        ("user", "perfect. Priya owns that box so I'll tell her about the timer. and from now on every upload "
                 "job has to write into its own spool subfolder, otherwise the sweep can't tell them apart"),
        ("assistant", "Noted: each upload job writes into its own spool subfolder under /var/spool/ingest-sftp."),
        tools=True))
    rule = card_saying(found, "own spool subfolder")
    assert rule is not None and rule.type == "pattern", [(card.type, card.title) for card in found]
    assert "upload job has to write into its own spool" in rule.title.lower()


def test_each_time_in_a_report_is_no_rule_but_each_time_with_a_must_is():
    """"每次一两分钟" tells how long each outage lasted; "每次发版之前都要…" sets a rule."""
    from alaya_engine.distill.offline.stated.sentences import stated_kind

    assert stated_kind("parcel-api 昨晚开始断断续续 502，每次三四分钟，然后自己就好了。", "user") != "rule"
    assert stated_kind("每次发版之前都要先跑一遍数据库迁移脚本。", "user") == "rule"
    assert stated_kind("每次用 certbot 签发证书，必须同时加 deploy hook。", "assistant") == "rule"


def test_how_the_tests_ran_with_a_fix_is_no_card_but_why_a_test_fails_is():
    found = cards(session(
        ("user", "invoice totals are off by a cent for some EUR invoices since the ledger-core 2.3 upgrade"),
        ("assistant", "Turns out ledger-core 2.3 rounds half-even by default, so 0.125 becomes 0.12; the fix is "
                      "to pass `rounding=ROUND_HALF_UP` in `billing/totals.py`."),
        ("assistant", "The new regression test fails on the old code and passes with the fix; full suite green "
                      "(212 passed)."),
        ("user", "nice. ship it"),
        tools=True))
    assert card_saying(found, "ROUND_HALF_UP") is not None
    assert not [card for card in found if card.title.lower().startswith("the new regression test")], \
        [(card.type, card.title) for card in found]


def test_a_rule_named_after_saying_what_one_will_do_is_a_rule_card_titled_by_the_rule():
    found = cards(session(("user", "Friday 12 June, switchover at 01:00 UTC, back on tsdb-ams-02 by 01:30. I'll post "
                                   "the announcement in #status-internal — rule is any planned DB maintenance gets "
                                   "announced there at least 48 hours ahead"),
                          ("assistant", "Draft: Planned maintenance, Fri 12 June 01:00–01:30 UTC.")))
    rules = [card for card in found if "48 hours" in card.content and card.type == "pattern"]
    assert rules, [(card.type, card.title) for card in found]
    assert rules[0].title.startswith("Rule is any planned DB maintenance"), rules[0].title
    assert "#status-internal" in rules[0].content, "the clause before says where"


def test_an_accepted_comparison_is_titled_by_the_decision_it_names_not_by_its_table():
    """The demo's pgbouncer session: the assistant compares two fixes in a table, then says "Decision: we'll use
    max_prepared_statements = 200 on pgbouncer", and the user says "great, ship it"."""
    from alaya_engine.demo import sample_sessions_dir
    from alaya_engine.raw.formats import parse_session_bytes

    path = sample_sessions_dir() / "session-20260306-090500.json"
    found = cards(parse_session_bytes(path.read_bytes(), 10**9))
    decision = card_saying(found, "max_prepared_statements = 200", "statement_cache_size=0")
    assert decision is not None and decision.type == "decision", [(c.type, c.title) for c in found]
    assert "|" not in decision.title and decision.title.startswith("We'll use max_prepared_statements = 200"), \
        decision.title


def test_an_accepted_proposal_that_is_all_table_keeps_its_words_as_title():
    """Nothing left once the table is taken out: the title falls back to the proposal as said, never fails."""
    from datetime import date

    from alaya_engine.distill.offline.stated.card import statement_card
    from alaya_engine.distill.offline.stated.reading import Statement

    sess = session(("user", "which pool?"), ("assistant", "| pool | p50 |\n|---|---|\n| 20 | 12 ms |"),
                   ("user", "great"))
    card = statement_card(Statement(2, "decision", [], ["| pool | p50 | |---|---| | 20 | 12 ms |"], 1), sess,
                          date(2025, 12, 1), chinese=False)
    assert card.title.startswith("| pool | p50 |"), card.title


def test_a_stated_table_is_no_part_of_a_title():
    found = cards(session(
        ("user", "Prepared statements break behind pgbouncer. Which fix?"),
        ("assistant", "I compared the two fixes:\n\n| option | p50 |\n|---|---|\n| cache off | 14.8 ms |\n"
                      "| max_prepared_statements | 12.6 ms |"),
        ("user", "great, ship it to prod monday morning")))
    assert found and all("|" not in card.title for card in found), [card.title for card in found]


def test_a_fact_stated_before_the_question_that_asks_about_it_is_kept_and_a_guess_or_a_supposition_is_not():
    """"My dad takes metoprolol 50mg every morning, should I mention it?": the question is noise, what it states
    first is not. What a question supposes ("I guessed redis-7 was down", "if the ALB were at 60s") is no fact."""
    found = cards(session(
        ("user", "Knee surgery for my dad is booked at St Mary's on 12 March. My dad also takes metoprolol 50mg "
                 "every morning, should I mention it to the surgeon?"),
        ("assistant", "Yes, tell the anaesthetist at the pre-op assessment; they decide whether he takes it that "
                      "morning. Don't stop it on your own."),
        ("user", "我爸每天晚上吃二甲双胍 500mg，体检前要停吗？"),
        ("assistant", "体检当天早上空腹，晚上那次照常吃，具体听医生的。")))
    assert card_saying(found, "metoprolol", "50mg") is not None, [(c.title, c.content) for c in found]
    assert card_saying(found, "二甲双胍", "500mg") is not None, [(c.title, c.content) for c in found]
    guessed = OfflineDistiller().distill(session(
        ("user", "The export to s3-archive failed twice tonight. I guessed redis-7 was down at 02:10, should I "
                 "restart it?"),
        ("assistant", "redis-7 is up. The export failed because the bucket policy denies PutObject since 01:55."),
        ("user", "wait — if the ALB were at 60s, would it cut the 90s export too?"),
        ("assistant", "It would: the ALB's idle timeout is 60 s and the export holds the connection for 90 s.")))
    said = [f"{card.title}\n{card.content}" for card in guessed.cards]
    assert not any("redis-7 was down" in text and "should I" not in text for text in said), said
    assert not any(text.startswith("wait") for text in said), said


def test_a_decision_not_taken_is_no_decision():
    """"decided" and 决定 said to deny it ("haven't decided", "还没决定") make no decision card."""
    result = OfflineDistiller().distill(session(
        ("user", "Thinking about the trip in October 2026: haven't decided between Lisbon and Porto yet, just "
                 "browsing flights."),
        ("assistant", "Both work in October; Porto is cheaper to fly into from Manchester."),
        ("user", "10 月那趟还没决定去里斯本还是波尔图，先看看机票。"),
        ("assistant", "好的，等你定了再说。")))
    assert not any(card.type == "decision" for card in result.cards), [(c.type, c.title) for c in result.cards]


def test_a_proposal_put_as_a_question_is_what_the_go_ahead_accepts():
    found = cards(session(
        ("user", "The payroll box drifted 94 s because chronyd was off after the rebuild; it is fixed now."),
        ("assistant", "Agreed. To catch it next time, how about an alert on node_exporter's timex metrics: fire "
                      "when `node_timex_sync_status == 0` for 10 minutes? That would have paged us two days early "
                      "instead of after the 401s."),
        ("user", "sounds good, put it on the backlog"),
        tools=True))
    decision = card_saying(found, "node_timex_sync_status", "10 minutes")
    assert decision is not None and decision.type == "decision", [c.title for c in found]
    assert "alert" in decision.title, decision.title  # the proposal, not the sentence after it


def test_an_option_turned_down_is_not_what_was_accepted_and_the_right_way_is():
    found = cards(session(
        ("user", "升级用户启动就崩：Room 说数据库要从 version 3 升到 4，但没找到 Migration。直接 "
                 "fallbackToDestructiveMigration 是不是最省事？"),
        ("assistant", "省事，但会把用户本地的植物和提醒全部清空，不建议。正确做法是补一个 3→4 的 Migration："
                      "`ALTER TABLE plants ADD COLUMN last_watered_at INTEGER`，"
                      "然后 `.addMigrations(MIGRATION_3_4)`。"),
        ("user", "行，就这么办。"),
        tools=True))
    fix = card_saying(found, "MIGRATION_3_4", "last_watered_at")  # the fix, with the go-ahead on its card
    assert fix is not None and fix.type in ("decision", "pattern"), [c.title for c in found]
    assert "Migration" in fix.title and "省事" not in fix.title


def test_a_reaction_to_a_result_accepts_nothing():
    """"nice." greets what was just done; the concern that follows is no decision, and the report no proposal."""
    found = cards(session(
        ("assistant", "Clock is synced to ntp-1 and the poller is getting 200s again."),
        ("user", "nice. one thing bugs me though: our runbook says auth-gw tolerates 60 seconds of clock skew, but "
                 "the drift was only ~35 s when the 401s started."),
        tools=True))
    concern = card_saying(found, "60 seconds", "35 s")
    assert concern is not None and concern.type != "decision", [(c.type, c.title) for c in found]
    assert "Proposed by the assistant" not in concern.content
    from alaya_engine.distill.offline.stated.sentences import reacts_only

    assert reacts_only("nice. one thing bugs me though") and reacts_only("thanks!")
    assert not reacts_only("nice, ship it") and not reacts_only("great, let's do it") and not reacts_only("ok do it")


def test_go_packages_and_a_trailing_explains_why_do_not_cut_or_type_a_sentence():
    from alaya_engine.distill.offline.stated.kinds import KINDS
    from alaya_engine.distill.offline.text.cue_match import has_cue
    from alaya_engine.distill.offline.text.sentences import split_sentences

    assert split_sentences("from now on CI runs go test -race ./... on every PR, no exceptions.") == [
        "from now on CI runs go test -race ./... on every PR, no exceptions."]
    assert split_sentences("It failed... Then it passed.") == ["It failed...", "Then it passed."]
    assert not has_cue("any plan that destroys a volume is a hard stop until someone explains why.", KINDS["cause"])
    assert has_cue("That explains why the 502s started after the deploy.", KINDS["cause"])


def test_what_the_users_figures_come_to_stays_with_them():
    found = cards(session(
        ("user", "Physio went well. Sessions are £48 each and she thinks I'll need about 5."),
        ("assistant", "So roughly £240 for physio. Worth it if it gets you to the start line healthy."),
        ("user", "lol my bank account is also getting shin splints. thanks!")))
    figures = card_saying(found, "£48", "240")
    assert figures is not None, [(c.title, c.content) for c in found]


def test_a_change_the_user_asks_for_keeps_the_report_of_it_done():
    """The agent runs its commands, then reports: the user's request and "Done: …" are one card."""
    found = cards(session(
        ("user", "Brightmart keeps complaining about webhook timeouts and Anika approved it: raise the dispatcher's "
                 "delivery timeout to 15 seconds. Can you change it?"),
        ("tool", "$ kubectl patch configmap webhook-dispatcher-config -p '{\"data\":{\"DELIVERY_TIMEOUT\":\"15s\"}}'\n"
                 "configmap/webhook-dispatcher-config patched"),
        ("assistant", "Done: DELIVERY_TIMEOUT is 15s now and all three pods have rolled.")))
    change = card_saying(found, "Anika", "DELIVERY_TIMEOUT is 15s")
    assert change is not None, [(c.title, c.content) for c in found]


def test_an_answer_opening_with_yes_states_what_follows_it():
    """"Yes — repository s3-nightly …" answers with knowledge; a bare "Yes." or "Done." says nothing."""
    from alaya_engine.distill.offline.stated.sentences import is_noise

    assert not is_noise("Yes — repository s3-nightly writes to the sbx-os-snapshots bucket, starts at 01:00 UTC "
                        "every night, about 31 minutes a run.")
    assert not is_noise("Done — go test -race ./... runs on every PR, still on Go 1.22.6.")
    assert not is_noise("好的，DELIVERY_TIMEOUT 已经改成 15s，三个 pod 都滚动完了。")
    assert is_noise("Yes.") and is_noise("Done.") and is_noise("Yes, that works for me")
    assert is_noise("Let me check the pg-main-02 logs now")
