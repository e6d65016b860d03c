"""The scaled-out deployment the scale-out and fault benchmarks run, all real and on loopback:
PostgreSQL (scripts/postgres.sh), redis-server, `tiercards db upgrade`, web replicas
(`tiercards serve --no-worker`), demo workers (`tiercards worker`) and nginx balancing the
replicas; and the embedded default (`tiercards serve` on SQLite) to compare it with.

People are named by a proxy header (AUTH_MODE=proxy, the load tool standing in for the proxy), so
each simulated person is a person of their own: per-person limits apply as they would in a team.
"""

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import redis
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench._servers import ROOT, free_port

# The same nginx set-up the proxy tests use.
from tests import nginx
from tests.servers import stop

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
SECRET = "bench-topology-secret-key-long-enough-0123456789"
# Durable as a real server is, except that a commit does not wait for its fsync: the same promise
# the embedded default's SQLite (WAL, synchronous=NORMAL) makes, so the two compare fairly.
POSTGRES_OPTIONS = "-c synchronous_commit=off -c max_connections=300"


def wait_until(check_url: str, process: subprocess.Popen[bytes] | None = None, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        try:
            if httpx.get(check_url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{check_url} did not answer within {timeout:.0f} s")


def postgres(command: str, folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "postgres.sh"), command, str(folder), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PG_OPTIONS": POSTGRES_OPTIONS},
    )
    return done.stdout.strip()


def _nginx_conf(folder: Path, port: int, upstreams: list[str]) -> Path:
    servers = "\n".join(f"        server {u} max_fails=1 fail_timeout=5s;" for u in upstreams)
    return nginx.main_conf(
        folder,
        f"""    access_log off;
    upstream tiercards {{
{servers}
        keepalive 64;
        # Shorter than uvicorn's 5 s keep-alive (deploy/nginx/tiercards.conf says why).
        keepalive_timeout 4s;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://tiercards;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-Proto $scheme;
            # A replica that is gone: idempotent requests go to the other one (nginx's default
            # never retries a POST that may have reached the app).
            proxy_next_upstream error timeout http_502;
        }}
    }}""",
        connections=4096,
    )


@dataclass
class Deployment:
    url: str
    env: dict[str, str]
    folder: Path
    replicas: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def attempt_ids(self) -> set[int]:
        engine = create_engine(self.env["DATABASE_URL"])
        try:
            with engine.connect() as connection:
                return set(connection.scalars(text("SELECT id FROM attempts")))
        finally:
            engine.dispose()

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time the web replicas and PostgreSQL have used so far, per part. PostgreSQL's is
        its postmaster's with every backend's, the ones that ended included (reaped by it)."""
        used = {"web replicas": sum(_cpu(psutil.Process(p.pid)) for p in self.replicas)}
        port = str(make_url(self.env["DATABASE_URL"]).port)
        for process in psutil.process_iter(["name", "cmdline"]):
            if process.info["name"] == "postgres" and port in (process.info["cmdline"] or []):
                times = process.cpu_times()
                ended = times.children_user + times.children_system
                used["PostgreSQL"] = _cpu(process) + ended + sum(_cpu(c) for c in process.children())
        return used

    def start_worker(self) -> subprocess.Popen[bytes]:
        log = open(self.folder / f"worker{len(self.workers)}.log", "ab")  # noqa: SIM115
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker"], cwd=ROOT, env=self.env, stdout=log, stderr=log
        )
        self.workers.append(worker)
        return worker


def _cpu(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return float(times.user + times.system)


def _serve(env: dict[str, str], folder: Path, name: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = open(folder / f"{name}.log", "ab")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), *extra],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )
    url = f"127.0.0.1:{port}"
    wait_until(f"http://{url}/healthz", process)
    return process, url


def _base_env(data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATA_DIR": str(data),
        "SECRET_KEY": SECRET,
        "AUTH_MODE": "proxy",
        "TRUSTED_PROXIES": "127.0.0.1",
        # Load from one address: the per-person submit limit is what is exercised, not this one.
        "DEMO_SUBMITS_PER_MINUTE": "20",
        "DEMO_HEARTBEAT_TIMEOUT_SECONDS": "10",
    }


@contextmanager
def scaled_out(
    folder: Path, replicas: int = 2, workers: int = 1, settings: dict[str, str] | None = None
) -> Iterator[Deployment]:
    """PostgreSQL + Redis + `replicas` web replicas behind nginx + `workers` demo workers, with
    `settings` added to every process's environment."""
    folder.mkdir(parents=True)
    with ExitStack() as stack:
        admin_url = postgres("start", folder / "postgres", str(free_port()))
        stack.callback(postgres, "destroy", folder / "postgres")
        redis_port = free_port()
        # Queue messages survive a redis-server restart: the append-only file.
        arguments = [
            "--port",
            str(redis_port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
        ]
        redis_process = subprocess.Popen([REDIS_SERVER, *arguments], stdout=subprocess.DEVNULL)
        stack.callback(stop, redis_process)
        client = redis.Redis(port=redis_port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        env = {
            **_base_env(folder / "data"),
            "DATABASE_URL": admin_url,
            "QUEUE_URL": f"redis://127.0.0.1:{redis_port}/0",
            **(settings or {}),
        }
        subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade"], cwd=ROOT, env=env, check=True)
        deployment = Deployment("", env, folder)
        upstreams = []
        for index in range(replicas):
            process, address = _serve(env, folder, f"replica{index}", "--no-worker")
            stack.callback(stop, process)
            deployment.replicas.append(process)
            upstreams.append(address)
        for _ in range(workers):
            stack.callback(stop, deployment.start_worker())
        port = free_port()
        (folder / "nginx").mkdir()
        proxy = nginx.start(_nginx_conf(folder / "nginx", port, upstreams))
        stack.callback(stop, proxy)
        deployment.url = f"http://127.0.0.1:{port}"
        wait_until(deployment.url + "/healthz", proxy)
        yield deployment
        # Workers stop (and leave the database) before the database does.
        for worker in deployment.workers:
            stop(worker)


@contextmanager
def embedded(folder: Path) -> Iterator[Deployment]:
    """The one-machine default: `tiercards serve` with its worker, SQLite for data and queue."""
    folder.mkdir(parents=True)
    env = _base_env(folder / "data")
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade"], cwd=ROOT, env=env, check=True)
    process, address = _serve(env, folder, "embedded")
    env["DATABASE_URL"] = f"sqlite:///{folder / 'data' / 'tiercards.db'}"
    try:
        yield Deployment(f"http://{address}", env, folder, [process])
    finally:
        stop(process)
