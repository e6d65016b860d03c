"""Dependencies that hand a route the catalogue, a card (or 404) and a tier (or 422)."""

from typing import Annotated

from fastapi import Depends, Path, Query, Request

from app.content.catalogue import Catalogue
from app.content.model import Card
from app.content.tiers import TIERS, Tier, parse_tier
from app.exceptions import Invalid, NotFound, in_words


# Async so FastAPI runs these inline rather than in its thread pool: they never block.
async def get_catalogue(request: Request) -> Catalogue:
    catalogue: Catalogue = request.app.state.catalogue
    return catalogue


CatalogueDep = Annotated[Catalogue, Depends(get_catalogue)]


def served_card(catalogue: Catalogue, card_id: str) -> Card:
    card = catalogue.get(card_id)
    if card is None:
        raise NotFound(f"no card with id '{card_id}'")
    return card


async def get_served_card(catalogue: CatalogueDep, card_id: Annotated[str, Path(max_length=120)]) -> Card:
    return served_card(catalogue, card_id)


CardDep = Annotated[Card, Depends(get_served_card)]


# The API's tier parameter. The schema lists the four names; chosen_tier checks them, so a wrong
# one is refused with a message that names them all.
TierQuery = Annotated[str | None, Query(json_schema_extra={"enum": list(TIERS)})]


def chosen_tier(value: str | None, default: Tier, label: str = "tier") -> Tier:
    """`label` names the parameter as the asker knows it: pages label it "Depth"."""
    tier = parse_tier(value, default)
    if tier is None:
        raise Invalid("tier", f"{label} must be {in_words(TIERS)}", location="query")
    return tier
