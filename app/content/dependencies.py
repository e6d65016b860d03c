"""Dependencies that hand a route the catalogue, a card (or 404) and a tier (or 422)."""

from typing import Annotated

from fastapi import Depends, Path, Query, Request

from app.content.cards import Card
from app.content.catalogue import Catalogue
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


# The four names in any case ("Principal" is principal), as the schema says and the API takes.
TIER_PATTERN = "^(" + "|".join("".join(f"[{c}{c.upper()}]" for c in tier) for tier in TIERS) + ")$"


async def _tier_query(
    tier: Annotated[str | None, Query(json_schema_extra={"pattern": TIER_PATTERN})] = None,
) -> str | None:
    """The API's tier parameter: one of the four names, in any case (an empty one is no name),
    else refused with a message that names them all."""
    if tier is not None and tier.lower() not in TIERS:
        raise Invalid("tier", f"tier must be {in_words(TIERS)}", location="query")
    return tier


TierQuery = Annotated[str | None, Depends(_tier_query)]


def chosen_tier(value: str | None, default: Tier, label: str = "tier") -> Tier:
    """`label` names the parameter as the asker knows it: pages label it "Depth"."""
    tier = parse_tier(value, default)
    if tier is None:
        raise Invalid("tier", f"{label} must be {in_words(TIERS)}", location="query")
    return tier
