"""The cards' JSON API (OpenAPI at /docs): the catalogue's cards, and one card at a chosen depth."""

from typing import Any

from fastapi import APIRouter

from app.content.dependencies import CardDep, CatalogueDep, TierQuery, chosen_tier
from app.content.serializers import card_for_tier, card_summary

router = APIRouter(tags=["api"])


@router.get("/api/cards")
def list_cards(catalogue: CatalogueDep) -> dict[str, Any]:
    snapshot = catalogue.snapshot()
    return {
        "cards": [card_summary(card) for card in snapshot.cards.values()],
        # File names only: where the server keeps them is its own business.
        "broken": [{"path": p.path.name, "line": p.line, "message": p.message} for p in snapshot.problems],
    }


@router.get("/api/cards/{card_id}")
def get_card(card: CardDep, tier: TierQuery) -> dict[str, Any]:
    return card_for_tier(card, chosen_tier(tier, card.level))
