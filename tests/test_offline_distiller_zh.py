"""The offline distiller on everyday chat with an AI companion, in Chinese and English: personal facts, what the
assistant recommended and pasted documents become cards; greetings, thanks and "As an AI…" do not."""

from __future__ import annotations

import re
from pathlib import Path

from alaya_engine.distill.offline import OfflineDistiller, text
from alaya_engine.foundations.domain import Session, Turn
from alaya_engine.raw.formats import parse_session_bytes

APRIL_27_2023 = 1682553600000  # a Thursday, 00:00 UTC
DEMO_SESSIONS = Path(__file__).parents[1] / "alaya_engine" / "demo" / "sessions"


def chat(person: str, lines: list[str], session_id: str = "chat") -> Session:
    """Alternating person / AI turns, as an AI-companion app exports them."""
    turns = [Turn(role="user" if index % 2 == 0 else "assistant", content=line,
                  extra={"speaker": person if index % 2 == 0 else "AI"}) for index, line in enumerate(lines)]
    return Session(id=session_id, timestamp=APRIL_27_2023, turns=turns)


def chinese_chat() -> Session:
    return chat("李雷", [
        "你好，我叫李雷，很高兴认识你。",
        "你好，李雷！我是你的AI伴侣，很高兴认识你。今天过得怎么样？",
        "上周末我和女朋友去了一次黄山，拍了很多日出的照片。",
        "听起来真棒！你平时还有什么爱好吗？",
        "我喜欢下围棋和读科幻小说，下个月我打算去参加一个围棋比赛。",
        "作为一个AI，我没有兴趣爱好。不过我推荐你读一读刘慈欣的《三体》，这部小说的想象力非常震撼。",
        "好的，谢谢你的建议。",
        "不客气，祝你比赛顺利！",
    ], "zh-chat")


def english_chat() -> Session:
    return chat("Sunny", [
        "Hi, I'm Sunny, nice to meet you!",
        "Hi Sunny, I'm your AI companion. How was your day?",
        "Last weekend I went hiking at Yosemite with my sister and we camped by the river.",
        "That sounds wonderful! What else do you enjoy?",
        "I love baking sourdough bread, and next month I'm planning to take a pastry class in Lyon.",
        "As an AI language model, I don't eat bread. I recommend the book Flour Water Salt Yeast by Ken Forkish, "
        "which explains long fermentation step by step.",
        "Thanks for the suggestion!",
        "You're welcome, have a good evening!",
    ], "en-chat")


def distill(session: Session, **options):
    return OfflineDistiller(**options).distill(session)


def card_with(result, needle: str):
    matches = [card for card in result.cards if needle in card.title + card.content]
    assert matches, f"no card mentions {needle!r}: {[card.title for card in result.cards]}"
    return matches[0]


# ---------------------------------------------------------------- personal facts, both languages


def test_chinese_facts_become_dated_third_person_cards():
    session = chinese_chat()
    result = distill(session)
    assert session.tokens < 200, "everyday chat is short: the length floor must not drop it"
    trip = card_with(result, "黄山")
    assert trip.title.startswith("李雷") and "（2023-04-22 那个周末）" in trip.title, trip.title
    assert "李雷和女朋友去了一次黄山" in trip.content and "我" not in trip.content
    assert "（李雷，2023年4月27日与AI聊天时说的。）" in trip.content
    assert trip.turns == [2] or 2 in trip.turns
    plans = card_with(result, "围棋比赛")
    assert "李雷喜欢下围棋和读科幻小说" in plans.content and "下个月（2023-05）" in plans.content
    assert "李雷" in plans.tags


def test_a_system_prompt_is_no_one_the_user_talks_with():
    """A chat exported with its system prompt first: the card says who the user talked with (the assistant), never
    "与System聊天"."""
    session = chinese_chat()
    session.turns.insert(0, Turn(role="system", content="你是李雷的私人助理，回答用中文，简洁友好。", extra={}))
    trip = card_with(distill(session), "黄山")
    assert "（李雷，2023年4月27日与AI聊天时说的。）" in trip.content
    assert "System" not in trip.content


def test_a_speaker_naming_themself_reads_as_a_statement_about_them():
    from alaya_engine.distill.offline.conversation.third_person import third_person

    assert third_person("我叫曹志强，你也可以叫我志强。", "曹志强") == \
        "曹志强自我介绍叫曹志强，你也可以称曹志强为志强。"
    assert third_person("大家都叫我小李", "李雷") == "大家都称李雷为小李"
    assert third_person("妈妈叫我早点回家", "李雷") == "妈妈叫李雷早点回家"  # told to, not called


def test_english_facts_become_dated_third_person_cards():
    result = distill(english_chat())
    trip = card_with(result, "Yosemite")
    assert "Sunny went hiking at Yosemite with Sunny's sister" in trip.content
    assert "weekend of 22 April 2023" in trip.content
    baking = card_with(result, "sourdough")
    assert "Sunny loves baking sourdough bread" in baking.content and "in May 2023" in baking.content


def test_assistant_recommendations_become_cards_without_boilerplate():
    for session, book, boilerplate in ((chinese_chat(), "《三体》", "作为一个AI"),
                                       (english_chat(), "Flour Water Salt Yeast", "As an AI")):
        result = distill(session)
        advice = card_with(result, book)
        assert advice.title.startswith("AI"), advice.title
        assert 5 in advice.turns and 4 in advice.turns, "the advice and the turn it answered are its context"
        assert not any(boilerplate.lower() in (card.title + card.content).lower() for card in result.cards)


def test_greetings_and_thanks_make_no_cards():
    for session in (chinese_chat(), english_chat()):
        result = distill(session)
        used = {index for card in result.cards for index in card.turns}
        assert not {0, 6, 7} & used, [(card.title, card.turns) for card in result.cards]


def test_signing_off_makes_no_card():
    """The last words of a chat that only say goodbye: "I'll be back when I've got a new crazy plan", "考完再来跟你
    报喜", "Ben 说欠你一杯咖啡" are no facts about anyone."""
    english = english_chat()
    english.turns[6:] = [Turn(role="user", content="Anyway, thanks for all the help. I'll be back when I've got a new "
                                                   "crazy plan.", extra={"speaker": "Sunny"})]
    chinese = chinese_chat()
    chinese.turns[6:] = [Turn(role="user", content="好啦，考完再来跟你报喜！谢啦～小王说欠你一杯咖啡 ☕",
                              extra={"speaker": "李雷"})]
    for session in (english, chinese):
        result = distill(session)
        assert not any(6 in card.turns for card in result.cards), [(card.title, card.turns) for card in result.cards]
        assert any(2 in card.turns for card in result.cards), "the facts of the chat are still cards"


def test_short_small_talk_is_still_skipped_and_says_why():
    result = distill(chat("李雷", ["你好！", "你好，很高兴认识你！", "谢谢，再见！", "再见，晚安！"]))
    assert result.cards == [] and "below distill.min_session_tokens" in result.skipped_reason


def test_a_pasted_document_is_kept_as_written():
    article = ("Sourdough starter care\n\n"
               "A starter is a culture of wild yeast and lactic acid bacteria. It needs flour and water every day "
               "at room temperature. Feed it at a one to one ratio by weight. Discard half before each feeding. "
               "A healthy starter doubles within six hours and smells pleasantly sour. Store it in the fridge "
               "when you bake once a week, and feed it weekly. Hooch on top means it is hungry, not dead.")
    result = distill(chat("Sunny", ["Here are my notes, keep them for me:\n\n" + article, "Got it."]))
    document = card_with(result, "Discard half before each feeding")
    assert document.title.startswith("Sunny shared:") and document.turns == [0]


# ---------------------------------------------------------------- the rewrite leaves names alone


def test_names_and_identifiers_with_a_capital_i_survive_the_rewrite():
    said = ["Yesterday I mailed Form I-130 for my wife, then I drove the I-95 home.",
            "Sounds like a long day! What are you reading?",
            "I started a biography of Richard I, and my old laptop with slow I/O still runs the e-reader.",
            "Nice choice."]
    turns = [Turn(role="user" if index % 2 == 0 else "assistant", content=line,
                  extra={"speaker": "Ann" if index % 2 == 0 else "Bob"}) for index, line in enumerate(said)]
    result = distill(Session(id="names", timestamp=APRIL_27_2023, turns=turns))
    everything = " ".join(card.title + " " + card.content for card in result.cards)
    for name in ("Form I-130", "I-95", "Richard I", "I/O"):
        assert name in everything, everything
    assert "Ann mailed Form I-130 for Ann's wife" in everything
    assert not re.search(r"Form Ann|Richard Ann|Ann/O|Ann-95", everything)


# ---------------------------------------------------------------- agent sessions and titles


def test_agent_cards_do_not_share_a_copied_problem_paragraph():
    problems_seen = 0
    for path in sorted(DEMO_SESSIONS.iterdir()):
        result = distill(parse_session_bytes(path.read_bytes(), 10**8))
        problems = [paragraph for card in result.cards for paragraph in card.content.split("\n\n")
                    if paragraph.startswith(("**Problem:**", "**问题:**"))]
        problems_seen += len(problems)
        assert len(problems) == len(set(problems)), f"{path.name}: {problems}"
    assert problems_seen >= 5, "the first card of an incident still states its problem"


def test_chinese_titles_end_at_a_word_and_never_inside_a_book_title():
    cut = text.shorten("如果你喜欢悬疑小说我推荐你看一下《福尔摩斯探案集》这是一本非常棒的侦探小说情节紧凑推理精彩", 56)
    assert "《" not in cut or "》" in cut, cut
    long = text.shorten("李雷跟李雷的朋友一起去看了一场电影感觉非常愉快而且画面很美主题也非常深刻", 50)
    assert text.title_width(long) <= 50 and not long.endswith(("的", "一场", "了", "和")), long


def test_a_chinese_clause_in_an_english_chat_names_the_user_in_chinese():
    from alaya_engine.distill.offline.conversation.third_person import said_to, third_person

    assert third_person("and the wall sits — 我改到晚上做了, mornings just don't work", "The user") == \
        "and the wall sits — 用户改到晚上做了, mornings just don't work"
    assert said_to("我建议你每天晚上做", "The assistant", "The user") == "助手建议用户每天晚上做"
    assert said_to("I suggest you do them at night", "The assistant", "The user") == \
        "The assistant suggests the user do them at night"


def test_someone_and_i_keep_their_plural_verb():
    from alaya_engine.distill.offline.conversation.third_person import third_person

    assert third_person("big news: Marloes and I are doing Japan in autumn", "The user") == \
        "big news: Marloes and the user are doing Japan in autumn"
    assert third_person("I love it and I need a break", "The user") == "The user loves it and the user needs a break"


def test_you_as_a_subject_agrees_with_the_name_that_replaces_it():
    """"If you select them" read "If the user select them" on a demo card's title."""
    from alaya_engine.distill.offline.conversation.third_person import said_to

    def told(sentence: str) -> str:
        return said_to(sentence, "The assistant", "The user")

    assert told("If you select them, ruff prints a warning") == "If the user selects them, ruff prints a warning"
    assert told("You need to restart it, then you really have two options") == \
        "The user needs to restart it, then the user really has two options"
    assert told("When you are on 3.11, you can drop it") == "When the user is on 3.11, the user can drop it"
    assert told("I will let you know and help you find it") == \
        "The assistant will let the user know and help the user find it"  # an object: no verb of its own
    assert told("I suggest you do them at night") == "The assistant suggests the user do them at night"


def test_a_user_writing_chinese_to_an_assistant_answering_in_english_gets_chinese_cards():
    """The memory is the user's: a user who mixes in English words ("check engine light 亮了") is read in Chinese
    even when the assistant's long English answers outweigh their words, and every reader labels alike; the user
    writing one turn in English and another in Chinese is one person, not someone talking to "The user"."""
    turns = [
        Turn(role="user", content="Hi, 我的 2019 Subaru Outback check engine light 亮了，OBD 读出来是 P0420。"),
        Turn(role="assistant", content="P0420 means the catalyst system efficiency is below threshold on bank 1: "
                                       "the downstream O2 sensor reads almost the same as the upstream one. The "
                                       "usual causes are an ageing catalytic converter, a failing downstream oxygen "
                                       "sensor, or an exhaust leak before the sensor."),
        Turn(role="user", content="Kowalski Auto 说就是三元催化坏了，要换，报价 $1,850。"),
        Turn(role="assistant", content="That's a big bill for a code that has cheaper possible causes. I'd get a "
                                       "second opinion that looks at the live data of both oxygen sensors first."),
        Turn(role="user", content="我去了 Eastside Subaru，师傅看了实时数据，说是后面那个氧传感器的问题，换传感器大概 "
                                  "$320，催化器本身没事。那我先约他们换传感器。"),
    ]
    found = OfflineDistiller().distill(Session(id="mixed", timestamp=1_757_808_000_000, channel="chat",
                                               turns=turns)).cards
    assert found
    labels = {label for card in found for label in re.findall(r"\*\*([^*]{1,24}):\*\*", card.content)}
    assert labels and all(re.search(r"[\u4e00-\u9fff]", label) for label in labels), labels
    assert not any(re.search(r"与The (?:user|assistant)", card.content) for card in found)  # one person, one name


def test_a_chinese_answer_in_a_session_the_user_began_in_english_is_labelled_in_chinese():
    """The session is read as English (its user writes mostly English), but a card whose words are all Chinese
    reads in Chinese: "**Cause:** 那条规矩是针对 gateway restart 的…" was the demo's. English cards keep English
    labels."""
    turns = [
        Turn(role="user", content="Uptime Kuma says the cert for grafana.acme.dev expires in 6 days, although "
                                  "certbot.timer is running. Can you check what nginx is actually serving?"),
        Turn(role="assistant", content="Root cause: the cert was issued with certbot certonly --webroot and no "
                                       "installer, so certbot renewed the files on disk but nothing reloaded nginx, "
                                       "which still serves the old cert from memory."),
        Turn(role="user", content="先 reload 吧。按之前 gateway 那次定的规矩，reload 前要不要先在群里发个通知？"),
        Turn(role="assistant", content="那条规矩是针对 gateway restart 的，restart 会断开所有通道。原因是 nginx reload "
                                       "是平滑的：master 重新读配置和证书，启动新 worker，老 worker 处理完手上的连接再"
                                       "退出，不会断开任何请求。所以严格来说不需要通知。"),
    ]
    found = OfflineDistiller().distill(Session(id="mixed-en", timestamp=1_764_124_200_000, channel="telegram",
                                               turns=turns)).cards
    labelled = {card.title: re.findall(r"\*\*([^*]{1,30}):\*\*", card.content) for card in found}
    chinese = [labels for title, labels in labelled.items() if text.is_chinese(title) and labels]
    english = [labels for title, labels in labelled.items() if not text.is_chinese(title) and labels]
    assert chinese and english, labelled
    assert all(re.search(r"[\u4e00-\u9fff]", label) for labels in chinese for label in labels), labelled
    assert all(not re.search(r"[\u4e00-\u9fff]", label) for labels in english for label in labels), labelled
