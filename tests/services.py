"""Real PostgreSQL and Redis servers for tests, each on a temp folder and a free port."""

import hashlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import redis
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url

from app import PROJECT_ROOT
from tests.servers import free_port

POSTGRES_SCRIPT = PROJECT_ROOT / "scripts" / "postgres.sh"
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
# Set (to a server's admin URL) when the whole suite runs on PostgreSQL: `make test-postgres`.
POSTGRES_ENV = "TIERCARDS_TEST_POSTGRES"
RUN_ENV = "TIERCARDS_TEST_RUN"
# Which engine the suite runs on: sqlite (the default) or postgres.
ENGINE_ENV = "TIERCARDS_TEST_DATABASE"
ENGINES = ("sqlite", "postgres")
# How many databases this process has handed out (tests/engines.py: an engine-agnostic test makes none).
provisioned = 0


def suite_engine() -> str:
    return os.environ.get(ENGINE_ENV, "sqlite")


def postgres(command: str, folder: Path, *args: str) -> str:
    """Run scripts/postgres.sh; its output (the URL, for start)."""
    done = subprocess.run(
        ["bash", str(POSTGRES_SCRIPT), command, str(folder), *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"postgres.sh {command} failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


@contextmanager
def postgres_server(folder: Path) -> Iterator[str]:
    """A started PostgreSQL server; yields its admin URL (database `postgres`)."""
    url = postgres("start", folder, str(free_port()))
    try:
        yield url
    finally:
        postgres("destroy", folder)


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


@contextmanager
def redis_server(folder: Path, port: int | None = None) -> Iterator[str]:
    """A started redis-server that keeps nothing on disk, on `port` or a free one; yields its URL."""
    if not Path(REDIS_SERVER).exists():
        raise RuntimeError(
            "redis-server is not installed: run scripts/install-system-deps.sh (make test does)"
        )
    port = port or free_port()
    # Nothing on disk: --save "" and no append-only file.
    arguments = [
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(folder),
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    process = subprocess.Popen(
        [REDIS_SERVER, *arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 10
        while not _pings(client):
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not answer within 10 s")
            time.sleep(0.05)
        yield url
    finally:
        client.close()
        process.terminate()
        process.wait(timeout=10)


def database_on(admin_url: str, name: str) -> str:
    """The URL of database `name` on the server of `admin_url`, created empty if it is not there."""
    with psycopg.connect(_libpq(admin_url), autocommit=True) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if found is None:
            connection.execute(f'CREATE DATABASE "{name}"')
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def database_url(data_dir: Path) -> str:
    """The DATABASE_URL for an app whose data folder is `data_dir`: "" (its own SQLite file, the
    default) unless the suite runs on PostgreSQL, where each data folder gets its own database."""
    global provisioned
    provisioned += 1
    admin_url = os.environ.get(POSTGRES_ENV)
    if not admin_url:
        return ""
    # The run's token keeps a data folder path that a later run happens to reuse from meeting
    # this run's database.
    key = f"{os.environ.get(RUN_ENV, '')}:{Path(data_dir).resolve()}"
    return database_on(admin_url, "t_" + hashlib.sha1(key.encode()).hexdigest()[:24])


def engine_for(data_dir: Path) -> Engine:
    """An engine on the database a server with this data folder uses (the caller disposes of it)."""
    return create_engine(database_url(data_dir) or f"sqlite:///{Path(data_dir) / 'tiercards.db'}")
