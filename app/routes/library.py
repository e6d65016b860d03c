"""The card library at `/`: every card, filters by level and topic, search by title."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import HTMLResponse

from app.content.model import Card
from app.content.tiers import IMPORTANCES, LEVELS
from app.loaders import CatalogueDep
from app.templating import render

router = APIRouter(tags=["pages"])


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
