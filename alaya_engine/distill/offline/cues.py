"""Cue words and patterns: what the offline distiller looks for, kept in one place to tune.

Tune them by reading ``python -m bench.show_cards``. In the tuples, "re:" marks
a regular expression; everything else is a phrase matched case-insensitively,
on word boundaries for English and anywhere for Chinese (see ``text.cue_match``).
"""

from __future__ import annotations

import re

# ================================================================ agent sessions: card types
# Strong cues count 2, hints 1; a unit needs 2 points for a type.

GOTCHA_CUES = ("root cause", "gotcha", "caveat", "pitfall", "the catch", "careful", "watch out", "silently",
               "by mistake", "counter-intuitive", "counterintuitive", "trap", "the bug", "actual bug",
               "原因", "根因", "导致", "坑", "注意", "报错", "反直觉", "地雷", "潜伏", "不生效", "不支持", "挡不住")
GOTCHA_HINTS = ("because", "caused", "due to", "instead", "don't", "doesn't", "didn't", "isn't", "won't", "can't",
                "never", "error", "errors", "fail", "fails", "failed", "wrong", "breaks", "broke", "killed",
                "ignored", "ignoring", "only", "no longer", "不会", "不能", "失败", "错误", "因为", "不要", "先别",
                "千万别", "别用", "否则", "丢弃", "断开", "不一定")
DECISION_CUES = ("decision", "decided", "i recommend", "我建议", "we'll use", "we will use", "we'll go with",
                 "going with", "go with", "chose", "settled on", "rejected", "决定", "改用", "选用", "就这么定", "定了",
                 "不选", "采用")
DECISION_HINTS = ("recommend", "proposal", "propose", "prefer", "i'd", "switch to", "replace", "replaces",
                  "instead of", "rather than", "trade-off", "倾向", "建议", "方案", "替代", "换成", "选择")
PATTERN_CUES = (r"re:(?<!almost )\balways\b", "whenever", "every time", "each time", "rule of thumb",
                "make it a rule", r"re:\brules?\b(?=\s*(?:[:：(（]|for\b|of thumb|recorded|i'm recording))",
                "rule recorded", "pattern for", "the pattern is", "checklist", "step by step", "triage", "runbook",
                r"re:每次[^。]{0,40}?(?:都要|必须|务必|先|之前|以后|要)", "凡是", "规则", "规矩", "步骤", "一律",
                "流程", r"re:先[^。！？\n]{1,40}再")
PATTERN_HINTS = ("before", "after every", "after each", "then",
                 r"re:(?<!\bthe )(?<!\bits )(?<!\btheir )(?<![\w-])first(?![\w-])", "must", "make sure", "never",
                 "必须", "务必", "先", "之前", "确保")
"""An adverb "first" hints at a step ("check the limits first"), an ordinal does not ("the first errors")."""
CONCEPT_CUES = ("means", "i.e.", "refers to", "is defined as", "works by", "under the hood", "the difference",
                "是指", "意思是", "也就是", "区别", "概念", "原理", "指的是", "本质")
CONCEPT_HINTS = ("is a", "is the", "are the", "defaults to", "by default", "only exists", "默认", "就是")

TYPE_CUES = {
    "gotcha": (GOTCHA_CUES, GOTCHA_HINTS),
    "decision": (DECISION_CUES, DECISION_HINTS),
    "pattern": (PATTERN_CUES, PATTERN_HINTS),
    "concept": (CONCEPT_CUES, CONCEPT_HINTS),
}
"""Strong cues and hints per card type; on a tie the type listed first wins."""

# ================================================================ agent sessions: context and noise

PROBLEM_LEADS = ("problems", "problem", "issues", "what went wrong", "两类问题", "问题", "separate problems")
"""A list introduced by these is a list of things that went wrong."""
OPTION_LEADS = ("options", "alternatives", "选项", "对比", "几种")
"""A list introduced by these weighs options: its items feed the decision, only gotcha items stand alone."""
PROBLEM_CUES = ("slow", "broken", "dead", "down", "stuck", "missing", "lost", "crash", "500", "502", "504",
                "timeout", "挂", "慢", "超时", "不见了", "丢", "红了", "没收到", "异常")
FIX_CUES = ("fix", "the fix", "proposed fix", "solution", "mitigation", "workaround", "stopgap", "修复", "解决",
            "修法", "修好", "恢复方法", "止血", "临时方案")
REASON_CUES = ("because", "since", "so that", "to avoid", "to prevent", "that's why", "due to", "which is why",
               "given", "therefore", "so the", "so we", "因为", "由于", "为了", "为了避免", "所以", "因此", "以免",
               "避免", "于是")
PREVENTION_CUES = ("never", "don't", "do not", "always", "must", "avoid", "prevent", "so that", "不要", "必须",
                   "避免", "防止", "一律", "禁止")
CAUSE_CUES = ("causes", "caused", "leads to", "led to", "results in", "导致", "引起", "造成")
NARRATION_CUES = ("let me", "let's see", "checking", "i'll", "i will", "looking at", "on it", "running",
                  "applying", "rolling it out", "writing it", "done", "noted", "resolved it", "now", "ok to ship",
                  "yes", "先看", "我先", "看一下", "确认一下", "查一下", "再看", "接下来", "记下了", "加好了", "好的",
                  "都好了", "恢复好了", "我来", "我还是")
"""Checked at the start of a sentence: the agent telling what it does, not what it learned."""
REPORT_CUES = ("已更新", "已生效", "已完成", "已删除", "已启用", "已恢复", "已经是", r"re:\bPR #\d+", "is open",
               "is in `", "updated", "now passes", "all hooks pass")
APPROVALS = ("yes", "ok", "okay", "do it", "go ahead", "sounds good", "great", "nice", "perfect", "thanks", "thx",
             "好", "行", "可以", "同意", "收到", "👍", "merged", "agree")
LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:"
    r"(?:(?:one|a|another|two|the)\s+)?(?:root cause|decision(?: proposal| recorded)?|gotcha(?: worth remembering)?|"
    r"caveats?|note|rules?(?: recorded| i'm recording)?|pattern|proposed fix|fix)[^:：\n]{0,12}[:：]"
    r"|[^:：\n]{0,8}(?:原因|根因|决定|结论|规则|注意|修复|坑|总结)[^:：\n]{0,8}[:：]"
    r"|(?:confirmed|found it|找到了|确认了|对上了|情况清楚了|符合预期)[^:：。\n]{0,6}[:：。，,.!！])"
    r"\s*(?:\*\*)?",
    re.IGNORECASE,
)
"""A label that opens a paragraph ("Root cause:", "规则：", "找到了。"): it types the paragraph, then goes."""
ERROR_LINE = re.compile(r"error|exception|fatal|failed|failure|refused|denied|killed|timed out|too many|"
                        r"not found|unknown key|cannot|repeated too quickly|报错|失败|错误", re.IGNORECASE)
NO_ERRORS = re.compile(r"\b(?:errors?|failed|failures?|unreachable)\s*[=:]\s*0\b|\b0\s+(?:errors?|failed|failures?)\b",
                       re.IGNORECASE)
"""A count of errors that is zero (Ansible's ``failed=0``, pytest's ``0 errors``): a report that nothing failed."""
STRONG_ERROR = re.compile(r"killed|refused|timed out|repeated too quickly|too many|exception|fatal|"
                          r"out of memory|does not exist|already exists|unknown key|prematurely", re.IGNORECASE)
ANAPHORA = re.compile(r"^(?:it|they|so|also|after that|then|(?:this|that|these|those)(?=\s+(?:is|was|are|were|"
                      r"means|one|will|would|can|should|has|have)\b)|that's|this's)\b|^(?:这|那|它|也)",
                      re.IGNORECASE)
"""A sentence that leans on the one before it ("That's almost always…", "这是…") cannot stand alone."""

# ================================================================ conversations between people
# Each group adds to a sentence's fact score (``conversation.facts.fact_score``); small talk takes away.

EVENT_CUES = ("went", "visited", "started", "joined", "finished", "bought", "adopted", "took", "moved", "won",
              "lost", "signed up", "launched", "opened", "painted", "attended", "volunteered", "tried", "learned",
              "met", "celebrated", "quit", "graduated", "applied", "received", "planted", "baked", "built",
              "traveled", "travelled", "hiked", "camped", "organized", "hosted", "performed", "competed",
              "completed", "created", "published", "released", "passed", "injured", "married", "got", "saw",
              "watched", "played", "taught", "became", "decided", "explored", "returned", "donated", "raised",
              "earned", "landed", "ran", "read", "wrote", "had", "found", "gave", "cooked", "been to", "just",
              "since we last")
PLAN_CUES = ("off to", "heading to", "planning", "plan to", "plans to", "going to", "gonna", "want to",
             "hoping to", "hope to", "thinking of", "thinking about", "keen on", "looking forward", "can't wait",
             "next", "soon", "upcoming", "goal", "dream", "someday")
PREFERENCE_CUES = ("love", "like", "favorite", "favourite", "enjoy", "passionate", "fan of", "hate", "prefer",
                   "into", "hobby", "fun way", "way to relax", "helps me", "express", "outlet", "therapeutic")
STATE_CUES = ("swamped", "busy with", "stressed", "working on", "studying", "learning", "training", "recovering",
              "struggling", "saving up", "been doing", "been working")
PERSONAL_CUES = ("kids", "children", "husband", "wife", "son", "daughter", "mom", "dad", "mother", "father",
                 "family", "partner", "boyfriend", "girlfriend", "dog", "cat", "pet", "brother", "sister",
                 "parents", "grandma", "grandpa", "job", "work as", "boss", "team", "school", "years old",
                 "grew up", "live in", "home")
DECIDED_CUES = (r"re:(?<!n't )(?<!not )(?<!yet )\bdecided\b", "made the decision", "决定")
UNDECIDED = re.compile(r"\b(?:(?:have|has|had)n['’]?t (?:yet )?(?:decided|made (?:a|the|any) decision)|"
                       r"not (?:yet )?decided|undecided|no decision yet|(?:haven['’]?t|not) settled on)\b|"
                       r"(?:还)?没(?:有)?(?:决定|定下来|想好)|还没定|尚未决定|未定", re.IGNORECASE)
"""A decision not taken: "decided" and 决定 said to deny it."""
SMALL_TALK = ("sounds like", "thanks", "thank you", "congrats", "congratulations", "good to see", "how are you",
              "how have you been", "talk soon", "talk to you", "take care", "bye", "see you", "good luck",
              "have a good", "nice to", "long time no see", "hey", "hi", "hello", "i'll be back", "be back when",
              "wish me luck", "catch you later", "talk later", "owe you")
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I'd|I'll|my|My|me|mine|myself)\b")
SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've|yours)\b", re.IGNORECASE)
FACT_ANAPHORA = re.compile(r"^(?:it|that|this|those|these|they|moments like|like these|seeing|there)\b",
                           re.IGNORECASE)
INTERJECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|oh|ooh|hey|hi|hello|wow|whoa|well|so|btw|anyway|anyways|haha|lol|ah|aw+|omg|ok|okay|"
    r"by the way|honestly|actually|guess what|thanks|thank you|sure|totally|definitely|cool|nice|great|"
    r"besides that|apart from that|on another note|just so you know|speaking of [\w\s]{1,30}?(?=,)|"
    r"since we last (?:spoke|talked))"
    r"(?:\s+[A-Z][a-z]+)?[,!.…]*\s+)+",
    re.IGNORECASE,
)

# ---------------------------------------------------------------- conversations in Chinese
# The same groups as above, matched anywhere in the sentence; each adds to ``fact_score`` with the same weight.

ZH_EVENT_CUES = (r"re:(?:去|看|买|学|做|参加|读|玩|吃|拍|画|写|听|见|认识|完成|开始|尝试|报名|旅行|旅游|"
                 r"爬|跑|游|养|搬|换|考|赢|输|收到|得到|获得|遇到|发现|参观|逛|练|录取|辞职|结婚|毕业|生|办|唱|跳|种|修|烤|煮|搭|送|"
                 r"加入|组织|举办|回)(?:了|过)",
                 "刚刚", "第一次", "终于", "昨天", "前天", "上周", "周末", "上个月", "去年", "那天", "最近去", "刚才")
ZH_PLAN_CUES = ("计划", "打算", "准备", "想去", "想要", "想学", "想买", "想试", "希望", "下次", "将要", "要去", "目标",
                "梦想", "决定", "安排", "报了", "期待", "下周", "明天", "以后", "将来", "正在计划")
ZH_PREFERENCE_CUES = ("喜欢", "爱好", "兴趣", "热爱", "最爱", "迷上", "讨厌", "偏爱", "享受", "感兴趣", "推荐",
                      "着迷", "最喜欢", "擅长", "习惯", "经常", "平时", "一直在", "粉丝")
ZH_PERSONAL_CUES = ("家人", "父母", "爸爸", "妈妈", "父亲", "母亲", "儿子", "女儿", "老公", "老婆", "丈夫", "妻子",
                    "孩子", "朋友", "同事", "老板", "公司", "工作", "学校", "老师", "同学", "宠物", "狗", "猫", "哥哥",
                    "姐姐", "弟弟", "妹妹", "男朋友", "女朋友", "住在", "家乡", "老家", "名字", "我叫", "岁", "专业",
                    "大学", "城市", "生日")
ZH_STATE_CUES = ("压力", "烦恼", "焦虑", "紧张", "担心", "难过", "伤心", "开心", "高兴", "兴奋", "失落", "烦躁",
                 "累", "生病", "感冒", "失眠", "正在", "在学", "在准备", "在练", "坚持", "锻炼", "健身", "减肥")
ZH_SMALL_TALK = ("你好", "您好", "嗨", "很高兴认识你", "谢谢", "感谢", "不客气", "再见", "拜拜", "晚安", "明天再聊",
                 "下次再聊", "改天再聊", "先到这里", "聊得很开心", "没关系", "好的", "听起来", "听着", "真棒", "太棒了",
                 "聊天", "聊聊", "跟你说", "和你说", "跟你分享", "和你分享", "认识你", "谢啦", "多谢", "再来跟你",
                 "再来找你", "报喜", "欠你")
"""Greetings, thanks, signing off ("考完再来跟你报喜", "Ben 说欠你一杯咖啡") and talk about the chat itself ("想跟你聊
聊…"): not a fact about the speaker."""
ZH_FIRST_PERSON = re.compile(r"(?<!自)我|咱")
ZH_OTHER_SUBJECT = re.compile(r"你|您|他|她|它")
ZH_INTERJECTION = re.compile(
    r"^(?:(?:(?:你好|您好|嗨|哈喽|早上好|晚上好)[啊呀]?[^，,。！!？?]{0,8}|嗯+|恩+|哦+|噢|啊|哎呀|哎|唉|哈哈+|呵呵|嘿|好的|好吧|是的|是啊|对啊|对了|其实|说实话|话说|另外|除此之外|"
    r"当然了|当然可以|当然|没错|你知道吗|你知道|你猜|不过|很好|不错|挺好|不用谢|不客气)[，,。！!、\s]+|(?:然后|而且|所以|但是|但|可是|由于)[，,\s]*)+")
"""'嗯，我们可以…' → '我们可以…', '你好啊AI伴侣，…' → '…', '但还有…' → '还有…': openers that say nothing
about the speaker (a word such as 不错 only before punctuation: '不错的电影' keeps it)."""

# ---------------------------------------------------------------- what an AI assistant tells, in a conversation

RECOMMEND_CUES = ("i recommend", "i'd recommend", "i would recommend", "i suggest", "i'd suggest", "you could",
                  "you can try", "you might", "you may want", "you should", "try", "consider", "recommend",
                  "suggestion", "how about", "a good choice", "worth",
                  "推荐", "建议", "你可以", "可以试试", "可以尝试", "不妨", "试试", "值得", "选择")
EXPLAIN_CUES = ("for example", "such as", "first,", "means", "is known for", "because", "tips", "steps",
                "比如", "例如", "像是", "首先", "其次", "然后", "最后", "步骤", "方法", "技巧", "是指", "意思是",
                "讲述", "因为")
ADVICE_CUES = RECOMMEND_CUES + EXPLAIN_CUES
"""An assistant sentence that recommends, explains or plans something: knowledge the user was given."""
BOILERPLATE = re.compile(
    r"as an ai|as a language model|i(?:'m| am) (?:just |only )?an? (?:ai|language model|virtual)|"
    r"i (?:don't|do not|can't|cannot) (?:have|experience|feel)|i(?:'m| am) (?:your |an )?ai (?:companion|assistant)|"
    r"作为(?:一个|一名|你的)?(?:AI|人工智能|语言模型|虚拟)|我(?:只是|是)(?:一个|一名|你的)?(?:AI|人工智能|语言模型|虚拟)|"
    r"我没有(?:实体|身体|情感|感情|兴趣爱好)|没有实体",
    re.IGNORECASE)
"""'As an AI language model…', '作为一个AI…': what the assistant says about being an assistant."""
EMPATHY_CUES = ("sounds", "glad", "sorry to hear", "that's great", "wonderful", "amazing", "happy for you",
                "听起来", "真是太", "真棒", "太棒了", "很高兴", "遗憾", "加油", "相信你", "祝你", "希望你", "期待",
                "希望我的建议")
"""Warm replies that carry no knowledge of their own."""
AI_SPEAKERS = frozenset({"ai", "assistant", "ai assistant", "ai companion", "bot", "chatbot", "助手", "ai助手",
                         "ai伴侣", "人工智能", "机器人"})
"""Speaker names that say the assistant is an AI, not a person talking (as LoCoMo's second speaker is)."""
