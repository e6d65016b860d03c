"""/auth/oidc/login and /auth/oidc/callback: signing in through the organisation's OpenID provider.

Served only when OIDC is configured (Settings.oidc_enabled); otherwise both are 404. A failed
sign-in is a page saying why, with a 4xx status (503 when the provider cannot be reached), and
stores nothing: no person, no session, no audit entry.
"""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import RedirectResponse, Response

from app.accounts import openid, service
from app.accounts.middleware import lifetimes
from app.accounts.routers.sign_in import safe_next, signed_in
from app.exceptions import DomainError, NotFound
from app.settings import Settings
from app.storage.dependencies import DatabaseDep
from app.web.dependencies import ClientAddressDep, SettingsDep
from app.web.errors import as_http
from app.web.templating import render

router = APIRouter(tags=["accounts"])

FLOW_COOKIE = "tiercards_oidc"
FLOW_PATH = "/auth/oidc/"


def _oidc_only(settings: Settings) -> None:
    if not settings.oidc_enabled:
        raise NotFound("this server does not sign people in through an OpenID provider")


def _redirect_uri(request: Request, settings: Settings) -> str:
    base = f"{settings.public_url.rstrip('/')}/" if settings.public_url else str(request.base_url)
    return f"{base}auth/oidc/callback"


def _failed(request: Request, error: DomainError) -> Response:
    response = render(
        request, "oidc_error.html", status_code=as_http(error).status_code, message=error.message
    )
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH)
    return response


@router.get("/auth/oidc/login")
def oidc_login(
    request: Request, settings: SettingsDep, next: Annotated[str, Query(max_length=2000)] = "/"
) -> Response:
    _oidc_only(settings)
    try:
        url, flow = openid.start(
            settings, redirect_uri=_redirect_uri(request, settings), next_path=safe_next(next)
        )
    except DomainError as error:
        return _failed(request, error)
    response = RedirectResponse(url, status_code=303)
    # Lax: the provider's redirect back is a top-level GET, which still carries the cookie. `next`
    # is capped above, so the cookie stays well within a browser's 4 KB.
    response.set_cookie(
        FLOW_COOKIE,
        openid.seal(flow, settings.secret_key),
        max_age=openid.FLOW_MAX_AGE_S,
        path=FLOW_PATH,
        httponly=True,
        samesite="lax",
        secure=settings.is_production,
    )
    return response


@router.get("/auth/oidc/callback")
def oidc_callback(
    request: Request, settings: SettingsDep, db: DatabaseDep, address: ClientAddressDep
) -> Response:
    """Where the provider sends the browser back. The answer is checked with the provider before
    the database is touched, so a slow provider never holds a writer's turn."""
    _oidc_only(settings)
    try:
        flow = openid.unseal(request.cookies.get(FLOW_COOKIE), settings.secret_key)
        who = openid.finish(
            settings, flow=flow, answer=request.query_params, redirect_uri=_redirect_uri(request, settings)
        )
    except DomainError as error:
        return _failed(request, error)
    role = service.role_for_groups(who.groups, settings.group_roles)
    with db.write_sessions() as session:  # closing it uncommitted stores nothing
        try:
            signed = service.oidc_sign_in(
                session,
                subject=who.subject,
                wanted_name=who.name,
                role=role,
                lifetimes=lifetimes(settings),
                address=address,
            )
        except DomainError as error:
            return _failed(request, error)
    response = signed_in(signed, target=flow.next, settings=settings)
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH)  # the flow is spent
    return response
