"""What a lead asks of the team (assignments of cards at a depth, by a date), and what the team
as a whole finds hard (counts kept as practice is written: app/team/counts.py)."""

from datetime import date, datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.storage.base import Base, utcnow


class Assignment(Base):
    """Cards to review at one depth by `due`, for one person or (user_id None) for everyone.

    A topic is resolved to its cards when assigned, so what counts as done does not change when
    cards are added to the topic later; `topic` is kept to say where the cards came from. `kind`
    says how it is taken (app.team.schemas.KINDS): card by card, or as one mock interview.
    """

    __tablename__ = "assignments"
    __table_args__ = (Index("ix_assignments_user_due", "user_id", "due"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    tier: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16), default="review", server_default="review")
    topic: Mapped[str | None] = mapped_column(String(80))
    card_ids: Mapped[list[Any]]
    due: Mapped[date]


class TeamCardCount(Base):
    """The team's schedules of one card summed: their reviews, those rated again, and how many
    people have one at any depth. Kept by the database as review_states change (app/team/counts.py)."""

    __tablename__ = "team_card_counts"

    card_id: Mapped[str] = mapped_column(String(120), primary_key=True)
    reviews: Mapped[int] = mapped_column(default=0)
    again: Mapped[int] = mapped_column(default=0)
    people: Mapped[int] = mapped_column(default=0)


class TeamStatementCount(Base):
    """One quiz statement as the team misses it: the tallies of those who judged it wrong at least
    once, summed, and how many they are. Kept by the database as quiz_tallies change."""

    __tablename__ = "team_statement_counts"

    card_id: Mapped[str] = mapped_column(String(120), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    missed: Mapped[int] = mapped_column(default=0)
    seen: Mapped[int] = mapped_column(default=0)
    people: Mapped[int] = mapped_column(default=0)
