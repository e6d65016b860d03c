"""Recording answers: what an attempt must contain, how it is checked against its card, storage."""

from datetime import datetime
from typing import Annotated, Literal

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import quiz, srs
from app.content.model import Card
from app.content.tiers import Tier
from app.models import Attempt

MAX_ANSWER_CHARS = 20_000
MAX_SECONDS = 24 * 3600

Kind = Literal["basics", "solid", "follow-up", "quiz"]
Rating = Literal["again", "hard", "good", "easy"]
RATINGS: tuple[Rating, ...] = ("again", "hard", "good", "easy")
AnswerText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ANSWER_CHARS)
]


class AttemptIn(BaseModel):
    """What a person submits. A quiz sends `choices` (the item ids marked as costly), not `text`."""

    model_config = ConfigDict(extra="forbid")

    tier: Tier
    kind: Kind
    text: AnswerText | None = None
    seconds: float = Field(ge=0, le=MAX_SECONDS)
    rating: Rating | None = None
    points: list[Annotated[int, Field(ge=0)]] = Field(default_factory=list, max_length=50)
    follow_up: int | None = Field(default=None, ge=0, description="index of the follow-up answered")
    choices: list[str] | None = Field(default=None, max_length=100)

    @model_validator(mode="after")
    def _fits_kind(self) -> "AttemptIn":
        if self.kind == "quiz":
            if self.choices is None:
                raise ValueError("a quiz attempt sends 'choices' (the item ids marked as costly)")
            if self.text is not None:
                raise ValueError("a quiz attempt sends 'choices', not 'text'")
        elif self.text is None:
            raise ValueError("an answer needs non-empty 'text'")
        if self.kind == "follow-up" and self.follow_up is None:
            raise ValueError("a follow-up attempt names its question in 'follow_up'")
        if self.kind != "follow-up" and self.follow_up is not None:
            raise ValueError("'follow_up' belongs only to follow-up attempts")
        return self


class AttemptOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    card_id: str
    tier: str
    kind: str
    follow_up: int | None
    text: str | None
    choices: list[str] | None
    score: float | None
    seconds: float
    points: list[int]
    rating: str | None
    created_at: datetime


class Assessment(BaseModel):
    """A person's own verdict on an answer they just compared with the model answer."""

    model_config = ConfigDict(extra="forbid")

    points: list[Annotated[int, Field(ge=0)]] = Field(default_factory=list, max_length=50)
    rating: Rating


def _unprocessable(field: str, message: str) -> HTTPException:
    return HTTPException(
        status_code=422, detail=[{"loc": ["body", field], "msg": message, "type": "value_error"}]
    )


def check_against_card(card: Card, data: AttemptIn | Assessment) -> None:
    """What only the card can tell: point indices, follow-up index and quiz item ids exist."""
    bad_points = [p for p in data.points if p >= len(card.points)]
    if bad_points:
        raise _unprocessable("points", f"this card has answer points 0 to {len(card.points) - 1}")
    if isinstance(data, Assessment):
        return
    if data.follow_up is not None and data.follow_up >= len(card.follow_ups):
        raise _unprocessable("follow_up", f"this card has follow-ups 0 to {len(card.follow_ups) - 1}")
    if data.choices is not None:
        unknown = quiz.unknown_choices(card, data.choices)
        if unknown:
            raise _unprocessable("choices", f"unknown quiz items: {', '.join(unknown[:5])}")


def record(session: Session, card: Card, user_id: int, data: AttemptIn) -> Attempt:
    check_against_card(card, data)
    score = quiz.score(quiz.mark(card, data.choices)) if data.choices is not None else None
    attempt = Attempt(
        user_id=user_id,
        card_id=card.id,
        tier=data.tier,
        kind=data.kind,
        follow_up=data.follow_up,
        text=data.text,
        choices=sorted(set(data.choices)) if data.choices is not None else None,
        score=score,
        seconds=round(data.seconds, 2),
        points=sorted(set(data.points)),
        rating=data.rating,
    )
    session.add(attempt)
    srs.review_attempt(session, attempt)  # a rated answer or a quiz feeds the card's schedule
    session.commit()
    return attempt


def assess(session: Session, card: Card, attempt: Attempt, data: Assessment) -> Attempt:
    check_against_card(card, data)
    attempt.points = sorted(set(data.points))
    attempt.rating = data.rating
    srs.review_attempt(session, attempt)  # re-rating replaces this attempt's review
    session.commit()
    return attempt


def history(session: Session, user_id: int, card_id: str | None = None, limit: int = 200) -> list[Attempt]:
    """The person's attempts, newest first."""
    query = select(Attempt).where(Attempt.user_id == user_id)
    if card_id is not None:
        query = query.where(Attempt.card_id == card_id)
    query = query.order_by(Attempt.created_at.desc(), Attempt.id.desc()).limit(limit)
    return list(session.scalars(query))
