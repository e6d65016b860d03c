"""A client that sends its request headers a byte at a time is closed by the shipped nginx front
within its client_header_timeout: uvicorn restarts no timer while header bytes keep coming, so
without the front such a client would hold a connection (and a slot) for as long as it likes.

nginx runs deploy/nginx/tiercards.conf.template itself, rendered as the nginx image renders it
(the proxy's variables put in: its port and both replicas' a real `tiercards serve`'s), over
HTTPS with a certificate of its own in place of the mounted one."""

import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests import nginx
from tests.deploy.deployment import NGINX_TEMPLATE, nginx_directives, nginx_front
from tests.servers import free_port, start_server, stop

TIMEOUTS = ("client_header_timeout", "client_body_timeout", "send_timeout")
HOST = "127.0.0.1"


def _shipped_seconds(directive: str) -> int:
    found = [d.split()[1] for d in nginx_directives(NGINX_TEMPLATE.read_text()) if d.split()[0] == directive]
    assert len(found) == 1 and found[0].endswith("s"), f"{NGINX_TEMPLATE.name} sets {directive} {found}"
    return int(found[0].removesuffix("s"))


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    app, app_url = start_server(tmp_path_factory.mktemp("slow-app"), "--no-worker")
    folder = tmp_path_factory.mktemp("slow-nginx")
    port = free_port()
    app_port = str(urlsplit(app_url).port)
    conf = nginx_front(
        folder / "nginx",
        environment={
            "HTTPS_ADDRESS": HOST,
            "HTTPS_PORT": str(port),
            "WEB_PORT_1": app_port,
            "WEB_PORT_2": app_port,
        },
        common_name=HOST,
        http="    access_log off;",
    )
    proxy = nginx.start(conf)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                httpx.get(f"https://{HOST}:{port}/healthz", verify=False, timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, (Path(conf.parent) / "error.log").read_text()
                time.sleep(0.1)
        yield HOST, port
    finally:
        stop(proxy)
        stop(app)


def test_the_shipped_front_bounds_how_long_headers_may_take() -> None:
    assert all(_shipped_seconds(name) > 0 for name in TIMEOUTS)
    assert _shipped_seconds("client_header_timeout") <= 15
    assert _shipped_seconds("client_body_timeout") <= 60


def test_a_client_trickling_its_headers_is_closed_within_the_bound(front: tuple[str, int]) -> None:
    bound = _shipped_seconds("client_header_timeout")
    trickle = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    started = time.monotonic()
    with socket.create_connection(front, timeout=2) as plain, tls.wrap_socket(plain) as connection:
        connection.settimeout(0.25)
        closed_after = None
        for byte in trickle:
            try:
                connection.send(bytes([byte]))
            except OSError:  # the front already closed it
                closed_after = time.monotonic() - started
                break
            try:
                answer = connection.recv(4096)
            except TimeoutError:
                continue
            except OSError:  # closed under the TLS layer
                answer = b""
            if not answer or answer.startswith(b"HTTP/1.1 408"):
                closed_after = time.monotonic() - started
                break
            pytest.fail(f"the front answered a request it never had in full: {answer[:80]!r}")
    assert closed_after is not None, "the connection was still open after the whole trickle"
    # Closed by the timeout, not at once for some other reason (the handshake, the request).
    assert bound - 1 < closed_after < bound + 5, closed_after
