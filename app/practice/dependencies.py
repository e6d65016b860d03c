"""Loading a person's own attempt; the one "now" a response is computed from; the key
quiz deals sign their items with; the cards a person has been assigned."""

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.exceptions import NotFound
from app.practice.assigned import AssignedCards, none_assigned
from app.practice.models import Attempt
from app.schemas import parse_id
from app.storage.base import utcnow
from app.web.dependencies import app_settings


def own_attempt(session: Session, *, user_id: int, attempt_id: int) -> Attempt:
    """The person's attempt with that id; someone else's is as unknown as a missing one."""
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id != user_id:
        raise NotFound(f"no attempt with id {attempt_id}")
    return attempt


def form_attempt(session: Session, *, user_id: int, text: str) -> Attempt | None:
    """The attempt a form names, None when it names none; an id no row can have is a 404."""
    if not text:
        return None
    attempt_id = parse_id(text)
    if attempt_id is None:
        raise NotFound("no attempt with that id")
    return own_attempt(session, user_id=user_id, attempt_id=attempt_id)


# Async so FastAPI runs it inline rather than in its thread pool: it never blocks.
async def get_now() -> datetime:
    """Read once per request and passed to everything the response shows, so every due time
    and "ago" on a page agrees with the others."""
    return utcnow()


NowDep = Annotated[datetime, Depends(get_now)]


# Async, calling app_settings itself, for the reason get_now is: no hop to the thread pool.
async def get_quiz_key(request: Request) -> str:
    return str(app_settings(request).secret_key)


QuizKeyDep = Annotated[str, Depends(get_quiz_key)]


def assigned_cards(request: Request) -> AssignedCards:
    found: AssignedCards = getattr(request.app.state, "assigned_cards", none_assigned)
    return found


AssignedCardsDep = Annotated[AssignedCards, Depends(assigned_cards)]
