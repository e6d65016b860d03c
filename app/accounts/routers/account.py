"""A person's own account (/account: their password and API tokens) and GET /api/me."""

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.responses import HTMLResponse, Response

from app.accounts import passwords, service
from app.accounts.dependencies import BrowserDep, CurrentPersonDep
from app.accounts.middleware import Principal, lifetimes
from app.accounts.routers.sign_in import accounts_only, checked_password, forget_signed_in, signed_in
from app.exceptions import Invalid
from app.schemas import Id
from app.settings import Settings
from app.storage.database import Database
from app.storage.dependencies import DatabaseDep, WriteSessionDep
from app.web.dependencies import ClientAddressDep, FormDep, SettingsDep
from app.web.templating import render

router = APIRouter(tags=["accounts"])

WRONG_CURRENT = "that is not your current password"


class MeOut(BaseModel):
    name: str
    role: str


def _account_page(
    request: Request,
    principal: Principal,
    *,
    db: Database,
    settings: Settings,
    status_code: int = 200,
    **extra: Any,
) -> HTMLResponse:
    with db.read_sessions() as session:
        tokens = service.tokens_of(session, principal.id)
        asks_password = service.has_password(session, principal.id)
    return render(
        request,
        "account.html",
        status_code=status_code,
        principal=principal,
        tokens=tokens,
        token_days=service.TOKEN_DAYS,
        max_token_days=service.MAX_TOKEN_DAYS,
        asks_password=asks_password,
        accounts=settings.auth_mode == "accounts",
        **extra,
    )


@router.get("/account", response_class=HTMLResponse)
def account_page(
    request: Request, principal: BrowserDep, db: DatabaseDep, settings: SettingsDep
) -> HTMLResponse:
    return _account_page(request, principal, db=db, settings=settings)


def _current_password_or_invalid(
    request: Request,
    principal: Principal,
    *,
    settings: Settings,
    db: Database,
    address: str | None,
    password: str,
    field: str,
) -> None:
    """Invalid unless `password` is the person's own: the check is throttled and audited like a
    sign-in (TooMany once too many were wrong)."""
    user_id = checked_password(
        request,
        settings=settings,
        db=db,
        address=address,
        name=principal.name,
        password=password,
        purpose="password",
    )
    if user_id is None:
        raise Invalid(field, WRONG_CURRENT)


@router.post("/account/password", response_class=HTMLResponse)
def change_password(
    request: Request,
    form: FormDep,
    principal: BrowserDep,
    settings: SettingsDep,
    db: DatabaseDep,
    address: ClientAddressDep,
) -> Response:
    accounts_only(settings)
    current, new = str(form.get("current_password") or ""), str(form.get("new_password") or "")
    try:
        _current_password_or_invalid(
            request,
            principal,
            settings=settings,
            db=db,
            address=address,
            password=current,
            field="current_password",
        )
        hashed = passwords.new_hash(new, principal.name)
    except Invalid as refused:
        return _account_page(
            request, principal, db=db, settings=settings, status_code=422, password_errors=[refused.message]
        )
    with db.write_sessions() as session:
        signed = service.change_password(
            session,
            user_id=principal.id,
            password_hash=hashed,
            lifetimes=lifetimes(settings),
            address=address,
        )
    forget_signed_in(request)
    return signed_in(signed, target="/account", settings=settings)


def _token_days(text: str) -> int:
    try:
        return int(text or service.TOKEN_DAYS)
    except ValueError:
        raise Invalid("expires_days", f"a token lasts 1 to {service.MAX_TOKEN_DAYS} days") from None


@router.post("/account/tokens", response_class=HTMLResponse)
def create_token(
    request: Request,
    form: FormDep,
    principal: BrowserDep,
    settings: SettingsDep,
    db: DatabaseDep,
    address: ClientAddressDep,
) -> HTMLResponse:
    """A new token, for a browser that gives the current password again (when there is one:
    people who sign in through OIDC or a proxy have none)."""
    with db.read_sessions() as session:
        has_password = service.has_password(session, principal.id)
    try:
        days = _token_days(str(form.get("expires_days") or ""))
        if has_password:
            _current_password_or_invalid(
                request,
                principal,
                settings=settings,
                db=db,
                address=address,
                password=str(form.get("password") or ""),
                field="password",
            )
        with db.write_sessions() as session:
            token = service.create_token(
                session, principal.id, name=str(form.get("name") or ""), days=days, address=address
            )
    except Invalid as refused:
        return _account_page(
            request, principal, db=db, settings=settings, status_code=422, token_errors=[refused.message]
        )
    return _account_page(request, principal, db=db, settings=settings, new_token=token)


@router.post("/account/tokens/{token_id}/revoke", response_class=HTMLResponse)
def revoke_token(
    request: Request,
    token_id: Id,
    session: WriteSessionDep,
    principal: BrowserDep,
    settings: SettingsDep,
    db: DatabaseDep,
    address: ClientAddressDep,
) -> HTMLResponse:
    service.revoke_token(session, user_id=principal.id, token_id=token_id, address=address)
    forget_signed_in(request)
    return _account_page(request, principal, db=db, settings=settings, revoked=True)


@router.get("/api/me", tags=["api"])
def me(principal: CurrentPersonDep) -> MeOut:
    """Who you are signed in as, and your role."""
    return MeOut(name=principal.name, role=principal.role)
