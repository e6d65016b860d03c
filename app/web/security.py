"""Security headers on every response, and CSRF protection for every state-changing request.

CSRF tokens are bound to who is asking. Signed in with an account, the token is derived from the
sign-in session's own secret (its cookie), so it changes with every sign-in, and a CSRF cookie
planted from elsewhere never matches. Otherwise (the sign-in page, single and proxy mode, where
no sign-in cookie says who someone is and none is read) it is a signed double-submit token: a
cookie holds `token.signature`, replaced whenever a response signs someone in or out. Pages carry the token in <meta name="csrf-token">, and htmx (or an API client)
sends it back as X-CSRF-Token or a `csrf_token` form field. Another site can make the browser send
the cookies but cannot read them.
"""

import hashlib
import hmac
import logging
import secrets

from fastapi import HTTPException, Request
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSRF_COOKIE = "tiercards_csrf"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
log = logging.getLogger("tiercards.web")

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


def _sign(secret: str, token: str) -> str:
    return hmac.new(secret.encode(), token.encode(), hashlib.sha256).hexdigest()[:32]


def signed_token(secret: str) -> str:
    """A fresh CSRF token, `token.signature`, as the cookie carries it."""
    token = secrets.token_urlsafe(24)
    return f"{token}.{_sign(secret, token)}"


def session_token(secret: str, session: str) -> str:
    """The CSRF token of a sign-in session: it says nothing of the session's secret."""
    return _sign(secret, f"session {session}")


def _valid(secret: str, value: str) -> bool:
    token, _, signature = value.partition(".")
    return bool(token) and hmac.compare_digest(signature, _sign(secret, token))


def cookie_value(scope: Scope, cookie_name: str) -> str | None:
    """One cookie of the request, by name."""
    # A plain split: http.cookies.SimpleCookie costs more than the rest of a cached page.
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            for pair in value.decode("latin-1").split(";"):
                key, _, cookie = pair.strip().partition("=")
                if key == cookie_name:
                    return cookie
    return None


HSTS = (b"strict-transport-security", b"max-age=31536000")
# Every answer but a static file carries someone's CSRF token, navigation or own data: no shared
# cache may keep it, and the browser keeps no copy a later person at that computer could open.
# On by default, so a new route cannot forget it; a route that says otherwise keeps its own.
PERSONAL = (b"cache-control", b"private, no-store")
STATIC_PREFIX = "/static/"
SERVER_ERROR = b"Something went wrong on the server; it has been logged. Try again."
DATABASE_DOWN = b"The database is not answering right now (it may be restarting). Try again in a moment."
# Errors that say the database cannot be reached or is busy, not that the request was wrong: the
# pool replaces the broken connections (pool_pre_ping), so the same request soon succeeds.
DATABASE_DOWN_ERRORS = (OperationalError, InterfaceError)


class SecurityMiddleware:
    """Pure ASGI (no per-request task overhead): sets headers and hands each request its token.

    Also the last resort for an unexpected error: the person gets a plain 500 with the same
    headers (never the error's text) and the connection stays usable; the error is logged. A
    database that cannot be reached is a 503 with Retry-After instead: nothing is wrong with the
    request, and it will succeed once the database is back.
    """

    def __init__(
        self, app: ASGIApp, secret_key: str, session_cookie: str | None, production: bool = False
    ) -> None:
        self.app = app
        self.secret_key = secret_key
        self.production = production
        # A response setting (or clearing) this cookie signs someone in or out. None where no
        # sign-in cookie says who someone is (single, proxy): a planted one must not choose the token.
        self.session_cookie = session_cookie
        self.session_set = f"{session_cookie}=".encode() if session_cookie else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookie = cookie_value(scope, CSRF_COOKIE)
        new_cookie = None
        if cookie is None or not _valid(self.secret_key, cookie):
            cookie = new_cookie = signed_token(self.secret_key)
        session = cookie_value(scope, self.session_cookie) if self.session_cookie else None
        token = session_token(self.secret_key, session) if session else cookie
        scope.setdefault("state", {})["csrf_token"] = token
        personal = not scope["path"].startswith(STATIC_PREFIX)
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started, new_cookie
            if message["type"] == "http.response.start":
                started = True
                if self.session_set and any(
                    n == b"set-cookie" and v.startswith(self.session_set)
                    for n, v in message.get("headers", ())
                ):
                    # Signed in or out: a token from before is no use to whoever kept it.
                    new_cookie = signed_token(self.secret_key)
                # No route sets these itself, so they are appended without a lookup.
                headers = [*message.get("headers", ()), *SECURITY_HEADERS]
                if personal and not any(name == b"cache-control" for name, _ in headers):
                    headers.append(PERSONAL)
                # Read now, not on arrival: the guard sets the scheme a trusted proxy reports.
                if self.production and scope.get("scheme") == "https":
                    headers.append(HSTS)
                if new_cookie is not None:
                    secure = "; Secure" if self.production else ""
                    headers.append(
                        (b"set-cookie", f"{CSRF_COOKIE}={new_cookie}; Path=/; SameSite=Lax{secure}".encode())
                    )
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as error:
            if started:
                raise
            status, body = 500, SERVER_ERROR
            headers = [(b"content-type", b"text/plain; charset=utf-8")]
            if isinstance(error, DATABASE_DOWN_ERRORS):
                log.warning("database unavailable on %s %s: %s", scope["method"], scope["path"], error)
                status, body = 503, DATABASE_DOWN
                headers.append((b"retry-after", b"5"))
            else:
                log.exception("unexpected error on %s %s", scope["method"], scope["path"])
            headers.append((b"content-length", str(len(body)).encode()))
            await send_with_headers({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})


async def require_csrf(request: Request) -> None:
    """App-wide dependency: a state-changing request must send back the token of who is asking.

    `request.state.csrf_token` is the sign-in session's token, or without one the CSRF cookie
    when its signature is good, else a fresh token the middleware just issued, so a forged or
    made-up pair never matches.
    """
    if request.method in SAFE_METHODS:
        return
    principal = getattr(request.state, "principal", None)
    if principal is not None and principal.via == "token":
        return  # a bearer token is never sent by a browser on its own: no request to forge
    expected: str = request.state.csrf_token
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        field = (await request.form()).get(CSRF_FIELD)
        sent = field if isinstance(field, str) else None
    # isascii first: compare_digest refuses (with an error, not False) other text.
    if not sent or not sent.isascii() or not hmac.compare_digest(expected, sent):
        raise HTTPException(status_code=403, detail="missing or wrong CSRF token: send X-CSRF-Token")
