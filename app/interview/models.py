"""What a mock interview stores: the session, and its questions in the order they are asked.

Which step a question is at is read from the attempt that answered it (none: being asked; not
rated: being assessed; rated: done), so a reload comes back to the same step."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, UniqueConstraint, true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.practice.models import Attempt
from app.storage.base import Base, utcnow


class InterviewSession(Base):
    __tablename__ = "interview_sessions"
    __table_args__ = (Index("ix_interview_sessions_user_created", "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    tier: Mapped[str] = mapped_column(String(16))
    # How the cards were chosen: topic, due, assigned, random or cards (named one by one).
    source: Mapped[str] = mapped_column(String(16))
    topic: Mapped[str | None] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    # Typed on the page: each answer is rated before the next question. Spoken or through the API:
    # the session moves straight on, and its answers are rated from the summary.
    rate_each: Mapped[bool] = mapped_column(default=True, server_default=true())
    # Timed as a whole: its length, and when it ran out (which ends it, however many cards are left).
    minutes: Mapped[int | None]
    ran_out_at: Mapped[datetime | None]
    # Started from a mock interview a lead assigned: that lead sees its figures (app/team).
    assignment_id: Mapped[int | None] = mapped_column(
        ForeignKey("assignments.id", ondelete="SET NULL"), index=True
    )
    questions: Mapped[list["InterviewQuestion"]] = relationship(
        order_by="InterviewQuestion.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="selectin",
    )

    @property
    def card_count(self) -> int:
        """The cards asked: main questions, not the follow-ups chosen after them."""
        return sum(1 for q in self.questions if q.follow_up is None and q.why is None)


class InterviewQuestion(Base):
    """A card's main question, or a follow-up asked after it: one of the card's (`follow_up`), or
    a missed point or asserted pitfall asked in the interviewer's words (`follow_up` None, `why`
    set). `why` says what the answer before it did (app/interview/choice.py); None for a main
    question, and for a follow-up planned when the session began (sessions from before)."""

    __tablename__ = "interview_questions"
    # The index: deleting an attempt sets its question's link to NULL, found without a scan.
    __table_args__ = (
        UniqueConstraint("session_id", "position"),
        Index("ix_interview_questions_attempt_id", "attempt_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("interview_sessions.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    card_id: Mapped[str] = mapped_column(String(120))
    follow_up: Mapped[int | None] = mapped_column(Integer)
    why: Mapped[str | None] = mapped_column(String(140))
    # "skipped" or "dont-know": passed over without an answer (OUTCOMES).
    outcome: Mapped[str | None] = mapped_column(String(16))
    attempt_id: Mapped[int | None] = mapped_column(ForeignKey("attempts.id", ondelete="SET NULL"))
    attempt: Mapped[Attempt | None] = relationship(lazy="selectin")
