"""The card library at `/` (filters by level and topic, search by title) and the cards' JSON API."""

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import HTMLResponse

from app.content.dependencies import CardDep, CatalogueDep, TierQuery, tier_or_422
from app.content.model import Card
from app.content.serializers import card_for_tier, card_summary
from app.content.tiers import IMPORTANCES, LEVELS, in_words, parse_tier
from app.exceptions import Invalid
from app.web.templating import render

router = APIRouter(tags=["pages"])


def _level(value: str) -> str:
    """The level filter: empty for any level, a level named in any case, or a refusal that says
    there is no such level (filtering by it would list no card and look like an empty library)."""
    if not value.strip():
        return ""
    level = parse_tier(value)
    if level is None:
        raise Invalid(
            "level", f"there is no level “{value}”: a card's level is {in_words(LEVELS)}", location="query"
        )
    return level


def _matches(card: Card, level: str, topic: str, words: list[str]) -> bool:
    title = card.title.markdown.lower()
    return (
        (not level or card.level == level)
        and (not topic or topic in card.topics)
        and all(word in title for word in words)
    )


@router.get("/", response_class=HTMLResponse)
def library(
    request: Request,
    catalogue: CatalogueDep,
    level: Annotated[str, Query(max_length=20)] = "",
    topic: Annotated[str, Query(max_length=80)] = "",
    q: Annotated[str, Query(max_length=200)] = "",
) -> HTMLResponse:
    level = _level(level)
    snapshot = catalogue.snapshot()
    words = q.lower().split()
    cards = [card for card in snapshot.cards.values() if _matches(card, level, topic, words)]
    topics = sorted({t for card in snapshot.cards.values() for t in card.topics}, key=str.lower)
    return render(
        request,
        "library.html",
        "_card_list.html",
        cards=cards,
        total=len(snapshot.cards),
        broken=snapshot.broken,
        levels=LEVELS,
        importances=IMPORTANCES,
        topics=topics,
        filters={"level": level, "topic": topic, "q": q},
    )


@router.get("/api/cards", tags=["api"])
def list_cards(catalogue: CatalogueDep) -> dict[str, Any]:
    snapshot = catalogue.snapshot()
    return {
        "cards": [card_summary(card) for card in snapshot.cards.values()],
        # File names only, as the library page shows them: where the server keeps them is its own business.
        "broken": [{"path": p.path.name, "line": p.line, "message": p.message} for p in snapshot.problems],
    }


@router.get("/api/cards/{card_id}", tags=["api"])
def get_card(card: CardDep, tier: TierQuery = None) -> dict[str, Any]:
    return card_for_tier(card, tier_or_422(tier, card.level))
