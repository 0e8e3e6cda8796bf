"""Vocabulary: words too common or too vague to tag or compare texts by, and order-keeping de-duplication."""

from __future__ import annotations

import re

WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
STOPWORDS = frozenset("""
a about above after again against all almost also although always am among an and another any anyone anything
are aren't around as at away back be because been before being below between both but by can can't cannot
could couldn't did didn't do does doesn't doing don't done down during each either else enough even ever every
few for from further get gets getting got had hadn't has hasn't have haven't having he her here hers herself
him himself his how however i i'd i'll i'm i've if in instead into is isn't it it's its itself just keep kind
last least less let let's like likely lot lots made make makes many may maybe me might mine more most much must
my myself need needs never new next no nor not nothing now of off often oh ok okay on once one only onto or other
others our ours ourselves out over own per please quite rather really right same see seem seems shall she
should shouldn't since so some something sometimes still such sure than that that's the their theirs them
themselves then there there's these they they'd they're thing things think this those though through thus to
today too under until up upon us use used uses using very via want was wasn't way we we'd we'll we're we've
well were weren't what what's when where whether which while who whom whose why will with within without won't
would wouldn't yeah yes yet you you'd you'll you're you've your yours yourself yourselves
""".split())
FILLER_WORDS = frozenset("""
amazing awesome beautiful best better big bit cool definitely exciting fantastic feel feeling feels felt fun glad
good great happy hey hi hope incredible love loved lovely nice pretty proud really sounds super sweet
thank thanks totally true wonderful wow yep yeah guess mean means time times day days week weeks year years
yesterday tomorrow tonight morning evening weekend month months ago recently lately soon later already
going gonna tell told say said know knew think thought look looks looking take took come came give gave find
found try tried work works worked start started help helped first second able whole real stuff everything
someone everyone people person life world place part sense hard long little lot moment anyways anyway though
""".split())
COMPOUND_PARTS = frozenset("""
to in on up off out of by for and or per via at down over under through back away non anti self half multi semi co
cross mid well long short high low full part one two three single double all built hard soft real follow knock sign
check set roll first last next same end top bottom ever never counter side wide based enabled disabled aware like
free safe only term level scale made driven facing ready related specific friendly proof style sized way entered
generated defined owned managed hosted native grade class minded running ended known old going fold day week month
year hour minute new powered
""".split())
"""Words English joins into a compound with a hyphen ("knock-on", "half-term", "server-side", "race-enabled",
"per-job", "in-place"): a lowercase word made of one of them is vocabulary, not a name like "report-export"."""
COMMON_VERBS = frozenset("""
go goes going gone went get gets got gotten make makes made take takes took taken give gave given see saw seen
say says said tell told find found try tries tried want wanted need needed love loved like liked feel felt think
thought know knew keep kept start started help helped play played check checked hope hoped plan planned learn
learned look looked come came put run ran read write wrote bring brought buy bought leave left meet met call
called talk talked share shared show showed enjoy enjoyed visit visited join joined finish finished seem become
became remind reminds reminded realize realized believe believed wish hear heard happen happened turn turned
stay stayed spend spent decide decided lose lost win won catch caught mean meant let lets doing done did has
""".split())
ZH_STOPWORDS = frozenset("""
这个 那个 一个 一下 一些 一条 一次 没有 我们 你们 他们 自己 就是 可以 因为 所以 如果 但是 然后 现在 已经 还是
时候 不会 需要 直接 这次 之后 之前 看一下 问题 情况 东西 地方 时间 这样 那样 怎么 什么 为什么 这里 那里 其他
其实 还有 而且 或者 以及 以后 今天 昨天 明天 下次 注意 原因 导致 报错 决定 改用 选择 规则 每次 方案 结果
确认 总结 记录 建议 应该 必须 不要 方式 部分 一样 里面 上面 下面 这种 那种 这些 那些 用户 通知
""".split())


def is_content_word(word: str) -> bool:
    lower = word.lower()
    return len(lower) >= 4 and lower not in STOPWORDS and lower not in FILLER_WORDS and "'" not in lower


def unique(items) -> list[str]:
    """Items in first-seen order without case-insensitive repeats (never a set: order must not depend on hashing)."""
    seen: set[str] = set()
    result = []
    for item in items:
        key = item.lower()
        if key and key not in seen:
            seen.add(key)
            result.append(item)
    return result


UNIT_WORDS = ("ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?|days?|weeks?|months?|years?|[kKMGT]i?B|MB|GB|KB|"
              "IU|mg|g|kg|ml|l|rows|connections|requests|workers|threads|cores|items|times|pm|am|x")
"""Units a number is said in, as a regular expression's alternatives: what a value of a fact ends with
(:mod:`..attributes`), and what a title keeps with its number (:mod:`.titles`)."""
