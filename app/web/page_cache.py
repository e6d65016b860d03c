"""Rendered pages kept in memory, for pages that depend only on their URL, the content they show
and the role of who is asking.

A route opts in by setting the `x-page-cache` response header. The cached copy is served without
going through routing or rendering again, until the content's version changes (the app passes
the catalogue's: a new snapshot after every reload). A copy is kept per role
(the navigation differs: only authors see "Author"), so one person's chrome never reaches
someone of another role; the one per-person part of such a page, the CSRF token, is swapped for
the requester's own on the way out. A cached page must therefore show no name or other thing of
one person (those load into it by htmx).
"""

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.templating import wants_fragment

OPT_IN_HEADER = b"x-page-cache"
DEFAULT_MAX_BYTES = 32 * 2**20
ResponseT = TypeVar("ResponseT", bound=Response)
# The path, the query, whether htmx asked for a fragment, and the role ("" for nobody).
Key = tuple[str, bytes, bool, str]


@dataclass(frozen=True)
class _Entry:
    # Compared by identity: a copy is good while the version object it was made under is current.
    version: object
    status: int
    headers: list[tuple[bytes, bytes]]
    # The body split where the CSRF token stood: joining on a token is far cheaper than replacing.
    parts: tuple[bytes, ...]
    # The route that rendered it, for what is counted and logged per route (app/web/request_log.py).
    route: Any

    @property
    def size(self) -> int:
        return sum(map(len, self.parts)) + sum(len(k) + len(v) for k, v in self.headers)


HTMX_HEADERS = frozenset({b"hx-request", b"hx-boosted"})


def _htmx_headers(scope: Scope) -> dict[str, str]:
    """The two headers that say whether htmx asked for a fragment: a scan, not a Headers object."""
    return {
        name.decode(): value.decode("latin-1") for name, value in scope["headers"] if name in HTMX_HEADERS
    }


def cacheable(response: ResponseT) -> ResponseT:
    """Mark a response as depending only on its URL, the content and the requester's role."""
    response.headers[OPT_IN_HEADER.decode()] = "1"
    return response


class PageCache:
    # Capped by bytes, not entries: a deck of long cards must not grow the process without bound.
    def __init__(
        self, app: ASGIApp, version: Callable[[], object], max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.app = app
        self.version = version
        self.max_bytes = max_bytes
        self.bytes = 0
        self.entries: OrderedDict[Key, _Entry] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        # Keyed on what the route will render, so a boosted request cannot store a whole page
        # under the fragment's key.
        htmx = wants_fragment(_htmx_headers(scope))
        state = scope.get("state", {})
        # Set by the accounts middleware, which runs first: the page's navigation follows the role.
        principal = state.get("principal")
        key = (scope["path"], scope["query_string"], htmx, principal.role if principal is not None else "")
        token = state.get("csrf_token", "").encode()
        entry = self.entries.get(key)
        if entry is not None and entry.version is self.version():
            scope["route"] = entry.route
            body = token.join(entry.parts)
            headers = [*entry.headers, (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": entry.status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, self._capturing(scope, send, key, token, self.version()))

    def _capturing(self, scope: Scope, send: Send, key: Key, token: bytes, version: object) -> Send:
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                if any(name == OPT_IN_HEADER for name, _ in headers):
                    start = message
                    message = {**message, "headers": [h for h in headers if h[0] != OPT_IN_HEADER]}
            elif start and message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False) and start["status"] == 200:
                    self._store(key, start, b"".join(chunks), token, version, scope.get("route"))
            await send(message)

        return capture

    def _store(
        self,
        key: Key,
        start: Message,
        body: bytes,
        token: bytes,
        version: object,
        route: Any,
    ) -> None:
        keep = [
            (name, value)
            for name, value in start["headers"]
            if name not in (OPT_IN_HEADER, b"content-length", b"set-cookie")
        ]
        parts = tuple(body.split(token)) if token else (body,)
        entry = _Entry(version, start["status"], keep, parts, route)
        old = self.entries.pop(key, None)
        if old is not None:
            self.bytes -= old.size
        self.entries[key] = entry
        self.bytes += entry.size
        while self.bytes > self.max_bytes and self.entries:
            self.bytes -= self.entries.popitem(last=False)[1].size
