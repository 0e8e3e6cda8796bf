"""``python -m bench.show_cards PATH... [--limit N] [--summary]``: print the cards a distiller makes.

For people judging card quality: each session's cards (type, title, tags,
importance, source turns, content) and links, then throughput and cards per
type. PATH may be a session file or a folder of them (``.json``/``.jsonl``).
"""

from __future__ import annotations

import argparse
import textwrap
import time
from collections import Counter
from pathlib import Path

from alaya_engine.distill.base import Distillation
from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.foundations.domain import Session
from alaya_engine.raw.formats import parse_session_bytes


def session_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl")))
        else:
            files.append(path)
    return files


def load_session(path: Path) -> Session:
    return parse_session_bytes(path.read_bytes(), 10**9)


def show(path: Path, session: Session, result: Distillation) -> None:
    print(f"\n{'=' * 100}\n{path.name}  ({session.tokens} tokens, {len(session.turns)} turns)")
    if result.skipped_reason:
        print(f"  skipped: {result.skipped_reason}")
    for card in result.cards:
        print(f"\n  [{card.type}] {card.title}")
        print(f"    importance {card.importance}  turns {card.turns}  tags {card.tags}")
        for line in card.content.splitlines():
            print(textwrap.indent(textwrap.fill(line, 110) if line.strip() else "", "    | "))
    if result.links:
        print("\n  links:")
        for link in result.links:
            print(f"    {link.from_title}  -[{link.relation}]->  {link.to_title}   ({link.reason})")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.show_cards", description=__doc__)
    parser.add_argument("paths", nargs="+", help="session files or folders")
    parser.add_argument("--limit", type=int, default=0, help="show at most N sessions (0: all)")
    parser.add_argument("--summary", action="store_true", help="print only throughput and counts")
    arguments = parser.parse_args()
    files = session_files(arguments.paths)
    if arguments.limit:
        files = files[: arguments.limit]
    sessions = [(path, load_session(path)) for path in files]
    distiller = OfflineDistiller()
    distiller.distill(sessions[0][1])  # warm up: jieba loads its dictionary once per process
    started = time.perf_counter()
    results = [(path, session, distiller.distill(session)) for path, session in sessions]
    elapsed = time.perf_counter() - started
    if not arguments.summary:
        for path, session, result in results:
            show(path, session, result)
    cards = [card for _, _, result in results for card in result.cards]
    per_type = Counter(card.type for card in cards)
    skipped = sum(1 for _, _, result in results if result.skipped_reason)
    print(f"\n{len(results)} sessions in {elapsed:.2f} s: {len(results) / elapsed:.1f} sessions/s, "
          f"{len(cards) / elapsed:.1f} cards/s; {len(cards)} cards {dict(sorted(per_type.items()))}; "
          f"{skipped} skipped")


if __name__ == "__main__":
    main()
