"""What a person's practice stores: attempts, settings, FSRS review states and the review log."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.storage.base import Base, utcnow


class Attempt(Base):
    """One recorded answer: a timed basics/solid answer, a follow-up answer or a pitfall quiz; or
    a basics/solid answer revealed without answering (`revealed`: no text, scheduled as a miss)."""

    __tablename__ = "attempts"
    __table_args__ = (
        Index("ix_attempts_user_card_created", "user_id", "card_id", "created_at"),
        # A person's newest answers across cards (history, pace, agreement): read without sorting
        # every answer they ever gave.
        Index("ix_attempts_user_created", "user_id", "created_at"),
        # A person's newest answers given aloud ("Pace and fillers"), found without walking past
        # every typed one.
        Index(
            "ix_attempts_user_spoken",
            "user_id",
            "created_at",
            sqlite_where=text("words_per_minute IS NOT NULL"),
            postgresql_where=text("words_per_minute IS NOT NULL"),
        ),
        # A card's recent answers across everyone (the author preview's agreement with the checker).
        Index("ix_attempts_card_created", "card_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(120))
    tier: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16))
    follow_up: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str | None] = mapped_column(Text)
    # Ids derived from the items' text (app/content/cards.py), so reordering a card keeps them: the
    # quiz items marked as costly ("p-<key>", "t-<key>") and the answer points covered ("<key>").
    # Positions from before the ids that no card could map are kept: "#<position>", or "p3".
    choices: Mapped[list[Any] | None]
    score: Mapped[float | None]
    seconds: Mapped[float]
    points: Mapped[list[Any]] = mapped_column(default=list)
    rating: Mapped[str | None] = mapped_column(String(8))
    revealed: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # An answer given aloud: the recording it was transcribed from, and how it was said, as
    # measured from the sound (the text may have been edited since).
    # Unique: a recording makes at most one answer.
    recording_id: Mapped[str | None] = mapped_column(
        ForeignKey("recordings.id", ondelete="SET NULL"), unique=True
    )
    words_per_minute: Mapped[float | None]
    filler_count: Mapped[int | None] = mapped_column(Integer)
    long_pauses: Mapped[int | None] = mapped_column(Integer)
    # The checker's suggestion on the answer, if one was made. The database deletes it with the
    # attempt; loaded only where asked for (the exports), never one query a row.
    coverage: Mapped["AttemptCoverage | None"] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, lazy="raise_on_sql"
    )


# The bounds of a person's practice settings, enforced by the table and by PracticeSettings alike.
MIN_RETENTION = 0.70
MAX_RETENTION = 0.99
MAX_NEW_PER_DAY = 100


class UserSettings(Base):
    """A person's practice settings; a person without a row gets the defaults."""

    __tablename__ = "user_settings"
    __table_args__ = (
        CheckConstraint(
            f"desired_retention >= {MIN_RETENTION} AND desired_retention <= {MAX_RETENTION}",
            name="retention_range",
        ),
        CheckConstraint(f"new_per_day >= 0 AND new_per_day <= {MAX_NEW_PER_DAY}", name="new_per_day_range"),
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
    # Reviews rated again (not recalled) at any state, lapses or not: the team's hardest cards.
    again: Mapped[int] = mapped_column(default=0, server_default="0")


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


class AttemptCoverage(Base):
    """What the coverage checker suggested for an answer (app/coverage/checker.py): per point
    `{"id", "covered", "score", "start", "end"}` and per asserted pitfall `{"id", "start", "end"}`,
    the evidence as where it stands in the attempt's text (so it goes with the text, nothing
    copied). Once the person assesses, how many points their own ticks agreed with it on.

    `reading`: where the entailment model's reading of the answer stands (READINGS): asked of the
    workers and not back yet (`queued`), back and stored over the lexical suggestion (`done`),
    refused by the model or past its time (`failed`), or not asked because no live worker reads
    answers with the model (`unavailable`); None where it was never asked (older or imported rows)."""

    __tablename__ = "attempt_coverage"
    __table_args__ = (
        # The readings still queued, which a starting worker puts back on the queue: found without
        # walking past every suggestion ever stored.
        Index(
            "ix_attempt_coverage_queued",
            "attempt_id",
            sqlite_where=text("reading = 'queued'"),
            postgresql_where=text("reading = 'queued'"),
        ),
    )

    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"), primary_key=True)
    method: Mapped[str] = mapped_column(String(32))
    points: Mapped[list[Any]]
    pitfalls: Mapped[list[Any]]
    agreed: Mapped[int | None] = mapped_column(Integer)
    compared: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    reading: Mapped[str | None] = mapped_column(String(16))


READINGS = ("queued", "done", "failed", "unavailable")


class PracticeDay(Base):
    """One person's practice on one UTC day, counted as each answer and review is written
    (app/practice/totals.py), so a page reads a row a day instead of every answer ever given.
    `tiercards db rebuild-aggregates` recomputes them from the attempts and the review log."""

    __tablename__ = "practice_days"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[date] = mapped_column(primary_key=True)
    answers: Mapped[int] = mapped_column(default=0)  # attempts of any kind, reveals included
    rated_alone: Mapped[int] = mapped_column(default=0)  # /practice ratings given without an answer
    reviews: Mapped[int] = mapped_column(default=0)  # reviews of the schedule (the review log)
    timed: Mapped[int] = mapped_column(default=0)  # basics and solid answers (not reveals)
    in_time: Mapped[int] = mapped_column(default=0)  # of those, within the card's time budget
    quizzes: Mapped[int] = mapped_column(default=0)  # pitfall quizzes with a score
    quiz_score: Mapped[float] = mapped_column(default=0.0)  # their scores added up


class PracticeMonth(Base):
    """One person's days with practice (an answer or a rating given alone) in one UTC month, a bit a
    day: bit d - 1 is day d. The database keeps it from practice_days as they are written
    (migrations/versions/0031_practice_months.py), so a streak a year long is a dozen rows to read,
    not 365."""

    __tablename__ = "practice_months"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    month: Mapped[date] = mapped_column(primary_key=True)  # its first day
    days: Mapped[int] = mapped_column(default=0)


class QuizTally(Base):
    """How often a person was dealt one quiz statement and judged it wrong, counted as each quiz
    is written (app/practice/totals.py): /progress's and /team's missed pitfalls."""

    __tablename__ = "quiz_tallies"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    card_id: Mapped[str] = mapped_column(String(120), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    seen: Mapped[int] = mapped_column(default=0)
    missed: Mapped[int] = mapped_column(default=0)
