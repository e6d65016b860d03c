"""Checks every request passes before the app reads it: who may be asked (Host), from where a
write may come (Origin), HTTPS in production, and how much body a request may send.

Pure ASGI, so a refusal costs nothing but the headers: no routing, no body read.
"""

import functools
import ipaddress
import json
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import LOOPBACK_HOSTS, IPNetwork, Settings
from app.web.security import SAFE_METHODS

# Paths that take an export file, which may be larger than any other body.
IMPORT_PATHS = frozenset({"/api/import", "/progress/import"})
# Paths that take a recorded answer: its audio may be larger than other bodies, up to the
# recording cap and room for the form's other fields.
RECORDING_PATHS = re.compile(r"(?:/api)?/cards/[^/]+/recordings")
RECORDING_FORM_BYTES = 64 * 1024
HTTPS_REQUIRED_PAGE = (
    b"<!doctype html><html lang='en'><meta charset='utf-8'><title>HTTPS required</title>"
    b"<h1>HTTPS is required</h1><p>This tiercards server runs in production mode and only answers "
    b"over HTTPS. Open it with an https:// address, or put it behind a TLS-terminating proxy listed "
    b"in TRUSTED_PROXIES that sends X-Forwarded-Proto.</p></html>"
)


def size_text(limit: int) -> str:
    return f"{limit // 2**20} MB" if limit >= 2**20 else f"{limit // 1024} KB"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


# A Host header is a DNS name (letters, digits, hyphens, underscores for container names) or an
# IPv4 address, or an IPv6 address in brackets, then optionally ":" and ASCII digits; nothing else
# ("127.0.0.1:x@evil.example" or "[::1]evil.example" would otherwise pass the allowlist and end
# up in invite links).
LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
HOST = re.compile(rf"(?:(?P<name>{LABEL}(?:\.{LABEL})*)|\[(?P<ipv6>[0-9a-f:.]+)\])(?::[0-9]{{1,5}})?")


@functools.lru_cache(maxsize=1024)  # a server is asked under few names; each is checked once
def _host_name(host: str) -> str | None:
    """'example.org:8000' → 'example.org'; '[::1]:8000' → '::1'; None for anything else."""
    match = HOST.fullmatch(host)
    if match is None:
        return None
    if match["ipv6"] is None:
        return match["name"]
    try:
        return str(ipaddress.IPv6Address(match["ipv6"]))
    except ValueError:
        return None


def _peer(scope: Scope) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The direct peer's address (never a forwarded one); None for a test client or a socket."""
    client = scope.get("client")
    return _address(client[0]) if client else None


# Parsing an address costs more than the rest of a cached page's checks, and a server hears
# the same few peers (its proxies, or its people) again and again.
@functools.lru_cache(maxsize=4096)
def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def peer_in(scope: Scope, networks: Iterable[IPNetwork]) -> bool:
    """Whether the connection itself (never a forwarded address) comes from one of `networks`."""
    address = _peer(scope)
    return address is not None and any(address in network for network in networks)


def _forwarded_client(header: str | None, proxies: Iterable[IPNetwork]) -> str | None:
    """The nearest address in X-Forwarded-For that is not one of our proxies (the rightmost ones
    were appended by them; anything further left the client could have written)."""
    for item in reversed((header or "").split(",")):
        try:
            address = ipaddress.ip_address(item.strip())
        except ValueError:
            return None
        if not any(address in network for network in proxies):
            return str(address)
    return None


def _same_origin(origin: str | None, scheme: str, host: str) -> bool:
    """No Origin (not a browser, or an old one) or this site's own. "null" (a sandboxed frame, a
    file, a redirect across sites) is never ours, nor the same host on another scheme."""
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:  # "http://[::1": no origin at all
        return False
    return parts.scheme == scheme and parts.netloc.lower() == host


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=f"the request body is larger than {size_text(limit)}")


class RequestGuard:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.allowed_hosts = frozenset(host.lower() for host in settings.allowed_hosts)
        self.any_host = "*" in self.allowed_hosts
        self.trusted_proxies = tuple(settings.trusted_proxies)
        self.https_only = settings.is_production
        self.max_body = settings.max_body_bytes
        self.max_import = settings.max_import_bytes
        self.max_recording = max(settings.max_body_bytes, settings.max_recording_bytes + RECORDING_FORM_BYTES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        peer = _peer(scope)
        state["client_address"] = str(peer) if peer is not None else None
        # Whether a trusted proxy said which scheme the visitor used: it then decides, even on loopback.
        proxied_scheme = False
        if self.trusted_proxies and peer_in(scope, self.trusted_proxies):
            proto = _header(scope, b"x-forwarded-proto")
            if proto in ("http", "https"):
                scope["scheme"] = proto
                proxied_scheme = True
            # The address the proxy saw: what throttling and the audit log should name. The
            # connection's own peer stays in scope["client"], which proxy sign-in judges.
            forwarded = _forwarded_client(_header(scope, b"x-forwarded-for"), self.trusted_proxies)
            if forwarded is not None:
                state["client_address"] = forwarded
        host = (_header(scope, b"host") or "").lower()
        name = _host_name(host)
        if name is None:
            await _page(
                send,
                status=400,
                title="Bad Host header",
                text="The Host header must be a host name or address, with an optional :port.",
            )
            return
        if not self.any_host and name not in self.allowed_hosts:
            text = _unknown_host_text(name, https_only=self.https_only)
            await _page(send, status=400, title="Unknown host name", text=text)
            return
        exempt = peer is not None and peer.is_loopback and not proxied_scheme
        if self.https_only and scope["scheme"] != "https" and not exempt:
            await _respond(send, 400, HTTPS_REQUIRED_PAGE, b"text/html; charset=utf-8")
            return
        if scope["method"] not in SAFE_METHODS and not _same_origin(
            _header(scope, b"origin"), scope["scheme"], host
        ):
            await _json(
                send,
                403,
                "a write must come from this site's own pages (Origin differs; behind an HTTPS proxy, list it in TRUSTED_PROXIES so its X-Forwarded-Proto is believed)",
            )
            return
        limit = self._limit(scope["path"])
        length = _header(scope, b"content-length")
        # isascii: "²" is a digit to isdigit, but not to int().
        if length is not None and (not (length.isascii() and length.isdigit()) or int(length) > limit):
            await _json(send, 413, BodyTooLarge(limit).detail)
            return
        await self.app(scope, _capped(receive, limit), send)

    def _limit(self, path: str) -> int:
        if path in IMPORT_PATHS:
            return self.max_import
        return self.max_recording if RECORDING_PATHS.fullmatch(path) else self.max_body


def _capped(receive: Receive, limit: int) -> Receive:
    """Counts what is read; past the cap the reader gets a 413 instead of more bytes."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
        return message

    return capped


async def _respond(send: Send, status: int, body: bytes, content_type: bytes) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, detail: str) -> None:
    await _respond(send, status, json.dumps({"detail": detail}).encode(), b"application/json")


def _unknown_host_text(name: str, *, https_only: bool) -> str:
    """What to set when the server is opened under a name it does not answer to. `name` passed
    the Host pattern, so it holds nothing to escape."""
    text = (
        f"This tiercards server does not answer to the host name '{name}'. To open it under this "
        f"name, add it to ALLOWED_HOSTS (comma-separated), e.g. ALLOWED_HOSTS={name}, and restart it."
    )
    if https_only and name in LOOPBACK_HOSTS:
        text += (
            " To try it on this machine over plain http, leave ENVIRONMENT unset (development) and "
            "ALLOWED_HOSTS unset: the loopback names are then answered, and cookies work without HTTPS."
        )
    return text


async def _page(send: Send, *, status: int, title: str, text: str) -> None:
    """A refusal a person reads in their browser, before the app (and its templates) ran."""
    body = (
        "<!doctype html><html lang='en'><meta charset='utf-8'>"
        f"<title>{title} · tiercards</title><main><h1>{title}</h1><p>{text}</p></main></html>"
    )
    await _respond(send, status, body.encode(), b"text/html; charset=utf-8")
