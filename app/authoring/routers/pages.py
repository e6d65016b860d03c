"""The editor: a card's markdown checked as it is typed, with the problems `tiercards content
check` would report at their lines and the card at each depth. Authors write a new card at
/author and edit any card at /author/cards/{card_id}, saving it into the content folder; anyone
signed in suggests an edit to a published card at /cards/{card_id}/suggest, which waits for an
author's review (app/authoring/routers/reviews.py). The same check as JSON is
app/authoring/routers/api.py."""

from dataclasses import dataclass, replace
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from pydantic import ValidationError
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import CurrentPersonDep
from app.accounts.middleware import Principal
from app.authoring import editing, proposals, service
from app.authoring.dependencies import AuthorDep, ProposalsPerHourDep
from app.authoring.diff import side_by_side
from app.authoring.schemas import CardSource, ProposalIn
from app.content.catalogue import Catalogue
from app.content.dependencies import CatalogueDep
from app.content.tiers import TIERS, Tier, parse_tier
from app.coverage.measured import MEASURED
from app.exceptions import Conflict, DomainError, Invalid, NotFound
from app.storage.database import Database
from app.storage.dependencies import DatabaseDep
from app.web.dependencies import FormDep
from app.web.errors import status_of
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


@dataclass(frozen=True)
class Editing:
    """What the editor is for: a new card, an author's edit of one, or a suggested edit; where it
    saves and previews, and the file's text it started from (`base`), which a save compares with
    the file as it is then."""

    mode: str  # "new", "edit" or "suggest"
    save_url: str
    preview_url: str = "/author"
    card_id: str | None = None
    base: str | None = None
    draft: bool = False


NEW = Editing("new", "/author/cards")


def _editing(catalogue: Catalogue, card_id: str, *, suggest: bool = False) -> tuple[Editing, str]:
    snapshot = catalogue.snapshot()
    if suggest and card_id not in snapshot.cards:  # a draft is its authors' alone
        raise NotFound(f"no card with the id '{card_id[:80]}'")
    now = editing.source(snapshot, card_id)
    url = f"/author/cards/{card_id}"
    mode = "suggest" if suggest else "edit"
    return Editing(mode, url, f"{url}/check", card_id, now.text, now.card.draft), now.text


def _page(
    request: Request,
    catalogue: Catalogue,
    *,
    db: Database,
    text: str,
    purpose: Editing = NEW,
    tier: str | None = None,
    status_code: int = 200,
    errors: list[str] | None = None,
    reason: str = "",
    saved: bool = False,
    refusals: list[str] | None = None,
) -> HTMLResponse:
    snapshot = catalogue.snapshot()
    shown = None if errors else service.preview(text, {**snapshot.drafts, **snapshot.cards})
    level: Tier = shown.card.level if shown and shown.card else "middle"
    agreement = None
    if shown and shown.card and shown.served_from and purpose.mode != "suggest":
        with db.read_sessions() as session:
            agreement = service.team_agreement(session, shown.card)
    return render(
        request,
        "author.html",
        "_author_preview.html",
        status_code=status_code,
        text=text,
        opened=purpose.card_id,
        purpose=purpose,
        reason=reason,
        saved=saved,
        refusals=refusals,
        preview=shown,
        agreement=agreement,
        measured=MEASURED.sentence(),
        errors=errors,
        tiers=TIERS,
        # The depth shown first: the one the author picked, else the card's own level.
        tier=parse_tier(tier, level) or level,
        drafts=list(snapshot.drafts.values()) if purpose.mode == "new" else [],
        broken=snapshot.broken if purpose.mode == "new" else {},
    )


@router.get("/author", response_class=HTMLResponse)
def author_page(
    request: Request,
    _author: AuthorDep,
    catalogue: CatalogueDep,
    db: DatabaseDep,
    card: Annotated[str | None, Query(description="a served card to open: its file's markdown")] = None,
) -> HTMLResponse:
    """A new card from the scaffold; `card` (the old way to open one) goes to its editor."""
    if card is None:
        return _page(request, catalogue, db=db, text=service.scaffold())
    editing.source(catalogue.snapshot(), card)  # a 404 for a card that is not there
    return RedirectResponse(f"/author/cards/{card}", status_code=303)  # type: ignore[return-value]


def _preview(
    request: Request, catalogue: Catalogue, *, db: Database, form: FormData, purpose: Editing
) -> HTMLResponse:
    """The preview of the posted text: a fragment for the live update, the page without scripts."""
    tier = str(form.get("tier") or "")
    source = _source(form)
    if isinstance(source, list):
        return _page(
            request,
            catalogue,
            db=db,
            text=_typed(form),
            purpose=purpose,
            tier=tier,
            status_code=422,
            errors=source,
        )
    return _page(request, catalogue, db=db, text=source, purpose=purpose, tier=tier)


@router.post("/author", response_class=HTMLResponse)
def check_page(
    request: Request, _author: AuthorDep, form: FormDep, catalogue: CatalogueDep, db: DatabaseDep
) -> HTMLResponse:
    """The preview of a new card's text."""
    return _preview(request, catalogue, db=db, form=form, purpose=NEW)


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


def _saving_refused(
    request: Request,
    catalogue: Catalogue,
    *,
    db: Database,
    text: str,
    purpose: Editing,
    error: DomainError,
    reason: str = "",
) -> HTMLResponse:
    """The editor again with the refusal's sentence, or, when the file changed since the edit
    began, the three-way view: what changed on disk, and this edit, each against where it began."""
    if isinstance(error, editing.Changed):
        return render(
            request,
            "author_conflict.html",
            status_code=409,
            purpose=replace(purpose, base=error.current),
            theirs=side_by_side(error.base, error.current),
            mine=side_by_side(error.base, error.mine),
            text=error.mine,
            reason=reason,
            message=str(error),
        )
    return _page(
        request,
        catalogue,
        db=db,
        text=text,
        purpose=purpose,
        status_code=status_of(error),
        refusals=[str(error)],
        reason=reason,
    )


def _form_text(form: FormData, name: str) -> str:
    value = form.get(name)
    return service.as_typed(value) if isinstance(value, str) else ""


@router.post("/author/cards", response_class=HTMLResponse)
def create_card(
    request: Request, author: AuthorDep, form: FormDep, catalogue: CatalogueDep, db: DatabaseDep
) -> Response:
    """Save a new card into the content folder under its id; it is a draft while it says so."""
    source = _source(form)
    if isinstance(source, list):
        return _page(request, catalogue, db=db, text=_typed(form), status_code=422, errors=source)
    try:
        with db.write_sessions() as session:
            saved = editing.create(
                session, catalogue=catalogue, text=source, author_id=author.id, author=author.name
            )
    except (Invalid, Conflict) as error:
        return _saving_refused(request, catalogue, db=db, text=source, purpose=NEW, error=error)
    return RedirectResponse(f"/author/cards/{saved.card_id}?saved=1", status_code=303)


@router.get("/author/cards/{card_id}", response_class=HTMLResponse)
def edit_page(
    request: Request,
    person: CurrentPersonDep,
    catalogue: CatalogueDep,
    db: DatabaseDep,
    card_id: Annotated[str, Path(max_length=120)],
    saved: Annotated[bool, Query(description="just saved: the page says so")] = False,
) -> HTMLResponse:
    """The card's file in the editor: for authors and admins to change and save (drafts too),
    for everyone else to change and send for review with a reason."""
    purpose, text = _editing(catalogue, card_id, suggest=not person.powers.authors)
    return _page(request, catalogue, db=db, text=text, purpose=purpose, saved=saved)


@router.post("/author/cards/{card_id}/check", response_class=HTMLResponse)
def edit_check(
    request: Request,
    person: CurrentPersonDep,
    form: FormDep,
    catalogue: CatalogueDep,
    db: DatabaseDep,
    card_id: Annotated[str, Path(max_length=120)],
) -> HTMLResponse:
    """The live preview of the text in the editor, as the author's preview at /author shows it."""
    purpose, _ = _editing(catalogue, card_id, suggest=not person.powers.authors)
    return _preview(request, catalogue, db=db, form=form, purpose=purpose)


@router.post("/author/cards/{card_id}", response_class=HTMLResponse)
def save_card(
    request: Request,
    person: CurrentPersonDep,
    form: FormDep,
    catalogue: CatalogueDep,
    db: DatabaseDep,
    per_hour: ProposalsPerHourDep,
    card_id: Annotated[str, Path(max_length=120)],
) -> Response:
    """An author's edit saved over the card's file; anyone else's sent for review. Either is
    refused when the file changed since the edit began."""
    purpose, _ = _editing(catalogue, card_id, suggest=not person.powers.authors)
    if purpose.mode == "suggest":
        return _suggest(
            request, catalogue, db=db, form=form, purpose=purpose, person=person, per_hour=per_hour
        )
    source = _source(form)
    if isinstance(source, list):
        return _page(
            request, catalogue, db=db, text=_typed(form), purpose=purpose, status_code=422, errors=source
        )
    base = _form_text(form, "base")
    try:
        with db.write_sessions() as session:
            editing.save(
                session,
                catalogue=catalogue,
                card_id=card_id,
                text=source,
                base=base,
                author_id=person.id,
                author=person.name,
            )
    except (Invalid, Conflict) as error:
        started = replace(purpose, base=base)
        return _saving_refused(request, catalogue, db=db, text=source, purpose=started, error=error)
    return RedirectResponse(f"/author/cards/{card_id}?saved=1", status_code=303)


PROPOSAL_LABELS = {"markdown": "The card's markdown", "reason": "Why it should change"}


def _suggest(
    request: Request,
    catalogue: Catalogue,
    *,
    db: Database,
    form: FormData,
    purpose: Editing,
    person: Principal,
    per_hour: int,
) -> Response:
    """Send the suggested edit for review; the proposer follows it on their account page."""
    text, reason = _typed(form), str(form.get("reason") or "")
    try:
        data = ProposalIn.model_validate({"markdown": form.get("text", ""), "reason": reason}, strict=False)
    except ValidationError as error:
        messages = form_messages(error, PROPOSAL_LABELS, UNREADABLE)
        return _page(
            request,
            catalogue,
            db=db,
            text=text,
            purpose=purpose,
            status_code=422,
            refusals=messages,
            reason=reason,
        )
    base = _form_text(form, "base")
    card_id = purpose.card_id or ""
    markdown = service.as_typed(data.markdown)
    try:
        if base != purpose.base:
            raise editing.Changed(card_id=card_id, base=base, current=purpose.base or "", mine=markdown)
        with db.write_sessions() as session:
            proposals.propose(
                session,
                catalogue=catalogue,
                card_id=card_id,
                proposer_id=person.id,
                markdown=markdown,
                reason=data.reason,
                per_hour=per_hour,
            )
    except (Invalid, Conflict) as error:
        return _saving_refused(
            request,
            catalogue,
            db=db,
            text=markdown,
            purpose=replace(purpose, base=base),
            error=error,
            reason=reason,
        )
    return RedirectResponse("/account#suggested-edits", status_code=303)
