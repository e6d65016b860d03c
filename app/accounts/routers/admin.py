"""The admin's user list (/admin/users): people's roles and standing, and invites."""

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy.orm import Session
from starlette.responses import HTMLResponse

from app.accounts import service
from app.accounts.dependencies import AdminDep, BrowserAdminDep, Visitor, VisitorDep, forget_signed_in
from app.accounts.routers.sign_in import accounts_only
from app.exceptions import DomainError, NotFound
from app.roles import ROLES
from app.settings import Settings
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep, SettingsDep
from app.web.errors import status_of
from app.web.templating import render

router = APIRouter(tags=["accounts"])


def _users_page(
    request: Request, session: Session, *, settings: Settings, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    return render(
        request,
        "admin_users.html",
        status_code=status_code,
        users=service.all_users(session),
        roles=list(ROLES.values()),
        accounts=settings.auth_mode == "accounts",
        **extra,
    )


def _answer(visitor: Visitor, session: Session, *, status_code: int = 200, **extra: Any) -> HTMLResponse:
    """The user list again, after a change or its refusal."""
    return _users_page(visitor.request, session, settings=visitor.settings, status_code=status_code, **extra)


@router.get("/admin/users", response_class=HTMLResponse)
def users_page(
    request: Request, session: SessionDep, _admin: AdminDep, settings: SettingsDep
) -> HTMLResponse:
    return _users_page(request, session, settings=settings)


@router.post("/admin/users/{name}", response_class=HTMLResponse)
def change_user(
    name: str, form: FormDep, session: WriteSessionDep, admin: BrowserAdminDep, visitor: VisitorDep
) -> HTMLResponse:
    """Set a person's role, or disable or enable them; never leaves the server without an admin."""
    try:
        service.change_person(
            session,
            name=name,
            role=str(form["role"]) if "role" in form else None,
            disabled=form["disabled"] == "true" if "disabled" in form else None,
            actor_id=admin.id,
            address=visitor.address,
        )
    except NotFound:
        raise
    except DomainError as refused:
        return _answer(visitor, session, status_code=status_of(refused), errors=[refused.message])
    forget_signed_in(visitor.request)
    return _answer(visitor, session, saved=f"Saved {name}.")


@router.post("/admin/invites", response_class=HTMLResponse)
def invite(
    form: FormDep, session: WriteSessionDep, admin: BrowserAdminDep, visitor: VisitorDep
) -> HTMLResponse:
    accounts_only(visitor.settings)
    try:
        days = float(str(form.get("expires_days") or "7"))
        token = service.create_invite(
            session,
            role=str(form.get("role") or "member"),
            days=days,
            actor_id=admin.id,
            address=visitor.address,
        )
    except (ValueError, DomainError) as refused:
        message = (
            refused.message if isinstance(refused, DomainError) else "expires_days must be a number of days"
        )
        return _answer(visitor, session, status_code=422, errors=[message])
    return _answer(visitor, session, invite_url=f"{visitor.request.base_url}invite/{token}")
