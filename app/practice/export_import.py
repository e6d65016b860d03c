"""Export a person's attempts, schedule and review log, as the JSON import reads and as CSV.

The shapes here are the file's; app/practice/import_file.py reads a file a row at a time (and
checks the rules across rows: unique attempt ids and states, logs that name an attempt of the
file) and app/practice/import_merge.py merges it.
"""

import csv
import io
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.model import Card
from app.content.tiers import Tier
from app.exceptions import field_messages
from app.practice import preferences, scheduling
from app.practice.models import Attempt, ReviewLog
from app.practice.preferences import PracticeSettings
from app.practice.schemas import MAX_ANSWER_CHARS, MAX_SECONDS, AttemptIn, Kind, Rating
from app.schemas import WholeNumber

MAX_ROWS = 500_000
# What a database INTEGER column holds on every engine; a larger count is no real count.
MAX_INT = 2**31 - 1
CardId = Annotated[str, Field(min_length=1, max_length=120)]
Count = Annotated[WholeNumber, Field(ge=0, le=MAX_INT)]
# An answer point as stored: its id, or "#<position>" for a position a version-1 file named that
# could not be mapped to one.
StoredPoint = Annotated[str, StringConstraints(pattern=r"^(?:[0-9a-f]{8}|#[0-9]{1,10})$")]


def _in_utc(moment: datetime) -> datetime:
    # "0001-01-01T00:00:00+23:59" is a valid timestamp that no UTC calendar can hold.
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError("the time is outside the range a calendar date can hold") from None


Moment = Annotated[AwareDatetime, AfterValidator(_in_utc)]
StateName = Literal["learning", "review", "relearning"]
STATE_BY_NAME = {name: number for number, name in scheduling.STATE_NAMES.items()}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class AttemptDoc(_Strict):
    id: WholeNumber = Field(ge=1, le=2**63 - 1)
    card_id: CardId
    tier: Tier
    kind: Kind
    follow_up: Count | None = None
    text: str | None = Field(default=None, max_length=MAX_ANSWER_CHARS)
    choices: list[str] | None = Field(default=None, max_length=100)
    score: float | None = Field(default=None, ge=0, le=1)
    seconds: float = Field(ge=0, le=MAX_SECONDS)
    points: list[Count] | list[StoredPoint] = Field(
        default_factory=list, max_length=50, description="ids (version 2) or positions (version 1)"
    )
    rating: Rating | None = None
    revealed: bool = False
    created_at: Moment

    @model_validator(mode="after")
    def _as_if_submitted(self) -> "AttemptDoc":
        """An imported attempt passes the rules a submitted one does, so every page can show it.
        Its points are the exception: they may name points a card no longer has."""
        try:
            AttemptIn.model_validate(self.model_dump(include=set(AttemptIn.model_fields) - {"points"}))
        except ValidationError as error:
            raise ValueError("; ".join(field_messages(error.errors(), "attempt"))) from None
        if self.kind == "quiz" and self.score is None:
            raise ValueError("a quiz attempt has a score")
        return self


class ReviewStateDoc(_Strict):
    card_id: CardId
    tier: Tier
    state: StateName
    step: Count | None = None
    stability: float | None = Field(default=None, gt=0)
    difficulty: float | None = Field(default=None, ge=1, le=10)
    due: Moment
    last_review: Moment | None
    first_review: Moment
    reps: Count
    lapses: Count


class ReviewLogDoc(_Strict):
    card_id: CardId
    tier: Tier
    rating: WholeNumber = Field(ge=1, le=4, description="FSRS rating: 1 again, 2 hard, 3 good, 4 easy")
    review_datetime: Moment
    review_duration_ms: Count | None = None
    attempt_id: WholeNumber | None = Field(default=None, description="the `id` of an attempt in this file")


class ExportDoc(_Strict):
    """Everything of one person's: the file `GET /api/export.json` writes and `POST /api/import` reads."""

    format: Literal["tiercards-export"] = "tiercards-export"
    # Version 1 named answer points and quiz items by position; export writes version 2, ids.
    version: Literal[1, 2] = 2
    exported_at: Moment
    settings: PracticeSettings
    attempts: list[AttemptDoc] = Field(max_length=MAX_ROWS)
    review_states: list[ReviewStateDoc] = Field(max_length=MAX_ROWS)
    review_logs: list[ReviewLogDoc] = Field(max_length=MAX_ROWS)


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def _attempts(session: Session, user_id: int) -> list[Attempt]:
    query = select(Attempt).where(Attempt.user_id == user_id).order_by(Attempt.created_at, Attempt.id)
    return list(session.scalars(query))


def _review_logs(session: Session, user_id: int) -> list[ReviewLog]:
    query = (
        select(ReviewLog)
        .where(ReviewLog.user_id == user_id)
        .order_by(ReviewLog.review_datetime, ReviewLog.id)
    )
    return list(session.scalars(query))


def _fields(row: object, doc: type[BaseModel]) -> dict[str, object]:
    """The row's value of each of the document's fields (they share their names)."""
    return {name: getattr(row, name) for name in doc.model_fields}


def export_document(session: Session, user_id: int, now: datetime) -> ExportDoc:
    return ExportDoc(
        exported_at=now,
        settings=preferences.load(session, user_id),
        attempts=[AttemptDoc.model_validate(_fields(a, AttemptDoc)) for a in _attempts(session, user_id)],
        review_states=[
            ReviewStateDoc.model_validate(_fields(s, ReviewStateDoc) | {"state": scheduling.state_name(s)})
            for s in scheduling.states_for(session, user_id)
        ],
        review_logs=[
            ReviewLogDoc.model_validate(_fields(log, ReviewLogDoc)) for log in _review_logs(session, user_id)
        ],
    )


# --- CSV --------------------------------------------------------------------------------------

CsvTable = Literal["attempts", "schedule", "reviews"]


def _iso(moment: datetime | None) -> str:
    return "" if moment is None else _utc(moment).isoformat().replace("+00:00", "Z")


def _blank(value: object) -> object:
    return "" if value is None else value


# A spreadsheet runs a cell that starts like a formula (=HYPERLINK(…) can leak data). Text that
# starts so gets a leading apostrophe, the mark spreadsheets read as "this is text" (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def _csv(header: list[str], rows: Iterable[list[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return buffer.getvalue()


def _positions(attempt: Attempt, cards: Mapping[str, Card]) -> str:
    card = cards.get(attempt.card_id)
    return " ".join(map(str, card.point_positions(attempt.points))) if card else ""


def export_csv(
    session: Session, user_id: int, table: CsvTable, now: datetime, cards: Mapping[str, Card]
) -> str:
    """One table; an attempt's "points" are positions in `cards`, the cards as served now."""
    if table == "attempts":
        return _csv(
            [
                "id",
                "created_at",
                "card_id",
                "tier",
                "kind",
                "follow_up",
                "seconds",
                "rating",
                "revealed",
                "score",
                "points",
                "point_ids",
                "choices",
                "text",
            ],
            (
                [
                    a.id,
                    _iso(a.created_at),
                    a.card_id,
                    a.tier,
                    a.kind,
                    _blank(a.follow_up),
                    a.seconds,
                    a.rating or "",
                    "true" if a.revealed else "false",
                    _blank(a.score),
                    _positions(a, cards),
                    " ".join(a.points),
                    " ".join(a.choices or []),
                    a.text or "",
                ]
                for a in _attempts(session, user_id)
            ),
        )
    if table == "schedule":
        return _csv(
            [
                "card_id",
                "tier",
                "state",
                "due",
                "last_review",
                "first_review",
                "stability",
                "difficulty",
                "retrievability_now",
                "reps",
                "lapses",
            ],
            (
                [
                    s.card_id,
                    s.tier,
                    scheduling.state_name(s),
                    _iso(s.due),
                    _iso(s.last_review),
                    _iso(s.first_review),
                    _blank(s.stability),
                    _blank(s.difficulty),
                    round(scheduling.retrievability(s, now), 4),
                    s.reps,
                    s.lapses,
                ]
                for s in scheduling.states_for(session, user_id)
            ),
        )
    return _csv(
        ["review_datetime", "card_id", "tier", "rating", "rating_name", "review_duration_ms", "attempt_id"],
        (
            [
                _iso(log.review_datetime),
                log.card_id,
                log.tier,
                log.rating,
                scheduling.RATING_NAMES[log.rating],
                _blank(log.review_duration_ms),
                _blank(log.attempt_id),
            ]
            for log in _review_logs(session, user_id)
        ),
    )
