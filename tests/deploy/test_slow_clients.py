"""A client that sends its request headers a byte at a time is closed by the shipped nginx front
within its client_header_timeout: uvicorn restarts no timer while header bytes keep coming, so
without the front such a client would hold a connection (and a slot) for as long as it likes.

nginx runs the timeouts deploy/nginx/tiercards.conf sets, in front of a real `tiercards serve`."""

import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app import PROJECT_ROOT
from tests import nginx
from tests.servers import free_port, start_server, stop

SHIPPED = PROJECT_ROOT / "deploy" / "nginx" / "tiercards.conf"
TIMEOUTS = ("client_header_timeout", "client_body_timeout", "send_timeout")


def _shipped_seconds(directive: str) -> int:
    found = re.search(rf"^\s*{directive}\s+(\d+)s;", SHIPPED.read_text(), flags=re.MULTILINE)
    assert found is not None, f"{SHIPPED.name} sets no {directive}"
    return int(found[1])


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    app, app_url = start_server(tmp_path_factory.mktemp("slow-app"), "--no-worker")
    folder = tmp_path_factory.mktemp("slow-nginx")
    port = free_port()
    limits = "\n".join(f"        {name} {_shipped_seconds(name)}s;" for name in TIMEOUTS)
    conf = nginx.main_conf(
        folder,
        f"""
    access_log off;
    server {{
        listen 127.0.0.1:{port};
{limits}
        location / {{ proxy_pass {app_url}; proxy_set_header Host $host; }}
    }}""",
    )
    proxy = nginx.start(conf)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, (Path(folder) / "error.log").read_text()
                time.sleep(0.1)
        yield "127.0.0.1", port
    finally:
        stop(proxy)
        stop(app)


def test_the_shipped_front_bounds_how_long_headers_may_take() -> None:
    assert _shipped_seconds("client_header_timeout") <= 15
    assert _shipped_seconds("client_body_timeout") <= 60


def test_a_client_trickling_its_headers_is_closed_within_the_bound(front: tuple[str, int]) -> None:
    bound = _shipped_seconds("client_header_timeout")
    trickle = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000
    started = time.monotonic()
    with socket.create_connection(front, timeout=2) as connection:
        connection.setblocking(False)
        closed_after = None
        for byte in trickle:
            try:
                connection.send(bytes([byte]))
            except OSError:  # the front already closed it
                closed_after = time.monotonic() - started
                break
            try:
                answer = connection.recv(4096)
            except BlockingIOError:
                time.sleep(0.25)
                continue
            if not answer or answer.startswith(b"HTTP/1.1 408"):
                closed_after = time.monotonic() - started
                break
            pytest.fail(f"the front answered a request it never had in full: {answer[:80]!r}")
    assert closed_after is not None, "the connection was still open after the whole trickle"
    assert closed_after < bound + 5
