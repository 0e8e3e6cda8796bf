"""A seeded, realistic synthetic store of any size, for benchmarks that need many cards.

``build_store(home, cards)`` initialises ``home`` and fills it through
:func:`alaya_engine.maintenance.bulk.bulk_load`:

- **cards** in the four types, Chinese, English and mixed devops/coding text
  built from template phrases, with realistic lengths (title 20–70
  characters, content 200–1200), tags, importance, HOT/WARM tiers (no COLD:
  only introspect demotes cards, and this store has not been introspected);
- **sessions**, one per ~5 cards (3–7 each, consecutive in time over two
  years), as ``Session`` nodes with an ``EXTRACTED_FROM`` edge from each of
  their cards. Only the graph nodes are written: no L3 files, so ``alaya
  trace`` on a synthetic store finds no session text;
- **~3 card-to-card edges per card**: ``TEMPORAL_NEXT`` between consecutive
  cards of a session, and ``CAUSED_BY`` / ``DEPENDS_ON`` / ``SIMILAR_TO`` (both
  directions) / a few ``CAUSES`` and ``CONTRADICTS`` / ~10% custom names
  (``LED_TO``, ``FIXED_BY``, …) to earlier cards sharing a topic, mostly recent ones;
- **access counters** in ``card_meta`` following a power law (Zipf, a=1.8:
  most cards never recalled, a few recalled thousands of times), with
  ``last_accessed`` after the card's creation, and temperatures/tiers that follow them;
- **windows of raw turns**, ``WINDOWS_PER_SESSION`` per session (a 21-turn
  session cut into 3-turn windows every 2 turns), each written around one card
  of its session (the session's L3 file holds each card's title as a user turn
  and its content as the assistant's; a window's vector is its card's plus
  fresh noise), in the L1 window table with its full-text index, as ingest
  leaves them.

**Entities.** The store's reader (:func:`alaya_engine.entities.read.read_card`) takes 1.5-4 ms a card: read card
by card, a 100k load spent 106 of its 121 s there and a million-card load was stopped after 19 minutes of it. A
card here is its title and a few of the ~25k sentences its topics' pools hold, so each of those pieces is read once
by the same reader (:func:`composed_reading`, handed to ``bulk_load`` as its ``reader``) and a card's reading is the
union of its pieces'. A piece of a card that has Chinese in it is read as part of Chinese text, where the reader
takes every Latin word for a name. Checked against ``read_card`` on 3,000 cards: the same names on every card (a
test keeps it so), the same kinds on 98.5% (the rest differ in the kind of a sentence's first word, which the
whole text decides: "Lesson" a person in one reading, a thing in the other). The graph's entities at 100k then take
54 s instead of 106 (mostly the ~100k distinct titles, read whole). Not tried: reading whole cards in a pool of two
processes, at best half the time (~13 minutes at 1M by the per-card figure), on cores other work shares.

**Vectors.** Embedding 100k card texts with the real model takes ~7 minutes,
so each card is instead given 2–3 *topic phrases* (a few hundred distinct
phrases such as ``nginx upstream timeout`` or ``网关重启失败``, which its text
is written around). The phrases are embedded **once**, with the store's real
embedder (``engine.embedder()``), and a card's vector is the normalised
weighted sum of its topic vectors (weights 1.0, 0.7, 0.5) plus small seeded
Gaussian noise. The benchmark's queries (:func:`free_text_queries`,
:func:`structured_queries`) are real texts built from the same phrases and
embedded by the real model at query time, so query-to-card similarities sit
where real ones do (measured: a card's cosine to its main topic phrase is
0.67–0.78, to an unrelated phrase 0.13–0.49, mean 0.28), and the search, the graph and the ranking see
realistic candidates, not random vectors. What this does not reproduce is
the exact geometry of embedded long texts.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import random
import time
from datetime import datetime, timezone
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.entities.read import read_text
from alaya_engine.foundations.domain import Card, Link
from alaya_engine.foundations.entities import Mention, Reading, stronger_kind
from alaya_engine.foundations.folder_sizes import disk_usage
from alaya_engine.maintenance.bulk import bulk_load

START = int(datetime(2024, 6, 1, tzinfo=timezone.utc).timestamp() * 1000)
SPAN = 730 * 86_400_000
"""Sessions spread over two years from START."""

SUBJECTS_EN = [
    "docker container", "nginx upstream", "postgres connection pool", "redis cache", "kubernetes pod",
    "systemd unit", "cron job", "certbot renewal", "asyncio event loop", "CI pipeline", "git rebase",
    "terraform state", "python virtualenv", "node build", "webpack bundle", "grafana dashboard",
    "prometheus alert", "kafka consumer", "rabbitmq queue", "elasticsearch index", "s3 bucket", "ssh tunnel",
    "DNS resolver", "TLS certificate", "load balancer", "log rotation", "API gateway", "webhook handler",
    "celery worker", "gunicorn worker",
]
ISSUES_EN = [
    "timeout", "OOM kill", "permission denied", "connection refused", "slow query", "stale cache",
    "race condition", "config drift", "version mismatch", "retry storm", "disk full", "file descriptor leak",
]
SUBJECTS_ZH = [
    "容器", "网关", "数据库连接池", "缓存", "定时任务", "日志", "证书", "消息队列", "负载均衡", "反向代理",
    "部署脚本", "单元测试", "索引", "内存", "磁盘", "线程池", "配置文件", "权限", "通知", "依赖包",
]
ISSUES_ZH = ["超时", "内存溢出", "连接被拒绝", "重启失败", "数据丢失",
             "时区错误", "死锁", "版本冲突", "击穿", "权限不足"]

HOSTS = ["prod-api-1", "prod-api-2", "staging", "build-runner", "db-primary", "edge-proxy", "worker-3", "laptop"]
KEYS = ["max_connections", "plugins.allow", "worker_processes", "memory.limit", "retry.backoff", "pool_size",
        "keepalive_timeout", "TZ", "ulimit -n", "maxmemory-policy", "restart_policy", "read_timeout"]
FILES = ["gateway.json", "nginx.conf", "docker-compose.yml", "postgresql.conf", "values.yaml", ".env",
         "config.toml", "crontab", "alaya.service", "pyproject.toml"]
VALUES = ["0", "30s", "128m", "[]", "unlimited", "UTC", "allkeys-lru", "always", "4", "1024"]
COMMANDS = ["docker stats", "journalctl -u gateway -n 200", "kubectl describe pod api", "pg_stat_activity",
            "redis-cli info memory", "df -h", "lsof -p 4121 | wc -l", "git bisect run pytest",
            "systemctl status worker", "curl -v localhost:8080/health", "py-spy dump --pid 4121"]
ACTIONS_EN = ["deploying the new release", "running the nightly backup", "migrating the schema",
              "scaling the workers", "rotating the keys", "upgrading the base image", "replaying the queue"]
ACTIONS_ZH = ["发布新版本", "做夜间备份", "迁移表结构", "扩容工作进程", "轮换密钥", "升级基础镜像", "重放消息队列"]
OBSERVE_EN = ["the process hit its memory limit", "requests piling up behind one slow call",
              "thousands of open sockets", "a 502 from the upstream", "timestamps off by eight hours",
              "the job running twice", "an empty allow list"]
OBSERVE_ZH = ["进程打满了内存限制", "请求堵在一个慢调用后面", "几千个打开的连接", "上游返回 502",
              "时间差了八个小时", "任务执行了两次", "允许列表是空的"]
LESSONS_EN = ["check the limits", "read the changelog", "pin the version", "add a health check",
              "test the rollback", "log the config at startup", "set an explicit timeout"]
LESSONS_ZH = ["检查资源限制", "看一遍变更日志", "固定版本号", "加上健康检查",
              "演练回滚", "启动时打印配置", "显式设置超时"]

CARD_TYPES = ("concept", "pattern", "gotcha", "decision")
TYPE_WEIGHTS = (0.3, 0.25, 0.3, 0.15)
RELATIONS = ("CAUSED_BY", "DEPENDS_ON", "SIMILAR_TO", "CAUSES", "CONTRADICTS", "CUSTOM")
RELATION_WEIGHTS = (0.27, 0.21, 0.17, 0.05, 0.03, 0.17)
CUSTOM_RELATIONS = {
    "LED_TO": "the earlier problem led to this one",
    "FIXED_BY": "the problem was fixed by this change",
    "MITIGATED_BY": "the impact was reduced by this workaround",
    "REPLACED_BY": "the old approach was replaced by this one",
    "TRIGGERED": "the earlier event triggered this failure",
    "BLOCKED_BY": "the work was blocked by this issue",
}
POOL = 40
TOPIC_WEIGHTS = (1.0, 0.7, 0.5)
NOISE = 0.6
"""Noise norm relative to the weighted topic sum: a card's cosine to its main topic phrase lands around 0.7."""


def topic_phrases(seed: int = 7) -> list[str]:
    """The few hundred distinct topics (~62% English, ~38% Chinese) cards and queries are built from."""
    rng = random.Random(seed)
    english = [f"{subject} {issue}" for subject in SUBJECTS_EN for issue in ISSUES_EN]
    chinese = [f"{subject}{issue}" for subject in SUBJECTS_ZH for issue in ISSUES_ZH]
    return rng.sample(english, 200) + rng.sample(chinese, 120)


@functools.lru_cache(maxsize=4096)
def is_chinese(phrase: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in phrase)


def _tag(phrase: str) -> str:
    if is_chinese(phrase):
        return next(subject for subject in SUBJECTS_ZH if phrase.startswith(subject))
    return phrase.split()[0].lower()


def free_text_queries(count: int, seed: int = 7) -> list[str]:
    """Questions an agent would ask, in both languages, around one or two topics."""
    topics = topic_phrases(seed)
    rng = random.Random(seed + 1)
    queries = []
    for _ in range(count):
        first, second = rng.sample(topics, 2)
        if is_chinese(first):
            queries.append(rng.choice([f"{first}怎么解决？", f"为什么会{first}，和{second}有关吗？",
                                       f"上次{first}是什么原因"]))
        else:
            queries.append(rng.choice([f"how did we fix the {first}?", f"{first} after {second}, why?",
                                       f"what causes {first}", f"{first}, {second}"]))
    return queries


def structured_queries(count: int, seed: int = 7) -> list[dict]:
    """Depth-2 navigation along causes: two concepts, ``CAUSED_BY`` (and sometimes ``LED_TO``)."""
    topics = topic_phrases(seed)
    rng = random.Random(seed + 2)
    return [{"concepts": rng.sample(topics, 2), "relations": ["CAUSED_BY"] if index % 3 else ["CAUSED_BY", "LED_TO"],
             "depth": 2} for index in range(count)]


class _Random(random.Random):
    """``random.Random`` with a faster ``choice`` (one float per draw; same seed, same sequence)."""

    def choice(self, seq):
        return seq[int(self.random() * len(seq))]


class _Writer:
    """Card titles and bodies around a card's topics, in the card's language.

    Bodies are drawn from a pool of :data:`POOL` filled-in sentences per (topic, language), built on first
    use: filling templates per sentence made generation the slowest step of a 100k build.
    """

    def __init__(self, rng: random.Random):
        self.rng = rng
        self._pools: dict[tuple[str, bool], list[str]] = {}

    def title(self, kind: str, topics: list[str], chinese: bool) -> str:
        first, second = topics[0], topics[1]
        pick = self.rng.choice
        if chinese:
            options = {"concept": [f"{first}的原理", f"理解{first}和{second}"],
                       "pattern": [f"处理{first}的通用做法", f"{first}：先查{pick(KEYS)}"],
                       "gotcha": [f"坑：{first}导致{second}", f"{pick(ACTIONS_ZH)}时{first}"],
                       "decision": [f"决定：用{pick(KEYS)}解决{first}", f"放弃旧方案，改为限制{first}"]}
        else:
            options = {"concept": [f"How {first} works", f"{first} vs {second}"],
                       "pattern": [f"Pattern: retry around {first}", f"Checking {pick(KEYS)} on {first}"],
                       "gotcha": [f"Gotcha: {first} while {pick(ACTIONS_EN)}", f"{first} caused by {second}"],
                       "decision": [f"Decision: set {pick(KEYS)} to stop {first}", f"Move off {second} after {first}"]}
        candidates = options[kind]
        self.rng.shuffle(candidates)
        title = min(candidates, key=lambda text: max(0, len(text) - 70))
        if len(title) > 70:
            title = title[:70].rsplit(" ", 1)[0] if not chinese else title[:70]
        if len(title) < 20:
            title += f" ({pick(HOSTS)})" if not chinese else f"（{pick(HOSTS)} 上的记录）"
        return title

    def content(self, topics: list[str], chinese: bool) -> tuple[str, list[str]]:
        """The body, and the pieces it is made of (its sentences, the last one cut where the body is)."""
        target = int(min(1200, max(200, self.rng.lognormvariate(6.3, 0.5))))
        separator = "" if chinese else " "
        sentences, length = [], 0
        while length < target:
            sentence = self._sentence(topics, chinese)
            sentences.append(sentence)
            length += len(sentence) + len(separator)
        text = separator.join(sentences)
        if len(text) > 1200:
            text = text[:1200].rsplit("。" if chinese else " ", 1)[0] + ("。" if chinese else ".")
            sentences = _pieces_of(text, sentences, separator)
        if len(text) >= 200:
            return text, sentences
        sentence = self._sentence(topics, chinese)
        return text + separator + sentence, sentences + [sentence]

    def _sentence(self, topics: list[str], chinese: bool) -> str:
        topic = self.rng.choice(topics)
        pool = self._pools.get((topic, chinese))
        if pool is None:
            templates = SENTENCES_ZH if chinese else SENTENCES_EN
            pool = self._pools[(topic, chinese)] = [
                self.rng.choice(templates).format_map(_Blanks(self.rng, [topic])) for _ in range(POOL)]
        return self.rng.choice(pool)


def _pieces_of(text: str, sentences: list[str], separator: str) -> list[str]:
    """The sentences a cut body still holds whole, then what is left of the next one."""
    pieces, used = [], 0
    for sentence in sentences:
        if used + len(sentence) > len(text):
            break
        pieces.append(sentence)
        used += len(sentence) + len(separator)
    return pieces + ([text[used:]] if used < len(text) else [])


class _Blanks(dict):
    """``str.format_map`` filler: each named blank drawn from its word list when the template asks for it."""

    def __init__(self, rng: random.Random, topics: list[str]):
        super().__init__()
        self.rng, self.topics = rng, topics

    def __missing__(self, name: str) -> str:
        if name == "topic":
            value = self.rng.choice(self.topics)
        elif name == "days":
            value = str(self.rng.randint(2, 30))
        else:
            value = self.rng.choice(WORDS[name])
        self[name] = value
        return value


WORDS = {"host": HOSTS, "key": KEYS, "file": FILES, "value": VALUES, "command": COMMANDS,
         "action_en": ACTIONS_EN, "action_zh": ACTIONS_ZH, "observe_en": OBSERVE_EN, "observe_zh": OBSERVE_ZH,
         "lesson_en": LESSONS_EN, "lesson_zh": LESSONS_ZH}
SENTENCES_ZH = [
    "在 {host} 上遇到{topic}，当时正在{action_zh}。",
    "根本原因是{topic}：{observe_zh}。",
    "检查了 {file} 里的 `{key}`，发现值是 {value}。",
    "执行 `{command}` 之后看到{observe_zh}。",
    "解决办法：把 `{key}` 设为 {value}，然后重启服务，{topic}没有再出现。",
    "经验：{action_zh}之前一定要先{lesson_zh}。",
    "这和之前的{topic}类似，也是 {file} 的问题。",
]
SENTENCES_EN = [
    "We hit {topic} on {host} while {action_en}.",
    "The root cause was {topic}: {observe_en}.",
    "Checked `{key}` in {file}; it was set to {value}.",
    "Running `{command}` showed {observe_en}.",
    "Fix: set `{key}={value}` and restart; the {topic} did not come back.",
    "Lesson: always {lesson_en} before {action_en}.",
    "This looks like the {topic} we saw on {host} {days} days earlier.",
]


def generate(count: int, seed: int = 7) -> dict:
    """Cards, links, sessions, per-card topic indices and access counters; no model involved."""
    import numpy as np

    rng = _Random(seed)
    writer = _Writer(rng)
    topics = topic_phrases(seed)
    popularity = list(itertools.accumulate(1.0 / (rank + 1) ** 0.6 for rank in range(len(topics))))
    topic_range = range(len(topics))
    cards: list[Card] = []
    links: list[Link] = []
    sessions: list[dict] = []
    texts: dict[str, list[str]] = {}
    card_topics = np.zeros((count, 3), dtype=np.int64)
    topic_weights = np.zeros((count, 3), dtype=np.float32)
    by_topic: dict[int, list[int]] = {}
    session_count = max(1, count // 5)
    index = 0
    while index < count:
        number = len(sessions)
        sid = f"synth-{number:06d}"
        started = START + int(SPAN * min(number, session_count - 1) / session_count) + rng.randint(0, 3_600_000)
        members = list(range(index, min(count, index + rng.randint(3, 7))))
        content_hash = hashlib.sha256(sid.encode()).hexdigest()
        month = datetime.fromtimestamp(started / 1000, tz=timezone.utc).strftime("%Y-%m")
        session_topic = rng.choices(topic_range, cum_weights=popularity)[0]
        previous = None
        for offset, position in enumerate(members):
            chosen = [session_topic] if rng.random() < 0.6 else []
            while len(chosen) < rng.choice((2, 2, 3)):
                candidate = rng.choices(topic_range, cum_weights=popularity)[0]
                if candidate not in chosen:
                    chosen.append(candidate)
            names = [topics[t] for t in chosen]
            chinese = is_chinese(names[0]) if rng.random() < 0.85 else not is_chinese(names[0])
            kind = rng.choices(CARD_TYPES, weights=TYPE_WEIGHTS)[0]
            title = writer.title(kind, names, chinese)
            created = started + (offset + 1) * 90_000
            content, pieces = writer.content(names, chinese)
            card = Card(id=f"card-{hashlib.sha256(f'{seed}:{position}:{title}'.encode()).hexdigest()[:16]}",
                        title=title, content=content, type=kind,
                        tags=sorted({_tag(name) for name in names}),
                        importance=round(rng.uniform(0.3, 0.9), 2), source_sessions=[sid],
                        created_at=created, updated_at=created, source="distill")
            cards.append(card)
            texts[card.id] = [title, *pieces]
            card_topics[position, :len(chosen)] = chosen
            topic_weights[position, :len(chosen)] = TOPIC_WEIGHTS[:len(chosen)]
            links.append(Link(card.id, sid, "EXTRACTED_FROM", 1.0, "", created))
            if previous is not None:
                links.append(Link(cards[previous].id, card.id, "TEMPORAL_NEXT", 1.0, "", created))
            for _ in range(1 + sum(rng.random() < 0.5 for _ in range(2))):
                links.extend(_topic_edge(rng, cards, by_topic, chosen, position, created))
            for t in chosen:
                by_topic.setdefault(t, []).append(position)
            previous = position
        channel = rng.choice(["cli", "telegram", "slack", "discord"])
        sessions.append({"id": sid, "timestamp": started, "channel": channel, "agent": "main",
                         "summary": cards[members[0]].title, "turns": rng.randint(6, 40),
                         "tokens": rng.randint(800, 12_000), "content_hash": content_hash,
                         "path": f"raw/sessions/{month}/session-{sid}.json", "distilled_hash": content_hash,
                         "distilled_at": started + 600_000})
        index = members[-1] + 1
    access = _access_counters(rng, cards, seed)
    for card in cards:
        count_, _last = access.get(card.id, (0, 0))
        card.temperature = round(min(1.0, 0.3 + 0.15 * float(np.log1p(count_))), 3)
        card.tier = "HOT" if card.temperature >= 0.5 else "WARM"
    return {"cards": cards, "links": links, "sessions": sessions, "topics": topics, "card_topics": card_topics,
            "topic_weights": topic_weights, "access": access, "pieces": texts}


def composed_reading(pieces: list[str]) -> Reading:
    """A card's entities as the union of its pieces' (title, sentences), each piece read once per process by the
    store's own reader (see the module docstring); a name read as two kinds keeps the stronger, as one text would."""
    found: dict[str, str] = {}
    aliases: dict[tuple[str, str], None] = {}
    chinese = any(is_chinese(piece) for piece in pieces)
    for piece in pieces:
        reading = _piece_reading(piece, chinese)
        for mention in reading.mentions:
            found[mention.name] = stronger_kind(found[mention.name], mention.kind) if mention.name in found \
                else mention.kind
        aliases.update(dict.fromkeys(reading.aliases))
    return Reading(tuple(_mention(name, kind) for name, kind in found.items()), tuple(aliases))


@functools.lru_cache(maxsize=None)
def _mention(name: str, kind: str) -> Mention:
    """One object per (name, kind): a million cards' readings are made during the load, and the edges keep names."""
    return Mention(name, kind)


@functools.lru_cache(maxsize=None)
def _piece_reading(piece: str, chinese: bool) -> Reading:
    """``chinese``: the card has Chinese text, where the reader takes every Latin word for a name; a piece without
    any is read with a Chinese full stop's worth of context, ``中`` (read as no name), so the rule applies."""
    return read_text(piece if not chinese or is_chinese(piece) else f"{piece}\n中")


def _topic_edge(rng: random.Random, cards: list[Card], by_topic: dict[int, list[int]], chosen: list[int],
                position: int, created: int) -> list[Link]:
    """One edge from the new card to an earlier card sharing a topic (mostly among the last 200 of it)."""
    pool = by_topic.get(rng.choice(chosen))
    if not pool:
        return []
    window = pool[-200:] if rng.random() < 0.8 else pool
    other = cards[rng.choice(window)].id
    me = cards[position].id
    relation = rng.choices(RELATIONS, weights=RELATION_WEIGHTS)[0]
    weight = round(rng.uniform(0.5, 1.0), 2)
    if relation in ("SIMILAR_TO", "CONTRADICTS"):
        return [Link(me, other, relation, weight, "", created), Link(other, me, relation, weight, "", created)]
    if relation == "CAUSES":
        return [Link(other, me, relation, weight, "", created)]
    if relation == "CUSTOM":
        name = rng.choice(list(CUSTOM_RELATIONS))
        return [Link(other, me, name, weight, CUSTOM_RELATIONS[name], created)]
    return [Link(me, other, relation, weight, "", created)]


def _access_counters(rng: random.Random, cards: list[Card], seed: int) -> dict[str, tuple[int, int]]:
    import numpy as np

    counts = np.minimum(np.random.default_rng(seed).zipf(1.8, size=len(cards)) - 1, 5000)
    end = START + SPAN + 30 * 86_400_000
    access = {}
    for card, count in zip(cards, counts.tolist()):
        if count:
            access[card.id] = (count, card.created_at + int(rng.random() * (end - card.created_at)))
    return access


def card_vectors(topic_vectors, card_topics, topic_weights, seed: int = 7):
    """Normalised weighted sum of each card's topic vectors plus seeded noise (see the module docstring)."""
    import numpy as np

    summed = np.zeros((len(card_topics), topic_vectors.shape[1]), dtype=np.float32)
    for slot in range(card_topics.shape[1]):
        summed += topic_weights[:, slot, None] * topic_vectors[card_topics[:, slot]]
    noise = np.random.default_rng(seed + 3).standard_normal(summed.shape, dtype=np.float32)
    noise *= (NOISE * np.linalg.norm(summed, axis=1, keepdims=True) / np.sqrt(summed.shape[1])).astype(np.float32)
    summed += noise
    summed /= np.linalg.norm(summed, axis=1, keepdims=True)
    return summed


def build_store(home: Path, cards: int, seed: int = 7) -> dict:
    """Initialise ``home`` and fill it with ``cards`` synthetic cards; returns build statistics."""
    seconds: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[name] = round(now - clock, 3)
        clock = now

    Engine.init(home)
    engine = Engine.open(home)
    graph = engine.config["graph"]
    graph["buffer_pool_mb"] = max(graph["buffer_pool_mb"], cards * BUFFER_POOL_MB_PER_1000_CARDS // 1000)
    lap("init")
    data = generate(cards, seed)
    lap("generate")
    topic_vectors = engine.embedder().embed(data["topics"])
    lap("embed topics")
    vectors = card_vectors(topic_vectors, data["card_topics"], data["topic_weights"], seed)
    lap("compose vectors")
    steps: dict[str, float] = {}
    bulk_load(engine, data["cards"], data["links"], vectors, sessions=data["sessions"], access=data["access"],
              reader=lambda card: composed_reading(data["pieces"][card.id]), timings=steps)
    lap("bulk load")
    windows = write_windows(engine, data["cards"], vectors, seed)
    lap("turn windows")
    by_relation: dict[str, int] = {}
    for link in data["links"]:
        by_relation[link.relation] = by_relation.get(link.relation, 0) + 1
    return {
        "cards": len(data["cards"]),
        "sessions": len(data["sessions"]),
        "turn_windows": windows,
        "links": len(data["links"]),
        "links_by_relation": by_relation,
        "card_edges": len(data["links"]) - by_relation.get("EXTRACTED_FROM", 0),
        "chinese_cards": sum(is_chinese(card.title) for card in data["cards"]),
        "access": _access_summary([count for count, _last in data["access"].values()], len(data["cards"])),
        "topics": len(data["topics"]),
        "seconds": {**seconds, "total": round(sum(seconds.values()), 3)},
        "bulk_load_seconds": steps,
        "bytes": {"graph": disk_usage(engine.layout.graph_dir), "lancedb": disk_usage(engine.layout.vectors_dir)},
    }


BUFFER_POOL_MB_PER_1000_CARDS = 4
"""The graph's buffer pool while a store is built: bulk load copies every card, edge and ``MENTIONS`` in one
transaction, and a million cards' ~15M mentions ran out of the default 1,024 MB. Set for the building process only
(not in config.json): whatever reads the store afterwards, the benchmarks' owner server too, has the default."""
WINDOWS_PER_SESSION = 10
WINDOW_BATCH = 20_000


def write_windows(engine: Engine, cards: list[Card], vectors, seed: int) -> int:
    """Each session as an L3 file of ``2 · WINDOWS_PER_SESSION + 1`` turns (a card's title as the user's turn, its
    content as the assistant's), and its ``WINDOWS_PER_SESSION`` windows into the L1 window table, then its
    full-text index. Recall reads a span it merged from overlapping windows out of the L3 file, as in a real store."""
    import json

    import numpy as np

    from alaya_engine.foundations.domain import Session, Turn
    from alaya_engine.raw.windows import window_at

    rng = np.random.default_rng(seed + 5)
    by_session: dict[str, list[int]] = {}
    for position, card in enumerate(cards):
        by_session.setdefault(card.source_sessions[0], []).append(position)
    store, pending, rows, written = engine.turn_windows(), [], [], 0
    for session_id, members in by_session.items():
        chosen = [members[number % len(members)] for number in range(WINDOWS_PER_SESSION)]
        turns = [turn for row in chosen for turn in (Turn("user", cards[row].title, cards[row].created_at),
                                                    Turn("assistant", cards[row].content[:400], cards[row].created_at))]
        turns.append(Turn("user", "thanks", turns[-1].timestamp))
        session = Session(session_id, cards[members[0]].created_at, turns)
        path = engine.raw.path_for(session)  # written plainly: atomic writes of 20k files would dominate the build
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(session.to_json(), ensure_ascii=False), encoding="utf-8")
        pending.extend(window_at(session, 2 * number, 2 * number + 2) for number in range(WINDOWS_PER_SESSION))
        rows.extend(chosen)
        if len(pending) >= WINDOW_BATCH:
            written += _write_window_batch(store, pending, vectors[rows], rng)
            pending, rows = [], []
    if pending:
        written += _write_window_batch(store, pending, vectors[rows], rng)
    store.refresh_full_text_index()
    return written


def _write_window_batch(store, windows: list, card_rows, rng) -> int:
    import numpy as np

    noisy = card_rows + rng.standard_normal(card_rows.shape, dtype=np.float32) * (0.5 * NOISE / np.sqrt(
        card_rows.shape[1]))
    noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
    store.replace_sessions([], windows, noisy.astype(np.float32))
    return len(windows)


def _access_summary(counts: list[int], cards: int) -> dict:
    """How skewed the access counters are: cards ever recalled, the most recalled card, the top 1%'s share."""
    ordered = sorted(counts, reverse=True)
    total = sum(ordered) or 1
    return {"cards_accessed": len(ordered), "max": ordered[0] if ordered else 0,
            "top_1_percent_share": round(sum(ordered[:max(1, cards // 100)]) / total, 3)}
