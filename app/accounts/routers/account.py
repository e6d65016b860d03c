"""A person's own account (/account: their password and API tokens)."""

from typing import Any

from fastapi import APIRouter
from starlette.responses import HTMLResponse, Response

from app.accounts import passwords, service
from app.accounts.dependencies import BrowserDep, Visitor, VisitorDep, forget_signed_in
from app.accounts.middleware import Principal, lifetimes
from app.accounts.routers.sign_in import accounts_only, checked_password, signed_in
from app.exceptions import Invalid
from app.schemas import Id
from app.storage.dependencies import WriteSessionDep
from app.web.dependencies import FormDep
from app.web.panels import panels_of
from app.web.templating import render

router = APIRouter(tags=["accounts"])

WRONG_CURRENT = "that is not your current password"


def _account_page(
    visitor: Visitor, principal: Principal, *, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    panels = panels_of(visitor.request)
    with visitor.db.read_sessions() as session:
        tokens = service.tokens_of(session, principal.id)
        asks_password = service.has_password(session, principal.id)
        extras = panels.fill("account", session=session, user_id=principal.id)
    return render(
        visitor.request,
        "account.html",
        status_code=status_code,
        principal=principal,
        tokens=tokens,
        token_days=service.TOKEN_DAYS,
        max_token_days=service.MAX_TOKEN_DAYS,
        asks_password=asks_password,
        accounts=visitor.settings.auth_mode == "accounts",
        panels=extras,
        **extra,
    )


@router.get("/account", response_class=HTMLResponse)
def account_page(principal: BrowserDep, visitor: VisitorDep) -> HTMLResponse:
    return _account_page(visitor, principal)


def _current_password_or_invalid(
    visitor: Visitor, principal: Principal, *, password: str, field: str
) -> None:
    """Invalid unless `password` is the person's own: the check is throttled and audited like a
    sign-in (TooMany once too many were wrong)."""
    if checked_password(visitor, name=principal.name, password=password, purpose="password") is None:
        raise Invalid(field, WRONG_CURRENT)


@router.post("/account/password", response_class=HTMLResponse)
def change_password(form: FormDep, principal: BrowserDep, visitor: VisitorDep) -> Response:
    accounts_only(visitor.settings)
    current, new = str(form.get("current_password") or ""), str(form.get("new_password") or "")
    try:
        _current_password_or_invalid(visitor, principal, password=current, field="current_password")
        hashed = passwords.new_hash(new, principal.name)
    except Invalid as refused:
        return _account_page(visitor, principal, status_code=422, password_errors=[refused.message])
    with visitor.db.write_sessions() as session:
        signed = service.change_password(
            session,
            user_id=principal.id,
            password_hash=hashed,
            lifetimes=lifetimes(visitor.settings),
            address=visitor.address,
        )
    forget_signed_in(visitor.request)
    return signed_in(signed, target="/account", settings=visitor.settings)


def _token_days(text: str) -> int:
    try:
        return int(text or service.TOKEN_DAYS)
    except ValueError:
        raise Invalid("expires_days", f"a token lasts 1 to {service.MAX_TOKEN_DAYS} days") from None


@router.post("/account/tokens", response_class=HTMLResponse)
def create_token(form: FormDep, principal: BrowserDep, visitor: VisitorDep) -> HTMLResponse:
    """A new token, for a browser that gives the current password again (when there is one:
    people who sign in through OIDC or a proxy have none)."""
    with visitor.db.read_sessions() as session:
        has_password = service.has_password(session, principal.id)
    try:
        days = _token_days(str(form.get("expires_days") or ""))
        if has_password:
            password = str(form.get("password") or "")
            _current_password_or_invalid(visitor, principal, password=password, field="password")
        with visitor.db.write_sessions() as session:
            token = service.create_token(
                session,
                user_id=principal.id,
                name=str(form.get("name") or ""),
                days=days,
                address=visitor.address,
            )
    except Invalid as refused:
        return _account_page(visitor, principal, status_code=422, token_errors=[refused.message])
    return _account_page(visitor, principal, new_token=token)


@router.post("/account/tokens/{token_id}/revoke", response_class=HTMLResponse)
def revoke_token(
    token_id: Id, session: WriteSessionDep, principal: BrowserDep, visitor: VisitorDep
) -> HTMLResponse:
    service.revoke_token(session, user_id=principal.id, token_id=token_id, address=visitor.address)
    forget_signed_in(visitor.request)
    return _account_page(visitor, principal, revoked=True)
