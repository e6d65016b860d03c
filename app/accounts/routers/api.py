"""GET /api/me: who the request is signed in as (a browser or an API token), as JSON."""

from fastapi import APIRouter

from app.accounts.dependencies import CurrentPersonDep
from app.accounts.schemas import MeOut

router = APIRouter(tags=["accounts"])


@router.get("/api/me", tags=["api"])
def me(principal: CurrentPersonDep) -> MeOut:
    """Who you are signed in as, and your role."""
    return MeOut(name=principal.name, role=principal.role)
