"""How times read on the page: UTC in, short human text out."""

from datetime import UTC, datetime


def ago(moment: datetime, now: datetime | None = None) -> str:
    seconds = int(((now or datetime.now(UTC)) - moment).total_seconds())
    if seconds < 0:
        return "just now"
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now" if seconds < 10 else f"{seconds} s ago"


def clock(seconds: float) -> str:
    """42 -> '42 s', 75 -> '1:15'."""
    whole = round(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60}:{whole % 60:02d}"
