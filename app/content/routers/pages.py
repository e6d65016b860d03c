"""The card library at `/`: filters by level and topic, search by title."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from jinja2 import Template
from markupsafe import Markup
from starlette.responses import HTMLResponse

from app.content.dependencies import CatalogueDep
from app.content.library import Group, Listed
from app.content.tiers import LEVELS, parse_tier
from app.exceptions import Invalid, in_words
from app.web.page_cache import cacheable
from app.web.templating import render, templates

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


def _card_item(template: Template, listed: Listed, topic: str) -> str:
    html = listed.rendered.get(topic)
    if html is None:
        html = listed.rendered[topic] = template.render(card=listed.card, demos=listed.demos, topic=topic)
    return html


def _card_items(group: Group) -> Markup:
    """The group's list items, each card's rendered once per catalogue snapshot: rendering all of
    a 1,000-card library on every request took 25 to 30 ms, and collecting the garbage it left
    pushed one request in a hundred to 300 ms (bench/library_page.py)."""
    template = templates.get_template("_card_item.html")
    return Markup("".join(_card_item(template, listed, group.topic) for listed in group.cards))


@router.get("/", response_class=HTMLResponse)
def library(
    request: Request,
    catalogue: CatalogueDep,
    level: Annotated[str, Query(max_length=20)] = "",
    topic: Annotated[str, Query(max_length=80)] = "",
    q: Annotated[str, Query(max_length=200)] = "",
) -> HTMLResponse:
    """Depends only on the URL and the catalogue, so it is served from the page cache."""
    level = _level(level)
    snapshot = catalogue.snapshot()
    groups = snapshot.library.groups(level, topic=topic, query=q)
    return cacheable(
        render(
            request,
            "library.html",
            "_card_list.html",
            groups=groups,
            card_items=_card_items,
            shown=sum(len(group.cards) for group in groups),
            total=len(snapshot.cards),
            levels=LEVELS,
            topics=snapshot.library.topics,
            filters={"level": level, "topic": topic, "q": q},
        )
    )
