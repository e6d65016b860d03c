"""JSON API for a person's attempts (OpenAPI at /docs)."""

from typing import Annotated

from fastapi import APIRouter, Query, status

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep
from app.practice import attempts
from app.practice.dependencies import NowDep
from app.practice.schemas import AttemptIn, AttemptOut
from app.storage.dependencies import SessionDep, WriteSessionDep

router = APIRouter(prefix="/api", tags=["api"])


@router.post("/cards/{card_id}/attempts", status_code=status.HTTP_201_CREATED)
def create_attempt(
    card: CardDep, data: AttemptIn, session: WriteSessionDep, user_id: UserIdDep, now: NowDep
) -> AttemptOut:
    return attempts.as_out(attempts.record(session, card, user_id, data, now), card)


@router.get("/attempts")
def list_attempts(
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    card_id: Annotated[str | None, Query(max_length=120)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[AttemptOut]:
    cards = catalogue.snapshot().cards
    return [
        attempts.as_out(a, cards.get(a.card_id)) for a in attempts.history(session, user_id, card_id, limit)
    ]
