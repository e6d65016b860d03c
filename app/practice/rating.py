"""Rating a card on /practice: a rated answer re-rates its attempt, a bare rating is a review,
and the same form sent twice counts once."""

from datetime import datetime

from sqlalchemy.orm import Session

from app.content.cards import Card
from app.content.tiers import Tier
from app.exceptions import Invalid, in_words
from app.practice import attempts, scheduling
from app.practice.models import Attempt, ReviewState
from app.practice.schemas import MAX_SECONDS, RATINGS, Assessment


def review_token(row: ReviewState | None) -> str:
    """The card's last review as the form saw it: a rating sent twice finds it changed."""
    return row.last_review.isoformat() if row is not None and row.last_review else ""


def rate(
    session: Session,
    *,
    user_id: int,
    card: Card,
    tier: Tier,
    rating: str,
    seconds: float | None,
    token: str,
    attempt: Attempt | None,
    points: list[str],
    now: datetime,
) -> bool:
    """Record the rating a /practice form sends; False when that form was sent before (a double
    click, a reload), which counts for nothing. `token` is the review_token the form was shown
    with. Refusals raise Invalid or ValidationError."""
    if rating not in RATINGS:
        raise Invalid("rating", f"the rating is {in_words(RATINGS)}")
    if seconds is None:
        raise Invalid("seconds", f"seconds must be between 0 and {MAX_SECONDS}")
    if attempt is not None and attempt.card_id != card.id:
        raise Invalid("attempt_id", "that attempt is for another card")
    if attempt is not None:
        assessment = Assessment.model_validate({"points": points, "rating": rating}, strict=False)
        attempts.assess(session, card=card, attempt=attempt, data=assessment)
        return True
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    if token != review_token(row):
        return False
    scheduling.review(
        session,
        user_id=user_id,
        card_id=card.id,
        tier=tier,
        rating=scheduling.RATING_BY_NAME[rating],
        duration_ms=scheduling.duration_ms(seconds),
        at=now,
    )
    return True
