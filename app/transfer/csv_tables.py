"""A person's attempts, schedule or review log as one CSV table. Each table is a list of
(column name, getter) pairs, so its header and its rows cannot drift apart. A table is written
as it is read, as the JSON export is (see app/transfer/export.py)."""

import csv
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

from sqlalchemy.orm import Session

from app.content.cards import Card
from app.practice import scheduling
from app.practice.models import Attempt, ReviewLog, ReviewState
from app.transfer import export

CsvTable = Literal["attempts", "schedule", "reviews"]
Row = TypeVar("Row")
Columns = Sequence[tuple[str, Callable[[Row], object]]]


def _iso(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _blank(value: object) -> object:
    return "" if value is None else value


# A spreadsheet runs a cell that starts like a formula (=HYPERLINK(…) can leak data). Text that
# starts so gets a leading apostrophe, the mark spreadsheets read as "this is text" (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def _positions(attempt: Attempt, cards: Mapping[str, Card]) -> str:
    card = cards.get(attempt.card_id)
    return " ".join(map(str, card.point_positions(attempt.points))) if card else ""


def _suggested(attempt: Attempt) -> str:
    """The point ids the checker suggested the answer covers."""
    coverage = attempt.coverage
    return " ".join(p["id"] for p in coverage.points if p.get("covered")) if coverage else ""


def _agreement(attempt: Attempt) -> str:
    """'4 of 5': on how many of the suggested points the person's own ticks agreed."""
    coverage = attempt.coverage
    if coverage is None or coverage.compared is None:
        return ""
    return f"{coverage.agreed} of {coverage.compared}"


def _attempt_columns(cards: Mapping[str, Card]) -> Columns[Attempt]:
    """An attempt's "points" are positions in `cards`, the cards as served now."""
    return (
        ("id", lambda a: a.id),
        ("created_at", lambda a: _iso(a.created_at)),
        ("card_id", lambda a: a.card_id),
        ("tier", lambda a: a.tier),
        ("kind", lambda a: a.kind),
        ("follow_up", lambda a: _blank(a.follow_up)),
        ("seconds", lambda a: a.seconds),
        ("rating", lambda a: a.rating or ""),
        ("revealed", lambda a: "true" if a.revealed else "false"),
        ("score", lambda a: _blank(a.score)),
        ("points", lambda a: _positions(a, cards)),
        ("point_ids", lambda a: " ".join(a.points)),
        ("choices", lambda a: " ".join(a.choices or [])),
        ("words_per_minute", lambda a: _blank(a.words_per_minute)),
        ("filler_count", lambda a: _blank(a.filler_count)),
        ("long_pauses", lambda a: _blank(a.long_pauses)),
        ("suggested_point_ids", _suggested),
        ("agreed_with_checker", _agreement),
        ("text", lambda a: a.text or ""),
    )


def _schedule_columns(now: datetime) -> Columns[ReviewState]:
    return (
        ("card_id", lambda s: s.card_id),
        ("tier", lambda s: s.tier),
        ("state", scheduling.state_name),
        ("due", lambda s: _iso(s.due)),
        ("last_review", lambda s: _iso(s.last_review)),
        ("first_review", lambda s: _iso(s.first_review)),
        ("stability", lambda s: _blank(s.stability)),
        ("difficulty", lambda s: _blank(s.difficulty)),
        ("retrievability_now", lambda s: round(scheduling.retrievability(s, now), 4)),
        ("reps", lambda s: s.reps),
        ("lapses", lambda s: s.lapses),
    )


REVIEW_COLUMNS: Columns[ReviewLog] = (
    ("review_datetime", lambda log: _iso(log.review_datetime)),
    ("card_id", lambda log: log.card_id),
    ("tier", lambda log: log.tier),
    ("rating", lambda log: log.rating),
    ("rating_name", lambda log: scheduling.RATING_NAMES[log.rating]),
    ("review_duration_ms", lambda log: _blank(log.review_duration_ms)),
    ("attempt_id", lambda log: _blank(log.attempt_id)),
)


def columns(table: CsvTable, *, now: datetime, cards: Mapping[str, Card]) -> Columns[Any]:
    """The columns of `table`, in order."""
    if table == "attempts":
        return _attempt_columns(cards)
    if table == "schedule":
        return _schedule_columns(now)
    return REVIEW_COLUMNS


def _rows(session: Session, *, user_id: int, table: CsvTable) -> Iterable[object]:
    if table == "attempts":
        return export.attempts_of(session, user_id)
    if table == "schedule":
        return scheduling.states_for(session, user_id=user_id)
    return export.review_logs_of(session, user_id)


def table(
    sessions: Callable[[], Session],
    *,
    user_id: int,
    table: CsvTable,
    now: datetime,
    cards: Mapping[str, Card],
) -> Generator[str]:
    """One of the person's tables as CSV, a header line and a line a row, a chunk at a time, read
    in one snapshot by a session of its own (see export.document). Reads only."""
    chosen = columns(table, now=now, cards=cards)
    with sessions() as session:
        export.one_snapshot(session)
        yield from export.chunked(_lines(chosen, _rows(session, user_id=user_id, table=table)))


class _Line:
    """A file whose `write` hands the line back: csv.writer's `writerow` then returns it."""

    def write(self, line: str) -> str:
        return line


def _lines(chosen: Columns[Any], rows: Iterable[object]) -> Iterator[str]:
    """The header line, then a line a row."""
    writer = csv.writer(_Line(), lineterminator="\r\n")
    yield writer.writerow([name for name, _ in chosen])
    for row in rows:
        yield writer.writerow([_cell(get(row)) for _, get in chosen])
