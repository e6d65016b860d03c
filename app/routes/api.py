"""JSON API for cards and attempts (OpenAPI at /docs)."""

from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from app import attempts
from app.attempts import AttemptIn, AttemptOut
from app.card_views import card_for_tier, card_summary
from app.db import SessionDep, WriteSessionDep
from app.loaders import CardDep, CatalogueDep, UserIdDep, tier_or_422

router = APIRouter(prefix="/api", tags=["api"])


@router.get("/cards")
def list_cards(catalogue: CatalogueDep) -> dict[str, Any]:
    snapshot = catalogue.snapshot()
    return {
        "cards": [card_summary(card) for card in snapshot.cards.values()],
        "broken": [{"path": str(p.path), "line": p.line, "message": p.message} for p in snapshot.problems],
    }


@router.get("/cards/{card_id}")
def get_card(card: CardDep, tier: Annotated[str | None, Query()] = None) -> dict[str, Any]:
    return card_for_tier(card, tier_or_422(tier, card.level))


@router.post("/cards/{card_id}/attempts", status_code=status.HTTP_201_CREATED)
async def create_attempt(
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
