"""Export a person's attempts, schedule and review log; import that JSON back.

Import merges and is idempotent: importing the same file twice changes nothing the second time.
- Attempts are matched on (card id, tier, kind, follow-up, created time); a match is kept as it is.
- Review logs are matched on (card id, tier, review time); a match is kept as it is.
- A review state the database lacks is restored exactly as exported. One it already has is kept,
  unless the import added reviews for that card and tier: then it is replayed from all its logs.
- Settings are replaced by the file's.
The whole file is validated before anything is written; a malformed file stores nothing.
"""

import csv
import io
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.tiers import Tier
from app.practice import preferences, scheduling
from app.practice.models import Attempt, ReviewLog, ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.schemas import MAX_ANSWER_CHARS, MAX_SECONDS, Kind, Rating

MAX_ROWS = 500_000
CardId = Annotated[str, Field(min_length=1, max_length=120)]
StateName = Literal["learning", "review", "relearning"]
STATE_BY_NAME = {name: number for number, name in scheduling.STATE_NAMES.items()}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AttemptDoc(_Strict):
    id: int
    card_id: CardId
    tier: Tier
    kind: Kind
    follow_up: int | None = Field(default=None, ge=0)
    text: str | None = Field(default=None, max_length=MAX_ANSWER_CHARS)
    choices: list[str] | None = Field(default=None, max_length=100)
    score: float | None = Field(default=None, ge=0, le=1)
    seconds: float = Field(ge=0, le=MAX_SECONDS)
    points: list[Annotated[int, Field(ge=0)]] = Field(default_factory=list, max_length=50)
    rating: Rating | None = None
    created_at: AwareDatetime


class ReviewStateDoc(_Strict):
    card_id: CardId
    tier: Tier
    state: StateName
    step: int | None = Field(default=None, ge=0)
    stability: float | None = Field(default=None, gt=0)
    difficulty: float | None = Field(default=None, ge=1, le=10)
    due: AwareDatetime
    last_review: AwareDatetime | None
    first_review: AwareDatetime
    reps: int = Field(ge=0)
    lapses: int = Field(ge=0)


class ReviewLogDoc(_Strict):
    card_id: CardId
    tier: Tier
    rating: int = Field(ge=1, le=4, description="FSRS rating: 1 again, 2 hard, 3 good, 4 easy")
    review_datetime: AwareDatetime
    review_duration_ms: int | None = Field(default=None, ge=0)
    attempt_id: int | None = Field(default=None, description="the `id` of an attempt in this file")


class ExportDoc(_Strict):
    """Everything of one person's: the file `GET /api/export.json` writes and `POST /api/import` reads."""

    format: Literal["tiercards-export"] = "tiercards-export"
    version: Literal[1] = 1
    exported_at: AwareDatetime
    settings: PracticeSettings
    attempts: list[AttemptDoc] = Field(max_length=MAX_ROWS)
    review_states: list[ReviewStateDoc] = Field(max_length=MAX_ROWS)
    review_logs: list[ReviewLogDoc] = Field(max_length=MAX_ROWS)

    @model_validator(mode="after")
    def _consistent(self) -> "ExportDoc":
        ids = [a.id for a in self.attempts]
        if len(set(ids)) != len(ids):
            raise ValueError("attempt ids must be unique within the file")
        known = set(ids)
        for index, log in enumerate(self.review_logs):
            if log.attempt_id is not None and log.attempt_id not in known:
                raise ValueError(
                    f"review_logs[{index}].attempt_id {log.attempt_id} is not an attempt in the file"
                )
        keys = [(s.card_id, s.tier) for s in self.review_states]
        if len(set(keys)) != len(keys):
            raise ValueError("review_states has more than one state for the same card and tier")
        return self


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


class ImportResult(BaseModel):
    attempts_added: int = 0
    attempts_already_present: int = 0
    review_logs_added: int = 0
    review_logs_already_present: int = 0
    review_states_restored: int = 0
    review_states_replayed: int = 0
    review_states_kept: int = 0


def import_document(session: Session, user_id: int, doc: ExportDoc) -> ImportResult:
    """Merge `doc` into the person's data (see the module docstring). Stages; the caller commits."""
    result = ImportResult()

    def attempt_key(
        card_id: str, tier: str, kind: str, follow_up: int | None, at: datetime
    ) -> tuple[object, ...]:
        return card_id, tier, kind, follow_up, _utc(at)

    present = {
        attempt_key(a.card_id, a.tier, a.kind, a.follow_up, a.created_at): a.id
        for a in session.scalars(select(Attempt).where(Attempt.user_id == user_id))
    }
    id_map: dict[int, int] = {}
    added: list[tuple[int, Attempt]] = []
    for doc_attempt in doc.attempts:
        key = attempt_key(
            doc_attempt.card_id,
            doc_attempt.tier,
            doc_attempt.kind,
            doc_attempt.follow_up,
            doc_attempt.created_at,
        )
        if key in present:
            id_map[doc_attempt.id] = present[key]
            result.attempts_already_present += 1
            continue
        row = Attempt(
            user_id=user_id,
            **doc_attempt.model_dump(exclude={"id", "created_at"}),
            created_at=_utc(doc_attempt.created_at),
        )
        session.add(row)
        added.append((doc_attempt.id, row))
        present[key] = -1  # a duplicate within the file is added once
        result.attempts_added += 1
    session.flush()
    for doc_id, row in added:
        id_map[doc_id] = row.id

    logged = {
        (log.card_id, log.tier, log.review_datetime): log.attempt_id
        for log in session.scalars(select(ReviewLog).where(ReviewLog.user_id == user_id))
    }
    attempts_logged = {attempt_id for attempt_id in logged.values() if attempt_id is not None}
    touched: set[tuple[str, str]] = set()
    for doc_log in doc.review_logs:
        key = (doc_log.card_id, doc_log.tier, _utc(doc_log.review_datetime))
        attempt_id = id_map.get(doc_log.attempt_id) if doc_log.attempt_id is not None else None
        if key in logged or (attempt_id is not None and attempt_id in attempts_logged):
            result.review_logs_already_present += 1
            continue
        session.add(
            ReviewLog(
                user_id=user_id,
                **doc_log.model_dump(exclude={"review_datetime", "attempt_id"}),
                review_datetime=key[2],
                attempt_id=attempt_id,
            )
        )
        logged[key] = attempt_id
        if attempt_id is not None:
            attempts_logged.add(attempt_id)
        touched.add((doc_log.card_id, doc_log.tier))
        result.review_logs_added += 1
    session.flush()

    existing = {(s.card_id, s.tier) for s in scheduling.states_for(session, user_id)}
    restored: set[tuple[str, str]] = set()
    for doc_state in doc.review_states:
        key = (doc_state.card_id, doc_state.tier)
        if key in existing:
            continue
        session.add(
            ReviewState(
                user_id=user_id,
                **doc_state.model_dump(exclude={"state", "due", "last_review", "first_review"}),
                state=STATE_BY_NAME[doc_state.state],
                due=_utc(doc_state.due),
                last_review=_utc(doc_state.last_review) if doc_state.last_review else None,
                first_review=_utc(doc_state.first_review),
            )
        )
        restored.add(key)
    result.review_states_restored = len(restored)
    session.flush()
    for card_id, tier in sorted(touched - restored):
        scheduling.replay(session, user_id, card_id, tier)
        result.review_states_replayed += 1
    result.review_states_kept = len({(s.card_id, s.tier) for s in doc.review_states} & existing - touched)
    preferences.save(session, user_id, doc.settings)
    return result


# --- CSV --------------------------------------------------------------------------------------

CsvTable = Literal["attempts", "schedule", "reviews"]


def _iso(moment: datetime | None) -> str:
    return "" if moment is None else _utc(moment).isoformat().replace("+00:00", "Z")


def _blank(value: object) -> object:
    return "" if value is None else value


def _csv(header: list[str], rows: Iterable[list[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def export_csv(session: Session, user_id: int, table: CsvTable, now: datetime) -> str:
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
                "score",
                "points",
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
                    _blank(a.score),
                    " ".join(map(str, a.points)),
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
