"""Numbers as people read them, the same in the command line and the explorer: counts with their noun, sizes,
shares as a bar."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 card``, ``2 cards``, ``1,024 cards``; ``many`` for nouns that do not just add an s."""
    return f"{count:,} {noun if count == 1 else many or noun + 's'}"


def share_bar(share: float, width: int = 10) -> str:
    """``████░░░░░░`` for 0.4."""
    filled = round(share * width)
    return "█" * filled + "░" * (width - filled)


def human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def last_introspect_text(last: dict) -> str:
    """The status document's last introspect run, as both faces print it: ``2026-12-03 23:18 UTC (distill,
    consolidate; 1.2 s)``, then the cards its forget left for the next run, if any."""
    left = last.get("forget_left")  # a record written by hand may say anything there: only a count is shown
    waiting = f"; {plural(left, 'card')} wait to be forgotten by the next run" \
        if isinstance(left, int) and not isinstance(left, bool) and left > 0 else ""
    return f"{last['at'][:16].replace('T', ' ')} UTC ({', '.join(last['steps'])}; {last['elapsed_s']:g} s){waiting}"
