"""Clients that speak CSRF as a browser does: they open a page, take the token it hands out and
send it back on every request (the app refuses unsafe ones without it)."""

from typing import Any, TypeVar, overload

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.security import CSRF_COOKIE
from tests.helpers.html import soup_of

CSRF_HEADER = "X-CSRF-Token"
Client = TypeVar("Client", bound=httpx.Client)


def token_in(html: str) -> str:
    """The CSRF token a page carries in its meta tag."""
    meta = soup_of(html).find("meta", attrs={"name": "csrf-token"})
    assert meta is not None, "the page carries no CSRF token"
    return str(meta["content"])


def page_token(client: httpx.Client, url: str = "/account") -> str:
    """The CSRF token the page at `url` carries (the session's own once signed in)."""
    return token_in(client.get(url).text)


def with_csrf(client: Client, page: str = "/healthz") -> Client:
    """`client`, sending back the token `page` hands it: the one an HTML page carries, or, from
    a page without one (/healthz, the cheapest), the cookie it set."""
    response = client.get(page)
    html = response.headers.get("content-type", "").startswith("text/html")
    client.headers[CSRF_HEADER] = token_in(response.text) if html else client.cookies[CSRF_COOKIE]
    return client


@overload
def csrf_client(target: FastAPI, *, page: str = ..., **options: Any) -> TestClient: ...
@overload
def csrf_client(target: str, *, page: str = ..., **options: Any) -> httpx.Client: ...
def csrf_client(target: FastAPI | str, *, page: str = "/healthz", **options: Any) -> httpx.Client:
    """A client of `target` (an app in-process, or a running server's URL) that has opened
    `page` and sends its CSRF token back; `options` go to the client."""
    if isinstance(target, str):
        return with_csrf(httpx.Client(base_url=target, **{"timeout": 30, **options}), page)
    return with_csrf(TestClient(target, **options), page)


def get_scope(url: str) -> dict[str, Any]:
    """An ASGI scope of a plain GET of `url` from 127.0.0.1, for driving an app by hand (to watch
    its response arrive chunk by chunk)."""
    path, _, query = url.partition("?")
    return {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query.encode(),
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 5000),
        "scheme": "http",
    }
