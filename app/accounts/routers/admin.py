"""The admin's user list (/admin/users): people's roles and standing, and invites."""

from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy.orm import Session
from starlette.responses import HTMLResponse

from app.accounts import service
from app.accounts.dependencies import BrowserAdminDep, Visitor, VisitorDep, forget_signed_in
from app.accounts.routers.sign_in import accounts_only
from app.exceptions import DomainError, NotFound
from app.roles import ROLES, role_named
from app.settings import Settings
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep, SettingsDep
from app.web.errors import status_of
from app.web.panels import panels_of
from app.web.templating import render

router = APIRouter(tags=["accounts"])


def _link_base(request: Request, settings: Settings) -> str:
    """The address people open, which the invite links this page hands out are built on."""
    return settings.public_url or str(request.base_url)


def _users_page(
    request: Request, session: Session, *, settings: Settings, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    accounts = settings.auth_mode == "accounts"
    base = _link_base(request, settings)
    pending = service.pending_invites(session, secret=settings.secret_key) if accounts else []
    return render(
        request,
        "admin_users.html",
        status_code=status_code,
        users=service.all_users(session),
        roles=list(ROLES.values()),
        accounts=accounts,
        pending=[(invite, invite.token and service.invite_url(base, invite.token)) for invite in pending],
        panels=panels_of(request).fill("admin", settings=settings),
        **extra,
    )


def _answer(visitor: Visitor, session: Session, *, status_code: int = 200, **extra: Any) -> HTMLResponse:
    """The user list again, after a change or its refusal."""
    return _users_page(visitor.request, session, settings=visitor.settings, status_code=status_code, **extra)


@router.get("/admin/users", response_class=HTMLResponse)
def users_page(
    request: Request, session: SessionDep, _admin: BrowserAdminDep, settings: SettingsDep
) -> HTMLResponse:
    """People, roles and the pending invites' links: a signed-in browser's only, since redeeming
    an invite would give an API token's holder a session that does what tokens are refused."""
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
    role, days_text = str(form.get("role") or "member"), str(form.get("expires_days") or "7")
    # The form shows what was sent, made or refused, rather than jumping back to its defaults.
    known = role_named(role)
    chosen: dict[str, Any] = {"invite_role": known.name if known else "member", "invite_days": days_text}
    try:
        made = service.create_invite(
            session,
            role=role,
            days=float(days_text),
            secret=visitor.settings.secret_key,
            actor_id=admin.id,
            address=visitor.address,
        )
    except (ValueError, DomainError) as refused:
        message = (
            refused.message if isinstance(refused, DomainError) else "expires_days must be a number of days"
        )
        return _answer(visitor, session, status_code=422, errors=[message], **chosen)
    link = service.invite_url(_link_base(visitor.request, visitor.settings), made.token)
    return _answer(visitor, session, invite_url=link, **chosen)


@router.post("/admin/invites/{invite_id}/revoke", response_class=HTMLResponse)
def revoke_invite(
    invite_id: str, session: WriteSessionDep, admin: BrowserAdminDep, visitor: VisitorDep
) -> HTMLResponse:
    """End a pending invite: its link signs nobody up from now on."""
    accounts_only(visitor.settings)
    try:
        role = service.revoke_invite(session, invite_id=invite_id, actor_id=admin.id, address=visitor.address)
    except NotFound:
        raise
    except DomainError as refused:
        return _answer(visitor, session, status_code=status_of(refused), errors=[refused.message])
    return _answer(visitor, session, saved=f"Revoked the {role.label} invite: its link opens nothing now.")
