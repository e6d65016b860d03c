"""Every request gets an id, and once answered, an access line and its count in the metrics.

The id is the client's `X-Request-ID` when that is a short plain token (a proxy or a client
tracing a call), else a new one; it is sent back in `X-Request-ID` and is on every log line
written while the request is handled (app/logs.py). Outermost, so refusals are counted too.
Pure ASGI, no task or body copy: some 20 µs a request, most of it prometheus_client counting.
"""

import logging
import re
import secrets
import time

from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.logs import REQUEST_ID
from app.metrics import observe_request

REQUEST_ID_HEADER = b"x-request-id"
# Short, and nothing that could break a log line or a header: letters, digits, dot, dash, underscore.
WELL_FORMED_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
access = logging.getLogger("tiercards.access")
UNROUTED = "unrouted"


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == REQUEST_ID_HEADER and WELL_FORMED_ID.fullmatch(value):
            return value.decode()
    return secrets.token_hex(16)


class RequestLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _request_id(scope)
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        # What is counted when the app fails before it answers (the server then answers 500).
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (REQUEST_ID_HEADER, request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route, method = route_template(scope), scope["method"]
            observe_request(route, method=method, status=status, seconds=seconds)
            if access.isEnabledFor(logging.INFO):
                access.info(
                    "%s %s %s",
                    method,
                    route,
                    status,
                    extra={
                        "method": method,
                        "route": route,
                        "status": status,
                        "duration_ms": round(seconds * 1000, 2),
                    },
                )
            REQUEST_ID.reset(token)


def route_template(scope: Scope) -> str:
    """The route a request went to, as declared (`/cards/{card_id}`), never the path asked for, so
    counts and log lines stay few and carry no ids or invite tokens. The router names it (the page
    cache too, for pages it kept); a mount such as /static is matched here. "unrouted": no route
    matched, or the request was answered before routing (refused, or sent to sign in)."""
    route = scope.get("route")
    if route is None:
        path = scope["path"]
        routes = scope["app"].router.routes
        route = next((r for r in routes if isinstance(r, Mount) and r.path_regex.match(path)), None)
    return UNROUTED if route is None else str(route.path)
