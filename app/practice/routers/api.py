"""JSON API for a person's attempts (OpenAPI at /docs)."""

from typing import Annotated

from fastapi import APIRouter, Query, status

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep
from app.practice import attempts
from app.practice.schemas import AttemptIn, AttemptOut
from app.storage.dependencies import SessionDep, WriteSessionDep

router = APIRouter(prefix="/api", tags=["api"])


@router.post("/cards/{card_id}/attempts", status_code=status.HTTP_201_CREATED)
def create_attempt(
    card: CardDep, data: AttemptIn, session: WriteSessionDep, user_id: UserIdDep
) -> AttemptOut:
    return AttemptOut.model_validate(attempts.record(session, card, user_id, data))


@router.get("/attempts")
def list_attempts(
    session: SessionDep,
    user_id: UserIdDep,
    card_id: Annotated[str | None, Query(max_length=120)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[AttemptOut]:
    return [AttemptOut.model_validate(a) for a in attempts.history(session, user_id, card_id, limit)]
