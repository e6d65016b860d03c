"""Recording answers: checking an attempt against its card, storing it, rating it, history."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.model import Card
from app.exceptions import Invalid
from app.practice import quiz, scheduling
from app.practice.models import Attempt
from app.practice.schemas import Assessment, AttemptIn


def check_against_card(card: Card, data: AttemptIn | Assessment) -> None:
    """What only the card can tell: point indices, follow-up index and quiz item ids exist."""
    bad_points = [p for p in data.points if p >= len(card.points)]
    if bad_points:
        raise Invalid("points", f"this card has answer points 0 to {len(card.points) - 1}")
    if isinstance(data, Assessment):
        return
    if data.follow_up is not None and data.follow_up >= len(card.follow_ups):
        raise Invalid("follow_up", f"this card has follow-ups 0 to {len(card.follow_ups) - 1}")
    if data.choices is not None:
        unknown = quiz.unknown_choices(card, data.choices)
        if unknown:
            raise Invalid("choices", f"unknown quiz items: {', '.join(unknown[:5])}")


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
    scheduling.review_attempt(session, attempt)  # a rated answer or a quiz feeds the card's schedule
    session.commit()
    return attempt


def assess(session: Session, card: Card, attempt: Attempt, data: Assessment) -> Attempt:
    check_against_card(card, data)
    attempt.points = sorted(set(data.points))
    attempt.rating = data.rating
    scheduling.review_attempt(session, attempt)  # re-rating replaces this attempt's review
    session.commit()
    return attempt


def history(session: Session, user_id: int, card_id: str | None = None, limit: int = 200) -> list[Attempt]:
    """The person's attempts, newest first."""
    query = select(Attempt).where(Attempt.user_id == user_id)
    if card_id is not None:
        query = query.where(Attempt.card_id == card_id)
    query = query.order_by(Attempt.created_at.desc(), Attempt.id.desc()).limit(limit)
    return list(session.scalars(query))
