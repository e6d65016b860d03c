"""/author: a card's markdown checked as the author types, with the problems `tiercards content
check` would report and the card at each depth, and the file to download. Nothing is stored: the
CLI publishes cards. The same check as JSON is app/authoring/routers/api.py."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import ValidationError
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, Response

from app.authoring import service
from app.authoring.dependencies import AuthorDep
from app.authoring.schemas import CardSource
from app.content.catalogue import Catalogue
from app.content.dependencies import CatalogueDep
from app.content.tiers import TIERS, Tier, parse_tier
from app.coverage.measured import MEASURED
from app.exceptions import Invalid
from app.storage.database import Database
from app.storage.dependencies import DatabaseDep
from app.web.dependencies import FormDep
from app.web.messages import form_messages
from app.web.templating import render

router = APIRouter(tags=["pages"])

TEXT_LABELS = {"text": "The card's markdown"}
UNREADABLE = "The card could not be read; send it again"


def _typed(form: FormData) -> str:
    text = form.get("text")
    return service.as_typed(text) if isinstance(text, str) else ""


def _source(form: FormData) -> str | list[str]:
    """The card's text, or the sentences that say why it is refused (too long, not text)."""
    try:
        source = CardSource.model_validate({"text": form.get("text", "")}, strict=False)
    except ValidationError as error:
        return form_messages(error, TEXT_LABELS, UNREADABLE)
    return service.as_typed(source.text)


def _page(
    request: Request,
    catalogue: Catalogue,
    *,
    db: Database,
    text: str,
    opened: str | None = None,
    tier: str | None = None,
    status_code: int = 200,
    errors: list[str] | None = None,
) -> HTMLResponse:
    shown = None if errors else service.preview(text, catalogue.snapshot().cards)
    level: Tier = shown.card.level if shown and shown.card else "middle"
    agreement = None
    if shown and shown.card and shown.served_from:
        with db.read_sessions() as session:
            agreement = service.team_agreement(session, shown.card)
    return render(
        request,
        "author.html",
        "_author_preview.html",
        status_code=status_code,
        text=text,
        opened=opened,
        preview=shown,
        agreement=agreement,
        measured=MEASURED.sentence(),
        errors=errors,
        tiers=TIERS,
        # The depth shown first: the one the author picked, else the card's own level.
        tier=parse_tier(tier, level) or level,
    )


@router.get("/author", response_class=HTMLResponse)
def author_page(
    request: Request,
    _author: AuthorDep,
    catalogue: CatalogueDep,
    db: DatabaseDep,
    card: Annotated[str | None, Query(description="a served card to open: its file's markdown")] = None,
) -> HTMLResponse:
    """A new card from the scaffold, or with `card` the served card's file, to edit and preview."""
    if card is None:
        return _page(request, catalogue, db=db, text=service.scaffold())
    text = service.served_text(catalogue.snapshot().cards, card)
    return _page(request, catalogue, db=db, text=text, opened=card)


@router.post("/author", response_class=HTMLResponse)
def check_page(
    request: Request, _author: AuthorDep, form: FormDep, catalogue: CatalogueDep, db: DatabaseDep
) -> HTMLResponse:
    """The preview of the posted text: a fragment for the live update, the page without scripts."""
    tier = str(form.get("tier") or "")
    source = _source(form)
    if isinstance(source, list):
        return _page(request, catalogue, db=db, text=_typed(form), tier=tier, status_code=422, errors=source)
    return _page(request, catalogue, db=db, text=source, tier=tier)


@router.post("/author/download")
def download(_author: AuthorDep, form: FormDep) -> Response:
    """Exactly the text typed, as the file to save into content/; kept nowhere here."""
    source = _source(form)
    if isinstance(source, list):
        raise Invalid("text", source[0])
    return Response(
        source,
        media_type="text/markdown",
        headers={
            "Content-Disposition": f'attachment; filename="{service.file_name(source)}"',
            "Cache-Control": "no-store",
        },
    )
