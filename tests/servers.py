"""Real processes for tests: a free port, and `tiercards serve` on its own data folder."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx

from app import PROJECT_ROOT


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(process: subprocess.Popen[bytes], url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not answer /healthz within {timeout:.0f} s")


def data_env(data_dir: Path) -> dict[str, str]:
    """The environment that points a server or worker at `data_dir` (and, when the suite runs on
    PostgreSQL, at that folder's own database)."""
    from tests.services import database_url

    url = database_url(data_dir)
    return {"DATA_DIR": str(data_dir), **({"DATABASE_URL": url} if url else {})}


def tiercards_on(data_dir: Path, *args: str, content: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The `tiercards` command, as an operator runs it, on `data_dir` (and `content`, if given)."""
    env = {**os.environ, **data_env(data_dir), **({"CONTENT_DIR": str(content)} if content else {})}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def start_server(
    data_dir: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
    stderr: IO[bytes] | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """`tiercards serve` on 127.0.0.1, answering /healthz, its log in `stderr` if given; the
    caller stops it."""
    port = port or free_port()
    environment = {**os.environ, **data_env(data_dir), **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), *extra],
        cwd=PROJECT_ROOT,
        env=environment,
        stderr=stderr,
    )
    url = f"http://127.0.0.1:{port}"
    wait_healthy(process, url)
    return process, url


@contextmanager
def running_server(data_dir: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[str]:
    process, url = start_server(data_dir, *extra, env=env)
    try:
        yield url
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it is still there after `timeout` seconds; nothing if it is gone."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wrong_password_burst(url: str, name: str, count: int) -> list[int]:
    """`count` wrong passwords for `name` sent to `/login` at once, from one browser's CSRF pair,
    each on a connection of its own: the status of each."""
    from app.web.security import CSRF_COOKIE

    with httpx.Client(base_url=url) as first:
        first.get("/login")
        csrf = first.cookies[CSRF_COOKIE]

    def attempt(_: int) -> int:
        with httpx.Client(base_url=url, timeout=120, cookies={CSRF_COOKIE: csrf}) as client:
            sent = {"username": name, "password": "a wrong guess"}
            return client.post("/login", data=sent, headers={"X-CSRF-Token": csrf}).status_code

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(attempt, range(count)))
