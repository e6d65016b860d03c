"""Signing in and out, invites, a person's own account (password, API tokens), the admin's user
list, and GET /api/me."""

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.accounts import names, passwords, service, throttle
from app.accounts.dependencies import AdminDep, BrowserAdminDep, BrowserDep, CurrentPersonDep
from app.accounts.middleware import SESSION_COOKIE, Principal, lifetimes
from app.accounts.models import User
from app.exceptions import Conflict, DomainError, Invalid, NotFound, TooMany
from app.roles import ROLES
from app.schemas import Id
from app.settings import Settings
from app.storage.database import Database
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep, client_address
from app.web.templating import render

router = APIRouter(tags=["accounts"])


class MeOut(BaseModel):
    name: str
    role: str


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


# The one address helper every route uses (ClientAddressDep is the same function).
_address = client_address


def _forget_signed_in(request: Request) -> None:
    """Sign-ins remembered by the middleware end now, not a moment later."""
    request.app.state.signed_in.clear()


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a path on this site, never another one ("//evil", "https:")."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    parts = urlsplit(target)
    return "/" if parts.scheme or parts.netloc else target


def _accounts_only(request: Request) -> None:
    if _settings(request).auth_mode != "accounts":
        raise NotFound(f"this server signs people in another way (AUTH_MODE={_settings(request).auth_mode})")


# --- signing in ---------------------------------------------------------------------------------


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str = "/") -> HTMLResponse:
    _accounts_only(request)
    return render(request, "login.html", next=safe_next(next), oidc=_settings(request).oidc_enabled)


def _checked_password(request: Request, name: str, password: str, purpose: str) -> int | None:
    """The id of `name` if `password` is theirs (throttled, and the failure audited: see
    app/accounts/throttle.py). Opens its own short write sessions: the route holds none while
    argon2 runs."""
    settings = _settings(request)
    db: Database = request.app.state.db
    return throttle.checked_password(
        db.write_sessions,
        name=name,
        password=password,
        address=_address(request),
        device=throttle.trusted_device(
            settings.secret_key, request.cookies.get(throttle.DEVICE_COOKIE), name
        ),
        purpose=purpose,
        sign_ins_per_address=settings.sign_ins_per_address,
    )


@router.post("/login", response_class=HTMLResponse)
def sign_in(
    request: Request,
    username: Annotated[str, Form(max_length=80)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    _accounts_only(request)
    try:
        user_id = _checked_password(request, username.strip(), password, "sign_in")
        if user_id is None:
            raise service.SignInRefused()
    except DomainError as refused:
        status = 429 if isinstance(refused, TooMany) else 401
        headers = {"Retry-After": str(refused.retry_after)} if isinstance(refused, TooMany) else None
        response = render(
            request,
            "login.html",
            status_code=status,
            next=safe_next(next),
            username=username,
            errors=[refused.message],
            oidc=_settings(request).oidc_enabled,
        )
        if headers:
            response.headers.update(headers)
        return response
    with request.app.state.db.write_sessions() as session:
        return start_signed_in(request, session, session.get(User, user_id), next, how="password")


def _set_cookie(response: Response, name: str, value: str, max_age: int, settings: Settings) -> None:
    response.set_cookie(
        name, value, max_age=max_age, httponly=True, samesite="lax", secure=settings.is_production, path="/"
    )


def start_signed_in(request: Request, session: Any, user: Any, target: str | None, how: str) -> Response:
    """Open a session for `user`, set its cookie and go where they were going. The browser also
    gets a device cookie naming them: its wrong passwords are then counted apart from strangers'."""
    settings = _settings(request)
    token = service.start_session(session, user, lifetimes(settings), _address(request), how=how)
    session.commit()
    response = RedirectResponse(safe_next(target), status_code=303)
    _set_cookie(response, SESSION_COOKIE, token, int(settings.session_max_days * 86400), settings)
    device = throttle.device_cookie(settings.secret_key, user.name)
    _set_cookie(response, throttle.DEVICE_COOKIE, device, throttle.DEVICE_MAX_AGE_SECONDS, settings)
    return response


@router.post("/logout")
def sign_out(request: Request, session: WriteSessionDep) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        service.end_session(session, token, _address(request))
        session.commit()
        _forget_signed_in(request)
    response = RedirectResponse(
        "/login" if _settings(request).auth_mode == "accounts" else "/", status_code=303
    )
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


# --- invites ------------------------------------------------------------------------------------


@router.get("/invite/{token}", response_class=HTMLResponse)
def invite_page(request: Request, token: str, session: SessionDep) -> HTMLResponse:
    _accounts_only(request)
    invite = service.open_invite(session, token)
    return render(request, "invite.html", token=token, role=ROLES[invite.role])


@router.post("/invite/{token}", response_class=HTMLResponse)
def accept_invite(request: Request, token: str, form: FormDep) -> Response:
    """Hashes the password before the write begins: argon2 never holds the database's writer.
    A link that opens nothing is refused first, at the cost of a read, not of a hash."""
    _accounts_only(request)
    db: Database = request.app.state.db
    name, password = str(form.get("username") or "").strip(), str(form.get("password") or "")
    with db.read_sessions() as session:
        role = ROLES[service.open_invite(session, token).role]
    try:
        names.check_name(name)
        hashed = passwords.new_hash(password, name)
        with db.write_sessions() as session:
            user = service.redeem_invite(session, token, name, hashed, _address(request))
            return start_signed_in(request, session, user, "/", how="invite")
    except NotFound:
        raise
    except DomainError as refused:
        return render(
            request,
            "invite.html",
            status_code=422,
            token=token,
            role=role,
            username=name,
            errors=[refused.message],
        )


# --- one's own account ---------------------------------------------------------------------------


def _account_page(
    request: Request, principal: Principal, status_code: int = 200, **extra: Any
) -> HTMLResponse:
    with request.app.state.db.read_sessions() as session:
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
        accounts=_settings(request).auth_mode == "accounts",
        **extra,
    )


@router.get("/account", response_class=HTMLResponse)
def account_page(request: Request, principal: BrowserDep) -> HTMLResponse:
    return _account_page(request, principal)


WRONG_CURRENT = "that is not your current password"


def _current_password_or_invalid(request: Request, principal: Principal, password: str, field: str) -> None:
    """Invalid unless `password` is the person's own: the check is throttled and audited like a
    sign-in (TooMany once too many were wrong)."""
    if _checked_password(request, principal.name, password, "password") is None:
        raise Invalid(field, WRONG_CURRENT)


@router.post("/account/password", response_class=HTMLResponse)
def change_password(request: Request, form: FormDep, principal: BrowserDep) -> Response:
    _accounts_only(request)
    current, new = str(form.get("current_password") or ""), str(form.get("new_password") or "")
    try:
        _current_password_or_invalid(request, principal, current, "current_password")
        hashed = passwords.new_hash(new, principal.name)
    except Invalid as refused:
        return _account_page(request, principal, 422, password_errors=[refused.message])
    with request.app.state.db.write_sessions() as session:
        user = session.get(User, principal.id)
        assert user is not None  # its password was just checked
        service.set_password(session, user, hashed, address=_address(request))
        session.commit()
        _forget_signed_in(request)
        # Changing the password signed every browser out, this one too: sign it back in.
        return start_signed_in(request, session, user, "/account", how="password")


def _token_days(text: str) -> int:
    try:
        return int(text or service.TOKEN_DAYS)
    except ValueError:
        raise Invalid("expires_days", f"a token lasts 1 to {service.MAX_TOKEN_DAYS} days") from None


@router.post("/account/tokens", response_class=HTMLResponse)
def create_token(request: Request, form: FormDep, principal: BrowserDep) -> HTMLResponse:
    """A new token, for a browser that gives the current password again (when there is one:
    people who sign in through OIDC or a proxy have none)."""
    db: Database = request.app.state.db
    with db.read_sessions() as session:
        has_password = service.has_password(session, principal.id)
    try:
        days = _token_days(str(form.get("expires_days") or ""))
        if has_password:
            _current_password_or_invalid(request, principal, str(form.get("password") or ""), "password")
        with db.write_sessions() as session:
            user = session.get(User, principal.id)
            assert user is not None
            token = service.create_token(
                session, user, str(form.get("name") or ""), days=days, address=_address(request)
            )
            session.commit()
    except Invalid as refused:
        return _account_page(request, principal, 422, token_errors=[refused.message])
    return _account_page(request, principal, new_token=token)


@router.post("/account/tokens/{token_id}/revoke", response_class=HTMLResponse)
def revoke_token(
    request: Request, token_id: Id, session: WriteSessionDep, principal: BrowserDep
) -> HTMLResponse:
    service.revoke_token(session, principal.id, token_id, _address(request))
    session.commit()
    _forget_signed_in(request)
    return _account_page(request, principal, revoked=True)


@router.get("/api/me", tags=["api"])
def me(principal: CurrentPersonDep) -> MeOut:
    """Who you are signed in as, and your role."""
    return MeOut(name=principal.name, role=principal.role)


# --- the admin's user list -------------------------------------------------------------------------


def _users_page(request: Request, session: Any, status_code: int = 200, **extra: Any) -> HTMLResponse:
    return render(
        request,
        "admin_users.html",
        status_code=status_code,
        users=service.all_users(session),
        roles=list(ROLES.values()),
        accounts=_settings(request).auth_mode == "accounts",
        **extra,
    )


@router.get("/admin/users", response_class=HTMLResponse)
def users_page(request: Request, session: SessionDep, _admin: AdminDep) -> HTMLResponse:
    return _users_page(request, session)


@router.post("/admin/users/{name}", response_class=HTMLResponse)
def change_user(
    request: Request, name: str, form: FormDep, session: WriteSessionDep, admin: BrowserAdminDep
) -> HTMLResponse:
    """Set a person's role, or disable or enable them; never leaves the server without an admin."""
    try:
        service.change_person(
            session,
            name=name,
            role=str(form["role"]) if "role" in form else None,
            disabled=form["disabled"] == "true" if "disabled" in form else None,
            actor_id=admin.id,
            address=_address(request),
        )
    except NotFound:
        raise
    except DomainError as refused:
        session.rollback()
        return _users_page(
            request, session, 409 if isinstance(refused, Conflict) else 422, errors=[refused.message]
        )
    session.commit()
    _forget_signed_in(request)
    return _users_page(request, session, saved=f"Saved {name}.")


@router.post("/admin/invites", response_class=HTMLResponse)
def invite(request: Request, form: FormDep, session: WriteSessionDep, admin: BrowserAdminDep) -> HTMLResponse:
    _accounts_only(request)
    try:
        days = float(str(form.get("expires_days") or "7"))
        token = service.create_invite(
            session, str(form.get("role") or "member"), days, admin.id, _address(request)
        )
    except (ValueError, DomainError) as refused:
        message = (
            refused.message if isinstance(refused, DomainError) else "expires_days must be a number of days"
        )
        return _users_page(request, session, 422, errors=[message])
    session.commit()
    return _users_page(request, session, invite_url=f"{request.base_url}invite/{token}")
