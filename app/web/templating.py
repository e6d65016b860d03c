"""Jinja setup, and the one rule for htmx: the same route answers a fragment or the full page."""

from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import HTMLResponse

from app import PROJECT_ROOT
from app.web.dependencies import settings_of
from app.web.timefmt import ago, clock, day, span, until, utc, when

templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")
# The kit's own filters; each domain adds its own (its `filters.register`), wired by app/factory.py.
templates.env.filters.update(ago=ago, clock=clock, day=day, span=span, until=until, utc=utc, when=when)


def wants_fragment(headers: Mapping[str, str]) -> bool:
    """An htmx swap wants a fragment; a boosted link (htmx loading a whole page) does not."""
    return headers.get("hx-request") == "true" and headers.get("hx-boosted") != "true"


def is_htmx(request: Request) -> bool:
    return wants_fragment(request.headers)


def render(
    request: Request, page: str, fragment: str | None = None, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """`fragment` for htmx requests, otherwise the full `page` (which includes that fragment).

    A partial (`_name.html`) asked for by an ordinary request is wrapped in `page.html`, so every
    URL a person can land on reads as a whole page.
    """
    name = fragment if fragment is not None and is_htmx(request) else page
    if name.startswith("_") and not is_htmx(request):
        context["partial"] = name
        name = "page.html"
    context.setdefault("csrf_token", request.state.csrf_token)
    # From this app's settings, not a template global: several apps may share one process.
    context.setdefault("auth_mode", settings_of(request).auth_mode)
    response = templates.TemplateResponse(request, name, context, status_code=status_code)
    response.headers["vary"] = "HX-Request"
    return response
