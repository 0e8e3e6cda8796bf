"""The cue phrases of each kind of stated knowledge (English and Chinese) and what a card of each kind is."""

from __future__ import annotations

import re

from ..cues import PROBLEM_CUES

OFFER_VERBS = frozenset("keep drop use set add remove run switch move raise lower skip wait try go make put create "
                        "restart roll pin bump split schedule book send remind pick choose start stop limit"
                        " cap".split())
"""Verbs that open an action: proposed by an assistant in the imperative, decided by "let's …"."""
LETS_ACT = "re:\\blet'?s (?:" + "|".join(sorted(OFFER_VERBS)) + ")\\b"
"""Someone deciding on an action: "let's raise it to 300s", "lets pin it"."""

KINDS = {
    "cause": ("re:\\b(?:the|a|root|real|actual|likely|main) (?:cause|reason)\\b", "caused by", "because of",
              "turns out", "turned out", "that's why", "which is why", "due to", "the culprit", "that's it then",
              "that explains", "re:\\bexplains why\\b(?!\\W*$)", "was triggered by", "comes from", "came from",
              "原来是", "原因是", "原因在于", "根因", "是因为", "由于", "导致", "罪魁祸首", "问题出在", "怪不得",
              "难怪"),
    "fix": ("the fix", "fixed by", "fixed it", "fix was", "fix is", "the solution", "solved by", "resolved by",
            "workaround", "mitigation", "to fix", "stopgap", "short-term fix", "quick fix", "修复", "解决办法",
            "解决方法", "解决了", "修好", "改成", "修法", "止血", "临时方案", "临时办法", "the right fix",
            "the proper fix", "the correct fix", "正确做法", "正确的做法"),
    "decision": ("decided", "decision", "let's go with", "let's do it", LETS_ACT, "we'll go with", "we'll use",
                 "going with", "go with", "settled on", "switch to", "switching to", "instead of", "rather than",
                 "i'll take", "we'll take", "let's do the", "let's take the", "let's go for", "we'll do the",
                 "rather not", "hold off", "leave it as is",
                 "先别动", "先不动", "保持现状", "决定", "就用", "改用", "定了", "就这么办", "就这么定", "就这样",
                 "选了", "那就", "换成", "采用"),
    "rule": ("from now on", "going forward", "remember", "make sure", "must", "rule", "policy", "don't ever",
             "do not ever", "every time", "whenever", "从现在起", "从今以后", "以后都", "以后要", "记住", "一律",
             "必须", "千万", "不要再", "规定", "务必",
             r"re:每次[^。！？\n]{0,40}?(?:都要|都得|必须|务必|要先|先|之前|记得)"),
    "plan": ("booked", "planning to", "plan to", "plan is", "scheduled", "we'll", "i'll", "going to", "next week",
             "tomorrow", "appointment", "deadline", "计划", "打算", "准备", "约了", "订了", "安排", "预约", "下周",
             "明天", "截止"),
    "preference": ("i prefer", "i'd rather", "i like", "i love", "i don't like", "i hate", "i can't stand",
                   "i'm allergic", "favourite", "favorite", "我喜欢", "我不喜欢", "我更喜欢", "我讨厌", "偏好", "过敏",
                   "我不吃", "我爱"),
}
"""Cue phrases per kind, in English and Chinese; the first kind that matches a sentence names it."""
RULE_NAMED = ("the rule is", "rule is", "our rule is", "the policy is", "policy is", "规矩是", "规定是", "原则是")
"""A rule called one ("…, rule is any planned maintenance gets announced 48 hours ahead"): stated, even in a
sentence that opens by narrating what the speaker will do."""
USER_RULES = (r"re:\balways\b", r"re:\bnever\b", "以后", "再也不")
"""Rules only when a user says them ("no flights before 8am, ever"): an assistant's "never" explains, it sets
nothing."""
HEDGES = ("not sure", "no idea", "i guess", "i think", "maybe", "might be", "probably", "i don't know",
          "不太确定", "不确定", "不知道", "应该是", "也可能", "可能是", "大概是", "好像是", "估计是")
"""A guess, not a fact: what someone says without knowing ("应该是拿来存 session 的吧", "maybe it was for cost")."""
REQUEST = re.compile(r"^(?:please|pls|can you|could you|would you|你先|你帮我|帮我|请你|请帮|麻烦你?)", re.IGNORECASE)
"""A user asking the assistant to do something ("你先按这个写", "please draft it as…"): the task at hand, not how
things are."""
OWN_ACTION = re.compile(r"^\W*(?:(?:and|so|also)\s+)?(?:i|we)(?:'ve| have)?(?:\s+(?:also|just|already))*\s+"
                        r"(?:added|wrote|set up|created|configured|enabled|installed|put|changed|updated)\b"
                        r"|^\W*我们?(?:也|还|已经|顺便)*(?:加了|添加了|写了|配置了|配了|设置了|改了|更新了|加上了)",
                        re.IGNORECASE)
"""The assistant reporting what it just did ("I also added a lint rule so…", "我顺便加了一条检查"): part of the change
it reports, not a rule (whose cue words, "rule", "every time", such a report often says)."""
VERIFIED = re.compile(r"\b(?:tests?|suite|ci|build|pipeline|checks?)\b[^.;]{0,60}?\b(?:pass(?:es|ed)?|green|fails?|"
                      r"failed|red)\b|\b\d+ (?:passed|failed)\b|测试[^。；]{0,20}?(?:通过|挂了|失败|全绿|变绿)",
                      re.IGNORECASE)
"""A sentence saying how tests ran ("the regression test fails on the old code and passes with the fix", "117
passed"): it verifies a fix, it is not the fix."""
WOULD = ("i'd", "i would", "we'd", "we could", "i suggest", "我建议", "我会建议", "可以考虑")
"""The assistant saying what it would do ("I'd add one helper so nobody has to remember it"): a proposal, which the
user's acceptance makes a decision; proposed, it is no rule yet."""
NOT_KNOWLEDGE = ("nothing to fix", "no fix needed", "just wanted to say", "just saying", "no rush", "没什么要修",
                 "只是想说")
CARD_TYPE = {"cause": "gotcha", "fix": "pattern", "decision": "decision", "rule": "pattern", "plan": "concept",
             "preference": "concept", "fact": "concept", "confirmed": "decision"}
LABELS = {"cause": ("Cause", "原因"), "fix": ("Fix", "修复"), "decision": ("Decision", "决定"),
          "rule": ("Rule", "规则"), "plan": ("Plan", "计划"), "preference": ("Preference", "偏好"),
          "fact": ("Fact", "事实"), "confirmed": ("Confirmed", "已确认")}
IMPORTANCE = {"cause": 0.66, "fix": 0.64, "decision": 0.64, "rule": 0.64, "plan": 0.5, "preference": 0.5,
              "fact": 0.46, "confirmed": 0.46}
NUMBER = re.compile(r"\d")
POINTS_BACK = re.compile(r"这个|这样|这些|那个|\b(?:this|that|these|it)\b", re.IGNORECASE)
"""A sentence that leans on the one before it."""
LIST_NUMBER = re.compile(r"\s+(\d{1,2})[.)]$")
"""A list item's number ending the sentence before it, when a list is written on one line."""
LIST_NUMBERS = re.compile(r"(?<!\S)(\d{1,2})[.)](?=\s|$)")
"""A list item's number, wherever it stands."""
NAME = re.compile(r"(?<![.!?]\s)\b[A-Z][a-z]+")
SPECIFIC = re.compile(r"[\w./:-]*\d[\w./:-]*|\b[A-Z][\w-]*[A-Z0-9_-][\w-]*|\b\w+_\w+|\b[A-Z][a-z]+")
ZH_APPROVALS = ("好", "行", "可以", "同意", "就这么办", "就这样", "没问题", "按你说的", "听你的", "有道理", "那就",
                "就用", "就选", "就按", "就定", "就带", "就订", "好主意")
EN_APPROVALS = ("let's do it", "let's do that", "do it", "sounds good", "yeah", "yep", "sure", "makes sense",
                "fair enough", "agreed", "deal", "let's go with", "go with", "good call", "good idea")
TOPIC_CHANGE = ("also", "btw", "by the way", "another thing", "one more thing", "separately", "second", "unrelated",
                "另外", "还有", "对了", "顺便", "第二件事", "再问")
"""What turns a message to a new subject after a short "ok"."""
CHOSEN = re.compile(r"^[\w.:/-]+(?:\s+[\w.:/-]+)?\s+it is\b", re.IGNORECASE)
"""A choice said as "120 it is", "Postgres it is": the named thing is what was accepted."""
PROPOSAL_CUES = ("i'd", "i would", "i suggest", "i recommend", "we could", "you could", "let's", "how about",
                 "proposal", "propose", "the plan", "recommend", "should be", "would be", "makes sense", "better to",
                 "建议", "我们可以", "你可以", "方案", "不如", "可以考虑", "合适", "最好", "应该")
"""An assistant sentence that puts something forward for the user to accept."""
ADVISED_AGAINST = ("不建议", "不推荐", "i wouldn't", "i would not", "wouldn't recommend", "would not recommend",
                   "don't recommend", "do not recommend", "not recommended")
"""An option turned down: its cue word ("建议", "recommend") does not make it what was put forward ("省事，但会清空
用户数据，不建议。正确做法是…")."""
PROBLEM_WORDS = PROBLEM_CUES + ("fail", "fails", "failing", "failed", "error", "errors", "flaky", "wrong", "失败",
                               "报错", "出错", "不对")
"""A user message that reports something going wrong."""
CONCLUSIONS = ("that's it", "found it", "there it is", "that's the problem", "mystery solved", "confirmed",
               "i found it", "found the cause", "原来如此", "找到了", "查到了", "就是它", "破案了", "问题找到了",
               "确认了", "对上了", "情况清楚了")
"""What opens a finding: in a short sentence of its own it types the next one; opening a sentence, that one."""
SELF_TALK = ("i'll remember", "i will remember", "i'll keep it in mind", "i'll keep that in mind",
             "i'll keep this in mind", "i'll keep track", "keep track of", "i'll note", "i've noted", "noted",
             "happy to", "tell me what", "let me know", "我会记住", "我记下了", "记下了", "我会留意", "告诉我")
"""An assistant speaking of its own memory or offering help ("I'll keep it in mind", "tell me what to track"):
what it promises is not knowledge, and its cue words ("remember", "whenever") would type it as a rule."""
GO_AHEAD = re.compile(r"(?:please\s+)?[a-z]+\s+(?:it|that|them)(?:\s+(?:then|too|now))?")
"""A first clause of two or three words telling the assistant to go ahead ("add it", "ship that", "merge it
then")."""
CLAUSE_END = re.compile(r"[,.;:!?，。；：！？]")

