"""Who is asking, decided once per request before anything else reads it (the page cache too).

- single: always the local user.
- accounts: the sign-in cookie's session, or an API token sent as `Authorization: Bearer`.
- proxy: the user the proxy names in PROXY_USER_HEADER, believed only when the connection itself
  comes from an address in TRUSTED_PROXIES (X-Forwarded-For is never consulted). People are
  created on first sight; a groups header mapped by GROUP_ROLES sets their role on every request.
  A reserved name, or one like someone else's, is nobody.
  An API token follows the provider too. Sent through the proxy (from TRUSTED_PROXIES, with the
  user header), the header must name the token's owner, or it is nobody; with GROUP_ROLES the
  role the groups header grants applies to that request and is stored, audited as a header
  request's is. Sent without the proxy's word on it (no user header, or not from a trusted
  proxy) while GROUP_ROLES is set, the provider's current role is unknown, so the token acts as
  the weakest role at most, never with one the provider may have withdrawn. Without GROUP_ROLES
  roles are kept here, and a token acts with its owner's stored role.

Outside single mode the solo history (the local user) is nobody's: no session, token or header
signs in as it, whatever is stored.

Nobody, on a route that needs somebody: the API answers 401, a page sends the browser to
/login?next=… (or, behind a proxy, says to sign in there). Lookups run in a thread and are
remembered for a second or two, which a sign-out in this process clears at once.
"""

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import partial
from urllib.parse import quote

import anyio
from sqlalchemy.orm import Session
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.accounts import service
from app.accounts.models import LOCAL_USER_ID, User
from app.accounts.names import SOLO_NAME
from app.exceptions import DomainError
from app.roles import ROLES, WEAKEST_ROLE, Role, at_most
from app.settings import Settings
from app.storage.database import Database
from app.web.guards import peer_in
from app.web.security import cookie_value

Find = Callable[[], "Principal | None"]
Lookup = Callable[[Session, str], tuple[User | None, bool]]
Remembered = dict[str, tuple[float, "Principal | None"]]
Touch = Callable[[Session, str], None]

SESSION_COOKIE = "tiercards_session"
# Reached without signing in: signing in itself, health checks, static files, the API's docs, and
# /metrics (Prometheus cannot sign in: METRICS_ALLOWED decides who reads it).
PUBLIC_PREFIXES = (
    "/login",
    "/invite/",
    "/auth/oidc/",
    "/static/",
    "/healthz",
    "/readyz",
    "/metrics",
    "/docs",
    "/openapi.json",
)
REMEMBER_S = 2.0


@dataclass(frozen=True)
class Principal:
    id: int
    name: str
    role: str
    # single, session, token or proxy: how they proved it (CSRF applies to all but tokens).
    via: str

    @property
    def powers(self) -> Role:
        return ROLES[self.role]


LOCAL = Principal(LOCAL_USER_ID, SOLO_NAME, "admin", "single")


def is_public(path: str) -> bool:
    return path == "/favicon.ico" or any(path == p.rstrip("/") or path.startswith(p) for p in PUBLIC_PREFIXES)


def lifetimes(settings: Settings) -> service.Lifetimes:
    return service.Lifetimes(
        timedelta(hours=settings.session_idle_hours), timedelta(days=settings.session_max_days)
    )


def _principal(user: User | None, via: str) -> "Principal | None":
    if user is None or user.id == LOCAL_USER_ID:
        return None
    return Principal(user.id, user.name, user.role, via)


class Authentication:
    def __init__(self, app: ASGIApp, settings: Settings, db: Database, remembered: Remembered) -> None:
        self.app = app
        self.settings = settings
        self.db = db
        self.lifetimes = lifetimes(settings)
        # Shared with the app (app.state.signed_in): a sign-out or a disable clears it at once.
        self._remembered = remembered

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        principal = await self.principal(scope)
        scope.setdefault("state", {})["principal"] = principal
        if principal is None and not is_public(scope["path"]):
            await self._refuse(scope, send)
            return
        await self.app(scope, receive, send)

    async def principal(self, scope: Scope) -> Principal | None:
        mode = self.settings.auth_mode
        if mode == "single":
            return LOCAL
        headers = Headers(scope=scope)
        authorization = headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            token = authorization[7:].strip()
            if mode == "proxy":
                return await self._token_behind_proxy(scope, headers, token=token)
            return await self._remember("t" + token, self._token_finder(token))
        if mode == "proxy":
            return await self._from_proxy(scope, headers)
        session_token = cookie_value(scope, SESSION_COOKIE)
        if not session_token:
            return None
        return await self._remember(
            "s" + session_token,
            partial(
                self._look_up,
                session_token,
                lookup=lambda s, t: service.session_user(s, token=t, lifetimes=self.lifetimes),
                touch=service.touch_session,
                via="session",
            ),
        )

    def _token_finder(self, token: str) -> Find:
        return partial(
            self._look_up, token, lookup=service.token_user, touch=service.touch_token, via="token"
        )

    def _proxys_word(self, scope: Scope, headers: Headers) -> tuple[str, str | None] | None:
        """Who the proxy names and the role their groups grant (None: GROUP_ROLES unset), or None
        when the request carries no word of a trusted proxy."""
        if not peer_in(scope, self.settings.trusted_proxies):
            return None
        name = headers.get(self.settings.proxy_user_header.lower(), "").strip()
        if not name:
            return None
        groups = [
            g.strip()
            for g in headers.get(self.settings.proxy_groups_header.lower(), "").split(",")
            if g.strip()
        ]
        return name, service.role_for_groups(groups, self.settings.group_roles)

    async def _from_proxy(self, scope: Scope, headers: Headers) -> Principal | None:
        word = self._proxys_word(scope, headers)
        if word is None:
            return None
        name, role = word
        return await self._remember(
            f"p{name}\n{role}",
            partial(self._proxy_user, name, role=role, address=_visitor(scope)),
        )

    async def _token_behind_proxy(self, scope: Scope, headers: Headers, *, token: str) -> Principal | None:
        word = self._proxys_word(scope, headers)
        if word is None:
            principal = await self._remember("t" + token, self._token_finder(token))
            if principal is None or not self.settings.group_roles:
                return principal
            # The provider's current role is unknown: it may have withdrawn the stored one.
            return replace(principal, role=at_most(principal.role, WEAKEST_ROLE))
        name, role = word
        # Keyed on all that decides the role, so one request's never answers another's.
        return await self._remember(
            f"t{token}\n{name}\n{role}",
            partial(self._vouched_token, token, name=name, role=role, address=_visitor(scope)),
        )

    async def _remember(self, key: str, find: Find) -> Principal | None:
        """`find`'s answer, run in a thread; within REMEMBER_S, the same `key` gets it again."""
        now = time.monotonic()
        found = self._remembered.get(key)
        if found is not None and found[0] > now:
            return found[1]
        principal = await anyio.to_thread.run_sync(find)
        if len(self._remembered) > 10_000:
            self._remembered.clear()
        self._remembered[key] = (now + REMEMBER_S, principal)
        return principal

    def _look_up(self, secret: str, *, lookup: Lookup, touch: Touch | None, via: str) -> Principal | None:
        with self.db.read_sessions() as session:
            user, stale = lookup(session, secret)
            principal = _principal(user, via)
        if principal is not None and stale and touch is not None:
            with self.db.write_sessions() as session:
                touch(session, secret)
        return principal

    def _proxy_user(self, name: str, *, role: str | None, address: str | None) -> Principal | None:
        with self.db.write_sessions() as session:
            try:
                user = service.ensure_user(session, name=name, role=role, how="proxy", address=address)
            except DomainError:
                return None  # a name the app cannot hold, or one like someone else's: nobody
            return None if user.disabled else _principal(user, "proxy")

    def _vouched_token(
        self, token: str, *, name: str, role: str | None, address: str | None
    ) -> Principal | None:
        """The token's owner when the proxy names them, with the role their groups grant now
        (stored as for a request without the token); anyone else the proxy names is nobody."""
        principal = self._token_finder(token)()
        if principal is None or principal.name != name:
            return None
        if role is None or role == principal.role:
            return principal
        person = self._proxy_user(name, role=role, address=address)
        if person is None or person.id != principal.id:
            return None
        return replace(person, via="token")

    async def _refuse(self, scope: Scope, send: Send) -> None:
        path = scope["path"]
        if path.startswith("/api/"):
            body = json.dumps(
                {"detail": "sign in first: send a session cookie or Authorization: Bearer TOKEN"}
            )
            headers = [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="tiercards"'),
            ]
            await _send(send, status=401, body=body.encode(), headers=headers)
        elif self.settings.auth_mode == "accounts":
            query = scope.get("query_string", b"").decode("latin-1")
            target = path + (f"?{query}" if query else "")
            location = f"/login?next={quote(target, safe='')}".encode()
            await _send(send, status=303, body=b"", headers=[(b"location", location)])
        else:
            page = b"<!doctype html><title>Sign in</title><h1>Sign in first</h1><p>This tiercards server signs people in through its reverse proxy: open it through the proxy's address.</p>"
            await _send(send, status=401, body=page, headers=[(b"content-type", b"text/html; charset=utf-8")])


def _visitor(scope: Scope) -> str | None:
    """The visitor the proxy reported (app/web/guards.py), for the audit of who it creates or
    promotes."""
    address: str | None = scope.get("state", {}).get("client_address")
    return address


async def _send(send: Send, *, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
