"""What kind of thing a name is, from its shape and the words around it, offline.

Shape decides most: a path or a file name is a ``file``, ``owner/name`` after a git host or the word "repo" a
``repository``, ``ops-01`` / ``db2`` / ``ops-01.internal`` a ``host``, ``reports-worker`` / ``billing_api`` a
``service`` (a name ending in a service word, or a well-known server), a code span of two words a ``command``. The
words around decide the rest: "pip install X" / "the X library" a ``library``, "project X" a ``project``, "in X"
a ``place``; a capitalised name a ``person`` when a person's verb, title or possessive goes with it. Anything
else is ``other``. Kinds are a hint to read, not a fact: when cards disagree the most specific wins.
"""

from __future__ import annotations

import re

FILE = re.compile(r"(?:^|/)[\w.-]+\.(?:py|pyi|js|mjs|ts|tsx|jsx|json|jsonl|ya?ml|toml|conf|cfg|ini|md|txt|log|sh|"
                  r"bash|zsh|sql|go|rs|java|kt|rb|php|html|css|env|lock|service|timer|socket|csv|tsv|xml|"
                  r"proto|c|h|cc|cpp|hpp|swift|tf|tfvars|dockerfile|gradle|pem|crt|key|gz|zip|tar|db|sqlite)$",
                  re.IGNORECASE)
PATH = re.compile(r"(?<![\w/.:-])((?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w.@+-]+/?)(?![\w/])")
"""An absolute, home or relative path: ``/etc/nginx/nginx.conf``, ``~/.openclaw/openclaw.json``."""
REPOSITORY = re.compile(r"\b(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)/([\w.-]+/[\w-]+(?:\.[\w-]+)*?)"
                        r"(?:\.git)?(?![\w/-])|\b(?:repo|repository|仓库)\s+`?((?:[\w.-]+/)*[\w.-]*\w)`?",
                        re.IGNORECASE)
HOST = re.compile(r"(?:[a-z][a-z0-9]*(?:-[a-z0-9]+)*-\d{1,4}[a-z]?|[a-z]{2,}\d{2,4})(?:\.[a-z][\w-]*)*")
"""A host named with a number: ``ops-01``, ``web01``, ``pg-main-04``, ``web-3.internal``."""
NUMBERED_NOT_HOSTS = frozenset("utf sha gpt iso rfc md http https tls ssl ipv llama qwen claude covid mp es h pm am "
                               "x y z v p step phase round top cve ie win python node java go php log4j".split())
"""Names written like a numbered host that are versions, standards or models (``utf-8``, ``gpt-4``)."""
FQDN = re.compile(r"[a-z0-9][\w-]*(?:\.[a-z0-9][\w-]*)+\.(?:com|net|org|io|dev|internal|local|lan|corp|cloud|"
                  r"app|ai|cn|de|uk|us|svc|intra|home)", re.IGNORECASE)
SERVICE_WORDS = ("worker", "workers", "api", "service", "svc", "gateway", "proxy", "server", "daemon", "queue",
                 "export", "exporter", "bot", "web", "app", "backend", "frontend", "scheduler", "cron", "db",
                 "cache", "ingest", "sync", "agent", "broker", "consumer", "producer", "lb", "router")
SERVICE_NAME = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[-_](?:" + "|".join(SERVICE_WORDS) + r")", re.IGNORECASE)
KNOWN_SERVICES = frozenset("""
nginx apache haproxy traefik envoy caddy redis postgres postgresql mysql mariadb mongodb mongo sqlite kafka rabbitmq
elasticsearch opensearch kibana grafana prometheus alertmanager loki jaeger consul vault etcd zookeeper memcached
minio clickhouse cassandra celery sidekiq jenkins gitlab github telegram slack discord openclaw systemd docker
kubernetes k8s cloudflare s3 lambda sentry pagerduty datadog airflow spark hadoop ollama
""".split())
"""Well-known servers and platforms: a bare mention of one names a running service."""
LIBRARY_CUE = re.compile(r"(?:pip3?|uv pip|poetry|npm|pnpm|yarn|cargo|gem|go get|apt(?:-get)?|brew) (?:install|add)"
                         r"\s+(?:-\S+\s+)*$|\b(?:import|from|require\(['\"]?)\s*$", re.IGNORECASE)
LIBRARY_AFTER = re.compile(r"^[`'\"]?\s*(?:==|>=|<=|~=|@\d|\s+(?:library|package|lib|crate|module|sdk|v?\d+\.\d+))",
                           re.IGNORECASE)
PROJECT_CUE = re.compile(r"\b(?:project|项目)\s*[`'\"“]?$", re.IGNORECASE)
PROJECT_AFTER = re.compile(r"^[`'\"”]?\s+(?:project|项目)\b", re.IGNORECASE)
PLACE_CUE = re.compile(r"\b(?:in|at|from|near|to|visit(?:ed|ing)?|moved to|lives? in|living in|trip to|flew to)\s+"
                       r"(?:the\s+)?$")
PERSON_CUE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|with|told|asked|ask|tell|thanks|thank|call|met|meet|named|friend|"
                        r"colleague|manager|boss|wife|husband|son|daughter|mom|dad|sister|brother|teammate|"
                        r"@)\.?\s+$|@$")
PERSON_AFTER = re.compile(r"^(?:'s|’s|\s+(?:said|says|told|asked|wrote|thinks|thought|wants|likes|loves|went|goes|"
                          r"moved|works|lives|joined|left|is a|was a|and I|and me|herself|himself))\b")


def kind_of(name: str, before: str, after: str, in_code: bool = False) -> str:
    """The kind of ``name``, said between ``before`` and ``after`` (the text on each side, a few dozen
    characters); ``in_code``: it was written in backticks."""
    lower = name.casefold()
    if "/" in name or FILE.search(name):
        return "file"
    if is_host(name):
        return "host"
    if LIBRARY_CUE.search(before):
        return "library"
    if lower in KNOWN_SERVICES:
        return "service"
    if LIBRARY_AFTER.match(after):
        return "library"
    if " " in name and in_code:
        return "command"
    if PROJECT_CUE.search(before) or PROJECT_AFTER.match(after):
        return "project"
    if SERVICE_NAME.fullmatch(name):
        return "service"
    if name[:1].isupper() and not in_code and re.fullmatch(r"[A-Z][a-z'’]+(?: [A-Z][a-z'’]+){0,2}", name):
        if PLACE_CUE.search(before) and not PERSON_AFTER.match(after):
            return "place"
        if " " in name or PERSON_CUE.search(before) or PERSON_AFTER.match(after):
            return "person"
    return "other"


def is_host(name: str) -> bool:
    head = re.split(r"[-.\d]", name.casefold(), maxsplit=1)[0]
    return bool(HOST.fullmatch(name) and head not in NUMBERED_NOT_HOSTS or FQDN.fullmatch(name))


CHINESE_KINDS = {"nr": "person", "nrfg": "person", "nrt": "person", "ns": "place", "nt": "other", "nz": "other",
                 "book": "other"}
"""jieba's tags as kinds: people (nr, nrfg, nrt), places (ns), organisations and other proper nouns."""
