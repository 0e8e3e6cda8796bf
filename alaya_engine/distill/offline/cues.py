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
PATTERN_HINTS = ("before", "after every", "after each", "first", "then", "must", "make sure", "never",
                 "必须", "务必", "先", "之前", "确保")
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
FIX_CUES = ("fix", "the fix", "proposed fix", "solution", "mitigation", "workaround", "修复", "解决", "修法",
            "修好", "恢复方法")
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
SMALL_TALK = ("sounds like", "thanks", "thank you", "congrats", "congratulations", "good to see", "how are you",
              "how have you been", "talk soon", "talk to you", "take care", "bye", "see you", "good luck",
              "have a good", "nice to", "long time no see", "hey", "hi", "hello")
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
