"""Database tables. The schema changes only through Alembic migrations in migrations/."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

LOCAL_USER_ID = 1


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores UTC; always gives back timezone-aware datetimes (SQLite forgets the zone)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass an aware UTC datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON, list[Any]: JSON}


class User(Base):
    """One person. A single local user (id 1) until accounts exist; everything keys on user_id."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Attempt(Base):
    """One recorded answer: a timed basics/solid answer, a follow-up answer or a pitfall quiz."""

    __tablename__ = "attempts"
    __table_args__ = (Index("ix_attempts_user_card_created", "user_id", "card_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(120))
    tier: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16))
    follow_up: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str | None] = mapped_column(Text)
    choices: Mapped[list[Any] | None]
    score: Mapped[float | None]
    seconds: Mapped[float]
    points: Mapped[list[Any]] = mapped_column(default=list)
    rating: Mapped[str | None] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class UserSettings(Base):
    """A person's practice settings; a person without a row gets the defaults."""

    __tablename__ = "user_settings"
    __table_args__ = (
        CheckConstraint("desired_retention >= 0.7 AND desired_retention <= 0.99", name="retention_range"),
        CheckConstraint("new_per_day >= 0 AND new_per_day <= 100", name="new_per_day_range"),
    )

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    target_tier: Mapped[str] = mapped_column(String(16), default="middle", server_default="middle")
    desired_retention: Mapped[float] = mapped_column(default=0.9, server_default="0.9")
    new_per_day: Mapped[int] = mapped_column(default=10, server_default="10")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ReviewState(Base):
    """The FSRS memory state of one card at one tier for one person (app/srs.py keeps it)."""

    __tablename__ = "review_states"
    __table_args__ = (
        UniqueConstraint("user_id", "card_id", "tier"),
        Index("ix_review_states_user_due", "user_id", "due"),
        CheckConstraint("state BETWEEN 1 AND 3", name="state_known"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(120))
    tier: Mapped[str] = mapped_column(String(16))
    # fsrs.State: 1 learning, 2 review, 3 relearning. A card never reviewed has no row ("new").
    state: Mapped[int]
    step: Mapped[int | None]
    stability: Mapped[float | None]
    difficulty: Mapped[float | None]
    due: Mapped[datetime]
    last_review: Mapped[datetime | None]
    first_review: Mapped[datetime]
    reps: Mapped[int] = mapped_column(default=0)
    lapses: Mapped[int] = mapped_column(default=0)


class ReviewLog(Base):
    """One review: the rating (1 again … 4 easy), when, and how long it took (for the optimiser)."""

    __tablename__ = "review_logs"
    __table_args__ = (
        Index("ix_review_logs_user_datetime", "user_id", "review_datetime"),
        Index("ix_review_logs_user_card_tier", "user_id", "card_id", "tier", "review_datetime"),
        CheckConstraint("rating BETWEEN 1 AND 4", name="rating_range"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(120))
    tier: Mapped[str] = mapped_column(String(16))
    rating: Mapped[int]
    review_datetime: Mapped[datetime]
    review_duration_ms: Mapped[int | None]
    # The attempt this review came from (None: rated in /practice without typing an answer).
    # Unique: an attempt feeds the schedule once; re-rating it replaces its review.
    attempt_id: Mapped[int | None] = mapped_column(
        ForeignKey("attempts.id", ondelete="SET NULL"), unique=True
    )


class DemoRun(Base):
    """One live tf.data demo a person asked for: its parameters, where it is, and its result.

    The worker claims a queued run, writes progress and a heartbeat while it runs, and stores the
    result document (app/demos/pipelines.py) when it is done; app/demo_runs.py owns the rules.
    """

    __tablename__ = "demo_runs"
    __table_args__ = (
        Index("ix_demo_runs_user_status", "user_id", "status"),
        Index("ix_demo_runs_card_created", "card_id", "created_at"),
        CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted')",
            name="status_known",
        ),
    )

    # uuid4 hex: the run_id in URLs and the API.
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str | None] = mapped_column(String(120))
    preset: Mapped[str] = mapped_column(String(32))
    params: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), default="queued")
    progress: Mapped[dict[str, Any]] = mapped_column(default=dict)
    result: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(Text)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    # The worker that claimed it: "host:pid".
    worker: Mapped[str | None] = mapped_column(String(255))
    # The run this one repeats (same preset and parameters), if it is a re-run.
    rerun_of: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]


class WorkerBeat(Base):
    """A demo worker that is (or was) alive; the web reads `last_seen` to tell whether any is."""

    __tablename__ = "worker_beats"

    # "host:pid"
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    device: Mapped[str] = mapped_column(String(255))
    # real (a GPU train step), simulated (no GPU), or unknown until the first run reports.
    compute: Mapped[str] = mapped_column(String(16))
    tensorflow_version: Mapped[str | None] = mapped_column(String(32))
    current_run_id: Mapped[str | None] = mapped_column(String(32))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(default=utcnow)
