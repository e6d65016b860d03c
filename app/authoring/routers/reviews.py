"""/author/reviews: the suggested edits waiting for an author, and one edit's review: the
markdown and the rendered card side by side, the checks the new text passes or fails, what it
does to recorded answers, the comments, and accept (optionally after editing) or decline."""

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import TypeAdapter, ValidationError
from sqlalchemy.orm import Session
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.authoring import editing, proposals, service
from app.authoring.dependencies import AuthorDep
from app.authoring.diff import changed_sections, side_by_side
from app.authoring.models import Proposal
from app.authoring.schemas import CommentIn, DeclineIn, StoredCardText
from app.content.catalogue import Catalogue, Snapshot
from app.content.dependencies import CatalogueDep
from app.exceptions import Conflict, DomainError, Invalid, NotFound
from app.schemas import Id
from app.storage.database import Database
from app.storage.dependencies import DatabaseDep, SessionDep
from app.web.dependencies import FormDep
from app.web.errors import status_of
from app.web.messages import form_messages
from app.web.panels import Panel
from app.web.templating import render

router = APIRouter(tags=["pages"])

UNREADABLE = "The form could not be read; send it again"
# How many decided edits the queue shows below the open ones.
DECIDED_SHOWN = 20
# A person's own suggested edits on their account page.
MINE_SHOWN = 10


@router.get("/author/reviews", response_class=HTMLResponse)
def reviews_page(request: Request, _author: AuthorDep, session: SessionDep) -> HTMLResponse:
    """The newest open edits, then the newest decided ones."""
    waiting = proposals.listed(session, status="open")
    decided = proposals.decided_lately(session, limit=DECIDED_SHOWN)
    named = proposals.names(
        session, [p.proposer_id for p in waiting + decided] + [p.reviewer_id for p in decided]
    )
    return render(
        request,
        "reviews.html",
        waiting=waiting,
        decided=decided,
        names=named,
        open_total=proposals.open_count(session),
    )


def _review(
    request: Request,
    catalogue: Catalogue,
    *,
    db: Database,
    proposal_id: int,
    text: str | None = None,
    errors: list[str] | None = None,
    status_code: int = 200,
    changed: editing.Changed | None = None,
) -> HTMLResponse:
    with db.read_sessions() as session:
        proposal = proposals.get(session, proposal_id=proposal_id)
        named = proposals.names(
            session, [proposal.proposer_id, proposal.reviewer_id, *(c.author_id for c in proposal.comments)]
        )
        cards = proposals.cards_of(proposal)
        history = proposals.history_change(session, proposal=proposal, cards=cards)
        comments = list(proposal.comments)
    snapshot = catalogue.snapshot()
    checks = service.preview(text or proposal.markdown, {**snapshot.drafts, **snapshot.cards})
    current = _current(snapshot, proposal)
    return render(
        request,
        "review.html",
        status_code=status_code,
        proposal=proposal,
        names=named,
        comments=comments,
        rows=side_by_side(proposal.base, proposal.markdown),
        sections=changed_sections(*cards) if cards else [],
        checks=checks,
        history=history,
        text=text if text is not None else proposal.markdown,
        errors=errors,
        # The card as it is now when it changed since the edit was proposed (None: unchanged or gone).
        moved=side_by_side(proposal.base, current) if current not in (None, proposal.base) else None,
        seen=current,
        deleted=current is None,
        changed=changed,
    )


def _current(snapshot: Snapshot, proposal: Proposal) -> str | None:
    try:
        return editing.source(snapshot, proposal.card_id).text
    except NotFound:
        return None


@router.get("/author/reviews/{proposal_id}", response_class=HTMLResponse)
def review_page(
    request: Request, _author: AuthorDep, catalogue: CatalogueDep, db: DatabaseDep, proposal_id: Id
) -> HTMLResponse:
    return _review(request, catalogue, db=db, proposal_id=proposal_id)


@dataclass
class Reviewing:
    """What a reviewer's form post needs: the form, read first, then who, where and which edit."""

    request: Request
    form: FormDep
    author: AuthorDep
    catalogue: CatalogueDep
    db: DatabaseDep
    proposal_id: Id

    def again(self, errors: list[str], *, status_code: int, **shown: Any) -> HTMLResponse:
        """The edit's page once more, saying why the post was refused."""
        return _review(
            self.request,
            self.catalogue,
            db=self.db,
            proposal_id=self.proposal_id,
            errors=errors,
            status_code=status_code,
            **shown,
        )

    def done(self, anchor: str = "") -> Response:
        return RedirectResponse(f"/author/reviews/{self.proposal_id}{anchor}", status_code=303)


ReviewingDep = Annotated[Reviewing, Depends()]


def _refused(reviewing: Reviewing, error: DomainError, **shown: Any) -> HTMLResponse:
    return reviewing.again([str(error)], status_code=status_of(error), **shown)


@router.post("/author/reviews/{proposal_id}/comment", response_class=HTMLResponse)
def comment(reviewing: ReviewingDep) -> Response:
    try:
        data = CommentIn.model_validate({"text": reviewing.form.get("text", "")}, strict=False)
    except ValidationError as error:
        return reviewing.again(form_messages(error, {"text": "The comment"}, UNREADABLE), status_code=422)
    with reviewing.db.write_sessions() as session:
        proposals.comment(
            session, proposal_id=reviewing.proposal_id, author_id=reviewing.author.id, text=data.text
        )
    return reviewing.done("#comments")


_MARKDOWN: TypeAdapter[str] = TypeAdapter(StoredCardText)


@router.post("/author/reviews/{proposal_id}/accept", response_class=HTMLResponse)
def accept(reviewing: ReviewingDep) -> Response:
    """Write the edit (as the reviewer left it in the box) over the card."""
    try:
        text = service.as_typed(_MARKDOWN.validate_python(reviewing.form.get("markdown", ""), strict=False))
    except ValidationError as error:
        return reviewing.again(
            form_messages(error, {"markdown": "The card's markdown"}, UNREADABLE), status_code=422
        )
    seen = reviewing.form.get("seen")
    try:
        with reviewing.db.write_sessions() as session:
            proposals.accept(
                session,
                catalogue=reviewing.catalogue,
                proposal_id=reviewing.proposal_id,
                reviewer_id=reviewing.author.id,
                reviewer=reviewing.author.name,
                markdown=text,
                seen=seen if isinstance(seen, str) else None,
            )
    except editing.Changed as changed:
        return _refused(reviewing, changed, text=text, changed=changed)
    except (Invalid, Conflict) as error:
        return _refused(reviewing, error, text=text)
    return reviewing.done()


@router.post("/author/reviews/{proposal_id}/decline", response_class=HTMLResponse)
def decline(reviewing: ReviewingDep) -> Response:
    try:
        data = DeclineIn.model_validate({"reason": reviewing.form.get("reason", "")}, strict=False)
    except ValidationError as error:
        return reviewing.again(form_messages(error, {"reason": "Why not"}, UNREADABLE), status_code=422)
    try:
        with reviewing.db.write_sessions() as session:
            proposals.decline(
                session,
                proposal_id=reviewing.proposal_id,
                reviewer_id=reviewing.author.id,
                reason=data.reason,
            )
    except Conflict as error:
        return _refused(reviewing, error)
    return reviewing.done()


def suggested_edits_panel(*, session: Session, user_id: int) -> Panel | None:
    """The person's own suggested edits and what became of them, on /account (app/factory.py
    hooks it in); nothing when they never suggested one."""
    mine = proposals.listed(session, proposer_id=user_id)[:MINE_SHOWN]
    if not mine:
        return None
    named = proposals.names(
        session, [p.reviewer_id for p in mine] + [c.author_id for p in mine for c in p.comments]
    )
    return Panel("_suggested_edits.html", {"proposals": mine, "names": named})
