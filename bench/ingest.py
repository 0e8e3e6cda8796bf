"""Ingest throughput: generated sessions through ``Engine.ingest`` in one call."""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from alaya_engine.engine import Engine

from .plan import Plan
from .report import Row

NAME = "ingest"

TOPICS_EN = ["docker memory limit", "nginx upstream timeout", "postgres pool exhaustion", "redis stampede",
             "systemd restart backoff", "certbot renewal hook", "asyncio blocking call", "flaky CI ordering"]
TOPICS_ZH = ["容器内存溢出", "网关重启通知丢失", "定时任务时区", "日志轮转磁盘满", "连接池耗尽", "缓存击穿加锁"]


def generate_sessions(folder: Path, count: int, seed: int = 7) -> list[str]:
    """Realistic-length sessions (8–20 turns, mixed Chinese and English), one JSON file each."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    start = 1772409600000
    for index in range(count):
        topic = rng.choice(TOPICS_EN + TOPICS_ZH)
        timestamp = start + index * 3_600_000
        turns = []
        for turn in range(rng.randint(8, 20)):
            role = ("user", "assistant", "tool")[turn % 3]
            words = " ".join(rng.choice(TOPICS_EN + TOPICS_ZH) for _ in range(rng.randint(10, 60)))
            turns.append({"role": role, "content": f"{topic}: {words}", "timestamp": timestamp + turn * 5000})
        document = {"id": f"bench-{index:06d}", "timestamp": timestamp, "channel": "cli", "agent": "main",
                    "turns": turns, "metadata": {"model": "bench"}}
        path = folder / f"bench-{index:06d}.json"
        path.write_text(json.dumps(document, ensure_ascii=False))
        paths.append(str(path))
    return paths


def run(plan: Plan) -> list[Row]:
    count = plan.pick(20, 1000)
    with plan.stores.empty() as home, tempfile.TemporaryDirectory(prefix="alaya-bench-sessions-") as sessions:
        paths = generate_sessions(Path(sessions), count)
        engine = Engine.open(home)
        started = time.perf_counter()
        report = engine.ingest(paths)
        elapsed = time.perf_counter() - started
        assert report.count("ingested") == count, report.to_json()
        started = time.perf_counter()
        engine.ingest(paths)
        again = time.perf_counter() - started
    return [
        Row(NAME, f"{count} new sessions", count / elapsed, "sessions/s", f"{elapsed:.2f} s total"),
        Row(NAME, f"{count} unchanged (re-ingest)", count / again, "sessions/s", f"{again:.2f} s total"),
    ]
