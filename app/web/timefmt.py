"""How times read on the page: UTC in, short human text out."""

from datetime import UTC, date, datetime, timedelta


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


def span(delta: timedelta) -> str:
    """A length of time, short: 45 s, 10 min, 3 h, 4 d, 2 mo, 1.5 y."""
    seconds = abs(delta.total_seconds())
    if seconds < 60:
        return f"{round(seconds)} s"
    if seconds < 3_600:
        return f"{round(seconds / 60)} min"
    if seconds < 86_400:
        return f"{round(seconds / 3_600)} h"
    days = seconds / 86_400
    if days < 60:
        return f"{round(days)} d"
    if days < 365:
        return f"{round(days / 30.4)} mo"
    return f"{days / 365:.1f} y"


def until(moment: datetime, now: datetime | None = None) -> str:
    """'in 3 d' or 'in 30 s' for the future, 'now' for up to a minute past, 'overdue by 2 h' after.

    A moment still to come never reads "now": it is not due yet, and "due now" beside "nothing
    due" would contradict it."""
    delta = moment - (now or datetime.now(UTC))
    seconds = delta.total_seconds()
    if seconds > 0:
        return f"in {span(max(delta, timedelta(seconds=1)))}"
    return "now" if seconds > -60 else f"overdue by {span(delta)}"


def when(moment: datetime, now: datetime) -> str:
    """'in 3 d, on Fri 4 Dec'; within a day, with the time: 'in 10 min, on Tue 1 Dec at 14:05 UTC'.
    The span is `until`'s, so it agrees with every other due text on the page."""
    moment = moment.astimezone(UTC)
    at = f" at {moment:%H:%M} UTC" if (moment - now).total_seconds() < 86_400 else ""
    return f"{until(moment, now)}, on {moment:%a} {moment.day} {moment:%b}{at}"


def day(value: date, now: datetime) -> str:
    """A UTC day, short: 'today', 'yesterday', 'Tue 1 Dec', 'Tue 1 Dec 2025' in another year."""
    today = now.astimezone(UTC).date()
    if value == today:
        return "today"
    if value == today - timedelta(days=1):
        return "yesterday"
    year = f" {value.year}" if value.year != today.year else ""
    return f"{value:%a} {value.day} {value:%b}{year}"


def utc(moment: datetime) -> str:
    """An absolute time as the app keeps it: '2026-12-01 14:05 UTC'."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
