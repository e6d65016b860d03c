"""Signing in and out (/login, /logout) and accepting an invite (/invite/…), and what every way
of signing in ends with: the session's cookie, the device cookie, and going where they were going."""

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.accounts import names, passwords, service, throttle
from app.accounts.dependencies import Visitor, VisitorDep, forget_signed_in
from app.accounts.middleware import SESSION_COOKIE, lifetimes
from app.exceptions import DomainError, NotFound
from app.roles import ROLES
from app.settings import Settings
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import ClientAddressDep, FormDep, SettingsDep
from app.web.errors import headers_of, status_of
from app.web.templating import render

router = APIRouter(tags=["accounts"])


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a path on this site, never another one ("//evil", "https:")."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return "/"
    parts = urlsplit(target)
    return "/" if parts.scheme or parts.netloc else target


def accounts_only(settings: Settings) -> None:
    if settings.auth_mode != "accounts":
        raise NotFound(f"this server signs people in another way (AUTH_MODE={settings.auth_mode})")


def checked_password(visitor: Visitor, *, name: str, password: str, purpose: str) -> int | None:
    """The id of `name` if `password` is theirs (throttled, and the failure audited: see
    app/accounts/throttle.py). Opens its own short write sessions: the route holds none while
    argon2 runs."""
    settings = visitor.settings
    return throttle.checked_password(
        visitor.db.write_sessions,
        name=name,
        password=password,
        address=visitor.address,
        device=throttle.trusted_device(
            settings.secret_key, cookie=visitor.request.cookies.get(throttle.DEVICE_COOKIE), name=name
        ),
        purpose=purpose,
        sign_ins_per_address=settings.sign_ins_per_address,
    )


def _set_cookie(response: Response, *, name: str, value: str, max_age: int, settings: Settings) -> None:
    response.set_cookie(
        name, value, max_age=max_age, httponly=True, samesite="lax", secure=settings.is_production, path="/"
    )


def signed_in(signed: service.SignIn, *, target: str | None, settings: Settings) -> Response:
    """Set the new session's cookie and go where they were going. The browser also gets a device
    cookie naming them: its wrong passwords are then counted apart from strangers'."""
    response = RedirectResponse(safe_next(target), status_code=303)
    session_age = int(settings.session_max_days * 86400)
    _set_cookie(response, name=SESSION_COOKIE, value=signed.token, max_age=session_age, settings=settings)
    device = throttle.device_cookie(settings.secret_key, signed.name)
    device_age = throttle.DEVICE_MAX_AGE_SECONDS
    _set_cookie(response, name=throttle.DEVICE_COOKIE, value=device, max_age=device_age, settings=settings)
    return response


# --- signing in ---------------------------------------------------------------------------------


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, settings: SettingsDep, next: str = "/") -> HTMLResponse:
    accounts_only(settings)
    return render(request, "login.html", next=safe_next(next), oidc=settings.oidc_enabled)


@router.post("/login", response_class=HTMLResponse)
def sign_in(
    visitor: VisitorDep,
    username: Annotated[str, Form(max_length=80)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    settings = visitor.settings
    accounts_only(settings)
    try:
        user_id = checked_password(visitor, name=username.strip(), password=password, purpose="sign_in")
        if user_id is None:
            raise service.SignInRefused()
    except DomainError as refused:
        # A wrong name or password means "not signed in"; any other refusal reads as the table says.
        status = 401 if isinstance(refused, service.SignInRefused) else status_of(refused)
        response = render(
            visitor.request,
            "login.html",
            status_code=status,
            next=safe_next(next),
            username=username,
            errors=[refused.message],
            oidc=settings.oidc_enabled,
        )
        response.headers.update(headers_of(refused) or {})
        return response
    with visitor.db.write_sessions() as session:
        signed = service.sign_in(
            session, user_id=user_id, lifetimes=lifetimes(settings), address=visitor.address
        )
    return signed_in(signed, target=next, settings=settings)


@router.post("/logout")
def sign_out(
    request: Request, session: WriteSessionDep, settings: SettingsDep, address: ClientAddressDep
) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        service.end_session(session, token=token, address=address)
        forget_signed_in(request)
    response = RedirectResponse("/login" if settings.auth_mode == "accounts" else "/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


# --- invites ------------------------------------------------------------------------------------


@router.get("/invite/{token}", response_class=HTMLResponse)
def invite_page(request: Request, token: str, session: SessionDep, settings: SettingsDep) -> HTMLResponse:
    accounts_only(settings)
    invite = service.open_invite(session, token=token)
    return render(request, "invite.html", token=token, role=ROLES[invite.role])


@router.post("/invite/{token}", response_class=HTMLResponse)
def accept_invite(token: str, form: FormDep, visitor: VisitorDep) -> Response:
    """Hashes the password before the write begins: argon2 never holds the database's writer.
    A link that opens nothing is refused first, at the cost of a read, not of a hash."""
    accounts_only(visitor.settings)
    name, password = str(form.get("username") or "").strip(), str(form.get("password") or "")
    with visitor.db.read_sessions() as session:
        role = ROLES[service.open_invite(session, token=token).role]
    try:
        names.check_name(name)
        hashed = passwords.new_hash(password, name)
        with visitor.db.write_sessions() as session:
            signed = service.redeem_invite(
                session,
                token=token,
                name=name,
                password_hash=hashed,
                lifetimes=lifetimes(visitor.settings),
                address=visitor.address,
            )
    except NotFound:
        raise
    except DomainError as refused:
        return render(
            visitor.request,
            "invite.html",
            status_code=422,
            token=token,
            role=role,
            username=name,
            errors=[refused.message],
        )
    return signed_in(signed, target="/", settings=visitor.settings)
