"""Dependencies that load a thing by id or answer 404: the one place for such lookups."""

from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request
from sqlalchemy.orm import Session

from app.content.catalogue import Catalogue
from app.content.model import Card
from app.content.tiers import TIERS, Tier, parse_tier
from app.models import LOCAL_USER_ID, Attempt, DemoRun


# Async so FastAPI runs these inline rather than in its thread pool: they never block.
async def get_catalogue(request: Request) -> Catalogue:
    catalogue: Catalogue = request.app.state.catalogue
    return catalogue


CatalogueDep = Annotated[Catalogue, Depends(get_catalogue)]


async def current_user_id() -> int:
    """The single local user until accounts exist; every query already filters on it."""
    return LOCAL_USER_ID


UserIdDep = Annotated[int, Depends(current_user_id)]


def card_or_404(catalogue: Catalogue, card_id: str) -> Card:
    card = catalogue.get(card_id)
    if card is None:
        raise HTTPException(status_code=404, detail=f"no card with id '{card_id}'")
    return card


async def get_card_or_404(catalogue: CatalogueDep, card_id: Annotated[str, Path(max_length=120)]) -> Card:
    return card_or_404(catalogue, card_id)


CardDep = Annotated[Card, Depends(get_card_or_404)]


def attempt_or_404(session: Session, user_id: int, attempt_id: int) -> Attempt:
    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id != user_id:
        raise HTTPException(status_code=404, detail=f"no attempt with id {attempt_id}")
    return attempt


def demo_run_or_404(session: Session, user_id: int, run_id: str) -> DemoRun:
    """A person's demo run; someone else's reads as missing, like one that never existed."""
    run = session.get(DemoRun, run_id) if len(run_id) <= 32 else None
    if run is None or run.user_id != user_id:
        raise HTTPException(status_code=404, detail=f"no demo run with id '{run_id}'")
    return run


def tier_or_422(value: str | None, default: Tier) -> Tier:
    tier = parse_tier(value, default)
    if tier is None:
        message = f"tier must be one of {', '.join(TIERS)}"
        raise HTTPException(
            status_code=422, detail=[{"loc": ["query", "tier"], "msg": message, "type": "value_error"}]
        )
    return tier
