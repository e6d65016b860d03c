"""Who is asking (decided by app/accounts/middleware.py) as dependencies, and what their role
lets them do; and what the routes that sign people in need of a request."""

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from app.accounts.middleware import Principal
from app.exceptions import Forbidden, NotFound
from app.storage.dependencies import DatabaseDep
from app.web.dependencies import ClientAddressDep, SettingsDep


async def current_principal(request: Request) -> Principal:
    principal: Principal | None = request.state.principal
    if principal is None:  # only public routes run without one; none of them asks
        raise NotFound("sign in first")
    return principal


CurrentPersonDep = Annotated[Principal, Depends(current_principal)]


async def current_user_id(principal: CurrentPersonDep) -> int:
    """Every per-person query filters on this id: one person never reads another's rows."""
    return principal.id


UserIdDep = Annotated[int, Depends(current_user_id)]


async def require_admin(principal: CurrentPersonDep) -> Principal:
    if not principal.powers.manages_users:
        raise Forbidden("only an admin may do this")
    return principal


async def require_lead(principal: CurrentPersonDep) -> Principal:
    if not principal.powers.sees_team:
        raise Forbidden("only a lead or an admin may see the team")
    return principal


async def require_browser(principal: CurrentPersonDep) -> Principal:
    """Who manages their own sign-in (tokens, password): never an API token, which could otherwise
    mint more of itself."""
    if principal.via == "token":
        raise Forbidden("an API token cannot see, make or revoke tokens: do this from a signed-in browser")
    return principal


BrowserDep = Annotated[Principal, Depends(require_browser)]
AdminDep = Annotated[Principal, Depends(require_admin)]


async def require_browser_admin(principal: AdminDep) -> Principal:
    """An admin changing people or inviting them: never through an API token, which could
    otherwise make an admin of someone (or an invite) that outlasts the token's revocation."""
    if principal.via == "token":
        raise Forbidden(
            "an API token cannot change people, make invites or see them: do this from a signed-in browser"
        )
    return principal


BrowserAdminDep = Annotated[Principal, Depends(require_browser_admin)]
LeadDep = Annotated[Principal, Depends(require_lead)]


@dataclass(frozen=True)
class Visitor:
    """What the routes that sign people in, or change how they do, need of a request: this app's
    settings and database, and the visitor's address (what the throttle and the audit log name)."""

    request: Request
    settings: SettingsDep
    db: DatabaseDep
    address: ClientAddressDep


VisitorDep = Annotated[Visitor, Depends()]


def forget_signed_in(request: Request) -> None:
    """Sign-ins remembered by the middleware end now, not a moment later."""
    request.app.state.signed_in.clear()
