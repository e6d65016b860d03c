"""Helpers the benchmarks share: start servers on free ports, run wrk, read its figures."""

import csv
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from app import PROJECT_ROOT
from app.cli import SERVER_LOOP
from app.demos.models import WorkerBeat
from app.settings import Settings
from app.storage.database import Database

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(url: str, attempts: int = 300) -> None:
    for _ in range(attempts):
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)


@contextmanager
def _stopped_after(process: subprocess.Popen[bytes]) -> Iterator[None]:
    try:
        yield
    finally:
        process.terminate()
        process.wait(timeout=15)


@contextmanager
def uvicorn_server(target: str, env: dict[str, str], factory: bool = False) -> Iterator[str]:
    """Serve an ASGI app in its own process (one worker, as `tiercards serve` does)."""
    with uvicorn_process(target, env, factory=factory) as (url, _pid):
        yield url


@contextmanager
def uvicorn_process(target: str, env: dict[str, str], factory: bool = False) -> Iterator[tuple[str, int]]:
    """`uvicorn_server`, yielding the server's process id too (for a profiler to attach to)."""
    port = free_port()
    args = [
        sys.executable,
        "-m",
        "uvicorn",
        target,
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--loop",
        SERVER_LOOP,
    ]
    if factory:
        args.append("--factory")
    process = subprocess.Popen(args, cwd=ROOT, env={**os.environ, **env})
    url = f"http://127.0.0.1:{port}"
    with _stopped_after(process):
        _wait_until_up(url + "/")
        yield url, process.pid


@dataclass
class WrkResult:
    requests_per_second: float
    p99_ms: float
    errors: int
    output: str


def _milliseconds(value: str) -> float:
    number, unit = re.match(r"([\d.]+)(us|ms|s|m)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[unit]


def wrk(
    url: str,
    seconds: int,
    connections: int = 50,
    script: Path | None = None,
    headers: dict[str, str] | None = None,
) -> WrkResult:
    args = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if script is not None:
        args += ["-s", str(script)]
    for name, value in (headers or {}).items():
        args += ["-H", f"{name}: {value}"]
    return wrk_result(subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout)


def wrk_result(output: str) -> WrkResult:
    """What wrk --latency printed, read."""
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    # The distribution's own line: a thread's stdev ends in "%" too, e.g. "72.99%".
    p99 = _milliseconds(re.search(r"^\s*99%\s+(\S+)", output, re.MULTILINE).group(1))  # type: ignore[union-attr]
    errors = 0
    if match := re.search(r"Non-2xx or 3xx responses: (\d+)", output):
        errors += int(match.group(1))
    if match := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output):
        errors += sum(int(g) for g in match.groups())
    return WrkResult(rps, p99, errors, output)


def migrated_data_dir(folder: Path, database_url: str | None = None) -> dict[str, str]:
    """The settings of a server on `folder`, its database (SQLite in it, or `database_url`) migrated."""
    env = {"DATA_DIR": str(folder), "SECRET_KEY": "bench-" + "k" * 40}
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    subprocess.run(
        [sys.executable, "-m", "app.cli", "db", "upgrade"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        capture_output=True,
    )
    return env


@contextmanager
def tiercards_serve(env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`tiercards serve --no-worker` as a person runs it; yields its URL and process id."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--no-worker", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    with _stopped_after(process):
        _wait_until_up(url + "/healthz")
        yield url, process.pid


@dataclass
class RouteStats:
    name: str
    requests: int
    failures: int
    per_second: float
    p50_ms: float
    p99_ms: float


def locust(
    url: str,
    users: int,
    seconds: int,
    csv_prefix: Path,
    env: dict[str, str] | None = None,
    history: bool = False,
    locustfile: str = "locustfile.py",
    spawn_rate: float | None = None,
) -> dict[str, RouteStats]:
    """Run bench/`locustfile` headless against `url`; per-route figures (and "Aggregated").
    People arrive `spawn_rate` a second (default: all at once)."""
    args = [
        str(Path(sys.executable).with_name("locust")),
        "-f",
        str(ROOT / "bench" / locustfile),
        "--headless",
        "--users",
        str(users),
        "--spawn-rate",
        str(spawn_rate or users),
        "--run-time",
        f"{seconds}s",
        "--host",
        url,
        "--csv",
        str(csv_prefix),
        "--only-summary",
        "--loglevel",
        "ERROR",
    ]
    if history:
        args.append("--csv-full-history")
    # ROOT on the path, so the locustfile can share the answer the other benchmarks post.
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    subprocess.run(args, cwd=ROOT, env=environment, capture_output=True, check=False)
    stats: dict[str, RouteStats] = {}
    with open(f"{csv_prefix}_stats.csv", newline="") as file:
        for row in csv.DictReader(file):
            name = row["Name"]
            stats[name] = RouteStats(
                name,
                int(row["Request Count"]),
                int(row["Failure Count"]),
                float(row["Requests/s"]),
                float(row["50%"] or 0),
                float(row["99%"] or 0),
            )
    return stats


def start_worker(
    settings: Settings, log: Path, *, ready: Callable[[WorkerBeat], bool]
) -> subprocess.Popen[bytes]:
    """A `tiercards worker` on `settings`, once its heartbeat says it is `ready`."""
    env = {
        **os.environ,
        "DATA_DIR": str(settings.data_dir),
        "DATABASE_URL": settings.database_url,
        "QUEUE_URL": settings.queue_url,
        "SECRET_KEY": settings.secret_key,
    }
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker"], cwd=PROJECT_ROOT, env=env, stdout=out, stderr=out
        )
    name = f"{socket.gethostname()}:{process.pid}"
    db = Database(settings)
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"worker exited with {process.returncode}; see {log}")
            with db.read_sessions() as session:
                beat = session.get(WorkerBeat, name)
                if beat is not None and ready(beat):
                    return process
            time.sleep(0.1)
    finally:
        db.dispose()
    raise SystemExit("worker not ready within 180 s")


@contextmanager
def client_with_worker(prefix: str, *, lane: str) -> Iterator["TestClient"]:
    """The app in-process on a data folder of its own, signed in as the local person and sending
    its CSRF token, with a `tiercards worker` beside it that reads `lane`; both gone afterwards."""
    from fastapi.testclient import TestClient

    from app.factory import create_app
    from app.storage import migrations
    from app.web.security import CSRF_COOKIE

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    settings = Settings(
        data_dir=folder,
        secret_key="bench-secret-key-that-is-long-enough-xx",
        allowed_hosts=["testserver"],  # the in-process client's own host name
    )
    migrations.upgrade(settings)
    worker = start_worker(
        settings, folder / "worker.log", ready=lambda beat: lane in (beat.capabilities or [])
    )
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            client.get("/healthz")
            client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
            yield client
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=30)
        app.state.db.dispose()
        shutil.rmtree(folder, ignore_errors=True)
