"""Loading a person's own attempt, or 404."""

from sqlalchemy.orm import Session

from app.exceptions import NotFound
from app.practice.models import Attempt


def attempt_or_404(session: Session, user_id: int, attempt_id: int) -> Attempt:
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id != user_id:
        raise NotFound(f"no attempt with id {attempt_id}")
    return attempt
