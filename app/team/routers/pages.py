"""The team's pages: /team and a member's answers (leads and admins), assignments, the answer
privacy toggle everyone has (/account/privacy), and the audit log (/admin/audit, admins)."""

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.accounts import audit
from app.accounts.dependencies import AdminDep, CurrentPersonDep, LeadDep
from app.accounts.models import User
from app.accounts.service import account_named, all_users, user_by_id
from app.content.catalogue import Catalogue, Snapshot
from app.content.dependencies import CatalogueDep
from app.content.tiers import TIERS
from app.exceptions import DomainError
from app.interview.schemas import OUTCOMES
from app.schemas import Id, Searchable
from app.storage.base import utcnow
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.team import assignments, audit_log, interviews, members, service
from app.team.schemas import KINDS, MEMBER_SORTS, AssignmentIn, MemberSort, MemberView
from app.web.dependencies import FormDep
from app.web.errors import error_messages
from app.web.panels import Panel
from app.web.templating import is_htmx, render

router = APIRouter(tags=["team"])

MAX_PAGE = 100_000  # past any team: a larger number is a typo, refused as such


def assigned_panel(*, session: Session, user_id: int, snapshot: Snapshot, now: datetime) -> Panel | None:
    """The "Assigned to you" box /practice shows on top (app/factory.py hooks it in)."""
    assigned = assignments.open_for(session, user_id=user_id, snapshot=snapshot, now=now, kind="review")
    return Panel("_assigned_panel.html", {"assignments": assigned}) if assigned else None


def assigned_interviews_panel(
    *, session: Session, user_id: int, snapshot: Snapshot, now: datetime
) -> Panel | None:
    """The mock interviews a lead assigned the person, each a form that starts it, on /interview
    (app/factory.py hooks it in)."""
    assigned = assignments.open_for(session, user_id=user_id, snapshot=snapshot, now=now, kind="interview")
    return Panel("_assigned_interviews.html", {"interviews": assigned}) if assigned else None


def _dashboard(
    request: Request,
    session: Session,
    *,
    catalogue: Catalogue,
    view: MemberView = MemberView(),
    status_code: int = 200,
    **extra: Any,
) -> HTMLResponse:
    snapshot = catalogue.snapshot()
    now = utcnow()
    if is_htmx(request):
        # A sort header, the pager or the name filter: only the member table changes.
        table = service.member_table(session, snapshot=snapshot, view=view, now=now)
        return render(
            request, "_team_members.html", status_code=status_code, table=table, sorts=MEMBER_SORTS, now=now
        )
    dashboard = service.dashboard(session, snapshot=snapshot, view=view, now=now)
    return render(
        request,
        "team.html",
        status_code=status_code,
        dashboard=dashboard,
        table=dashboard.table,
        sorts=MEMBER_SORTS,
        choices=assignments.choices(snapshot),
        tiers=TIERS,
        kinds=KINDS,
        shown_assignments=assignments.SHOWN,
        now=now,
        **extra,
    )


@router.get("/team", response_class=HTMLResponse)
def team_page(
    request: Request,
    session: SessionDep,
    catalogue: CatalogueDep,
    _lead: LeadDep,
    sort: Annotated[MemberSort, Query(title="Sort")] = "name",
    q: Annotated[str, Query(max_length=80, title="Name contains"), Searchable] = "",
    page: Annotated[int, Query(ge=1, le=MAX_PAGE, title="Page")] = 1,
) -> HTMLResponse:
    """The dashboard; an htmx request (sorting, paging, filtering the members) gets the member table."""
    return _dashboard(request, session, catalogue=catalogue, view=MemberView(sort=sort, q=q, page=page))


@router.post("/team/assignments", response_class=HTMLResponse)
def assign(
    request: Request, form: FormDep, session: WriteSessionDep, catalogue: CatalogueDep, lead: LeadDep
) -> Response:
    # A field not sent takes its default (an older form has no kind); one sent empty is checked.
    fields = ("topic", "tier", "kind", "due", "member")
    submitted = {key: str(form.get(key) or "") for key in fields if key in form}
    submitted_cards = [str(card_id) for card_id in form.getlist("card_ids")]
    try:
        data = AssignmentIn.model_validate(submitted | {"card_ids": submitted_cards}, strict=False)
        assignments.create(session, snapshot=catalogue.snapshot(), data=data, by=lead.id, now=utcnow())
    except (ValidationError, DomainError) as refused:
        return _dashboard(
            request,
            session,
            catalogue=catalogue,
            status_code=422,
            errors=error_messages(refused),
            form=submitted | {"card_ids": submitted_cards},
        )
    return RedirectResponse("/team#assignments", status_code=303)


@router.post("/team/assignments/{assignment_id}/delete")
def unassign(assignment_id: Id, session: WriteSessionDep, _lead: LeadDep) -> Response:
    assignments.delete(session, assignment_id)
    return RedirectResponse("/team#assignments", status_code=303)


def _member_page(
    request: Request, session: Session, *, catalogue: Catalogue, member: User, own: bool, **extra: Any
) -> HTMLResponse:
    """What a lead sees of `member`; `own`: the member looking at it, with their privacy toggle."""
    snapshot = catalogue.snapshot()
    return render(
        request,
        "team_member.html",
        member=members.numbers(session, members=[member], snapshot=snapshot, now=utcnow())[0],
        attempts=members.seen_attempts(session, member=member, snapshot=snapshot),
        interviews=interviews.taken(session, member=member),
        own=own,
        **extra,
    )


@router.get("/team/members/{name}", response_class=HTMLResponse)
def member_page(
    request: Request, name: str, session: SessionDep, catalogue: CatalogueDep, _lead: LeadDep
) -> HTMLResponse:
    return _member_page(
        request, session, catalogue=catalogue, member=account_named(session, name=name), own=False
    )


@router.get("/team/members/{name}/interviews/{session_id}", response_class=HTMLResponse)
def member_interview(
    request: Request,
    name: str,
    session_id: Id,
    session: SessionDep,
    catalogue: CatalogueDep,
    _lead: LeadDep,
) -> HTMLResponse:
    """An assigned mock interview the member took: its summary's figures, and its answers where
    the member lets leads read them."""
    member = account_named(session, name=name)
    interview, summary = interviews.seen_summary(
        session, member=member, session_id=session_id, cards=catalogue.snapshot().cards
    )
    return render(
        request,
        "team_interview.html",
        member=member,
        interview=interview,
        summary=summary,
        outcomes=OUTCOMES,
        lead=True,
    )


@router.get("/account/privacy", response_class=HTMLResponse)
def privacy_page(
    request: Request, session: SessionDep, catalogue: CatalogueDep, principal: CurrentPersonDep
) -> HTMLResponse:
    """Whether leads may read your answer texts, beside what they see of you (/account loads the
    toggle from here)."""
    return _member_page(
        request, session, catalogue=catalogue, member=user_by_id(session, principal.id), own=True
    )


@router.post("/account/privacy", response_class=HTMLResponse)
def set_privacy(
    request: Request,
    form: FormDep,
    session: WriteSessionDep,
    catalogue: CatalogueDep,
    principal: CurrentPersonDep,
) -> HTMLResponse:
    user = members.set_hide_answers(session, user_id=principal.id, hide=form.get("hide_answers") == "true")
    return _member_page(request, session, catalogue=catalogue, member=user, own=True, saved=True)


@router.get("/admin/audit", response_class=HTMLResponse)
def audit_page(
    request: Request,
    session: SessionDep,
    _admin: AdminDep,
    kind: Annotated[str, Query(max_length=32)] = "",
    person: Annotated[str, Query(max_length=80)] = "",
) -> HTMLResponse:
    return render(
        request,
        "audit.html",
        entries=audit_log.entries(session, kind=kind, person=person),
        kinds=audit.KINDS,
        people=[user.name for user in all_users(session)],
        kind=kind,
        person=person,
        limit=audit_log.LIMIT,
    )
