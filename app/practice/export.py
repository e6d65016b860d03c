"""Exporting a person's attempts, schedule, review log and settings: the audit line each export
leaves, the rows in the order an export lists them, and the JSON document."""

from datetime import datetime

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.accounts import audit
from app.practice import preferences, scheduling
from app.practice.export_schema import (
    MAX_DELIVERY_COUNT,
    MAX_WORDS_PER_MINUTE,
    AttemptDoc,
    CoverageDoc,
    ExportDoc,
    InterviewDoc,
    InterviewQuestionDoc,
    ReviewLogDoc,
    ReviewStateDoc,
)
from app.practice.interview.models import InterviewQuestion, InterviewSession
from app.practice.models import Attempt, ReviewLog


def record(session: Session, *, user_id: int, address: str | None, format: str) -> None:
    """Record the export in the audit log before it is read: a read session may then write
    without meeting another writer's newer snapshot."""
    audit.record(session, kind="export", user_id=user_id, actor_id=user_id, address=address, format=format)
    session.commit()


def attempts_of(session: Session, user_id: int) -> list[Attempt]:
    """The person's attempts, oldest first."""
    query = (
        select(Attempt)
        .where(Attempt.user_id == user_id)
        .order_by(Attempt.created_at, Attempt.id)
        .options(selectinload(Attempt.coverage))
    )
    return list(session.scalars(query))


def review_logs_of(session: Session, user_id: int) -> list[ReviewLog]:
    """The person's reviews, oldest first."""
    query = (
        select(ReviewLog)
        .where(ReviewLog.user_id == user_id)
        .order_by(ReviewLog.review_datetime, ReviewLog.id)
    )
    return list(session.scalars(query))


def interviews_of(session: Session, user_id: int) -> list[InterviewDoc]:
    """The person's mock interviews, oldest first, each with its questions in order."""
    query = (
        select(InterviewSession)
        .where(InterviewSession.user_id == user_id)
        .order_by(InterviewSession.created_at, InterviewSession.id)
        # The file names each question's attempt by id; the attempts themselves are listed once.
        .options(selectinload(InterviewSession.questions).raiseload(InterviewQuestion.attempt))
    )
    return [
        InterviewDoc.model_validate(
            _fields(interview, InterviewDoc)
            | {"questions": [_fields(question, InterviewQuestionDoc) for question in interview.questions]}
        )
        for interview in session.scalars(query)
    ]


def _fields(row: object, doc: type[BaseModel]) -> dict[str, object]:
    """The row's value of each of the document's fields (they share their names)."""
    return {name: getattr(row, name) for name in doc.model_fields}


# Each delivery figure and the top of the range an import accepts for it.
_FIGURE_BOUNDS = (
    ("words_per_minute", MAX_WORDS_PER_MINUTE),
    ("filler_count", MAX_DELIVERY_COUNT),
    ("long_pauses", MAX_DELIVERY_COUNT),
)


def _attempt_doc(attempt: Attempt) -> AttemptDoc:
    """The attempt as the file lists it. A figure stored out of range (before figures were
    bounded, or by hand) is held to the range an import accepts: the export still answers, and
    the file it writes still imports."""
    fields = _fields(attempt, AttemptDoc)
    fields["coverage"] = _coverage_doc(attempt)
    for name, top in _FIGURE_BOUNDS:
        value = fields[name]
        if isinstance(value, int | float):
            fields[name] = min(max(value, 0), top)
    return AttemptDoc.model_validate(fields)


def _coverage_doc(attempt: Attempt) -> CoverageDoc | None:
    """The attempt's suggestion as the file lists it; one that would not import back (written by
    hand, or its text edited since) is left out rather than failing the export."""
    if attempt.coverage is None:
        return None
    try:
        doc = CoverageDoc.model_validate(_fields(attempt.coverage, CoverageDoc))
    except ValidationError:
        return None
    return doc if attempt.text and doc.furthest() <= len(attempt.text) else None


def document(session: Session, *, user_id: int, now: datetime) -> ExportDoc:
    return ExportDoc(
        exported_at=now,
        settings=preferences.load(session, user_id),
        attempts=[_attempt_doc(a) for a in attempts_of(session, user_id)],
        review_states=[
            ReviewStateDoc.model_validate(_fields(s, ReviewStateDoc) | {"state": scheduling.state_name(s)})
            for s in scheduling.states_for(session, user_id=user_id)
        ],
        review_logs=[
            ReviewLogDoc.model_validate(_fields(log, ReviewLogDoc))
            for log in review_logs_of(session, user_id)
        ],
        interviews=interviews_of(session, user_id),
    )
