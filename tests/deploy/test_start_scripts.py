"""The compose deployment's start-up, run outside Docker: deploy/migrate.sh, the two web replicas
(`web` and `web-2`) from deploy/start-web.sh, a worker from deploy/start-worker.sh and nginx with
deploy/nginx/tiercards.conf.template rendered as the nginx image renders it, each with the
environment compose.yaml gives its service, against a real PostgreSQL and Redis.

Every service shares the host's network, so the addresses compose.yaml gives are this machine's
loopback already. Only what this machine must have otherwise is replaced: the ports (the test
servers' for PostgreSQL and Redis, free ones for the replicas and nginx, put into nginx's template
where the proxy's environment names a replica's port), the bind-mounted card folder by the
checkout's, each container's /data by a folder of its own, and nginx's certificate folder.
"""

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis
from alembic.script import ScriptDirectory
from bs4 import BeautifulSoup
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app import PROJECT_ROOT
from tests import nginx
from tests.deploy.deployment import (
    compose,
    here,
    nginx_front,
    service_command,
    service_health_check,
    web_replicas,
)
from tests.helpers.accounts import sign_in
from tests.helpers.clients import csrf_client
from tests.helpers.demos import wait_for
from tests.helpers.payloads import demo_run_payload
from tests.servers import free_port, stop
from tests.services import database_on

PUBLIC_HOST = "cards.example.org"
VARIABLES = {
    "SECRET_KEY": secrets.token_hex(32),
    "POSTGRES_PASSWORD": "not-used-by-the-test-server",
    "REDIS_PASSWORD": "notusedbythetestserver",
    "PUBLIC_HOST": PUBLIC_HOST,
}
ADMIN_PASSWORD = "a long admin pass phrase 7"
# The address a visitor connects to nginx from, as an outer proxy would report it.
VISITOR = "203.0.113.9"
# A Redis database of its own: the session's redis-server is shared with other tests.
QUEUE_DB = "/5"


@dataclass
class Deployment:
    environments: dict[str, dict[str, str]]
    replicas: list[str]
    proxy: str
    access_log: Path
    worker_check_before_start: subprocess.CompletedProcess[str]
    worker_check_after_beat: subprocess.CompletedProcess[str]
    migrate_output: str


def _container_environment(
    service: str, *, document: dict[str, Any], database: str, queue: str, data_dir: Path
) -> dict[str, str]:
    """The service's environment from compose.yaml, with the database and queue this machine's
    test servers, and the folders of this machine."""
    environment = dict(document["services"][service]["environment"])
    url = make_url(environment["DATABASE_URL"])
    test_server = make_url(database)
    assert url.drivername == test_server.drivername and url.host == "127.0.0.1"
    environment["DATABASE_URL"] = test_server.render_as_string(hide_password=False)
    queue_url = urlsplit(environment["QUEUE_URL"])
    assert queue_url.hostname == "127.0.0.1"
    environment["QUEUE_URL"] = queue_url._replace(netloc=urlsplit(queue).netloc, path=QUEUE_DB).geturl()
    # The bind mount: CONTENT_DIR in the container is the folder the volume names, here.
    (source,) = [
        volume.split(":")[0]
        for volume in document["services"][service]["volumes"]
        if volume.split(":")[1] == environment["CONTENT_DIR"]
    ]
    environment["CONTENT_DIR"] = str((PROJECT_ROOT / source).resolve())
    environment["DATA_DIR"] = str(data_dir)
    # nginx connects from loopback here as on the host's network: TRUSTED_PROXIES as it is.
    assert environment["TRUSTED_PROXIES"] == "127.0.0.1/32"
    return {
        **os.environ,
        # `tiercards` and python3 as the image has them: this environment's.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        **environment,
    }


def _start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(command, env=env, cwd=log.parent, stdout=out, stderr=subprocess.STDOUT)


def _until(
    check: Callable[[], bool], what: str, timeout: float, processes: list[subprocess.Popen[bytes]]
) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        for process in processes:
            assert process.poll() is None, f"{process.args!r} exited with {process.returncode} before {what}"
        assert time.monotonic() < deadline, f"no {what} within {timeout:.0f} s"
        time.sleep(0.3)


def _run(
    command: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120)


def _proxy_environment(document: dict[str, Any], *, listen: str, ports: dict[str, str]) -> dict[str, str]:
    """The proxy service's environment, nginx listening on `listen` (address:port) and each
    replica's port (compose.yaml's) changed to where it listens here (`ports`)."""
    environment = dict(document["services"]["proxy"]["environment"])
    listening = {"HTTPS_ADDRESS", "HTTPS_PORT"}
    assert listening <= set(environment)
    address, port = listen.rsplit(":", 1)
    replica_ports = {
        name: value for name, value in environment.items() if value in ports and name not in listening
    }
    assert sorted(replica_ports.values()) == sorted(ports), (
        f"the proxy is not told every replica: {environment}"
    )
    assert set(environment) == {*listening, *replica_ports}
    return {
        "HTTPS_ADDRESS": address,
        "HTTPS_PORT": port,
        **{name: ports[value] for name, value in replica_ports.items()},
    }


def _passes(command: list[str], env: dict[str, str], cwd: Path) -> Callable[[], bool]:
    return lambda: _run(command, env, cwd).returncode == 0


def _logs(folder: Path) -> str:
    return "\n".join(
        f"--- {log.parent.name}:\n" + "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        for log in sorted(folder.glob("*/log"))
    )


def _bring_up(
    folder: Path, *, database: str, redis_url: str, processes: list[subprocess.Popen[bytes]]
) -> Deployment:
    """migrate, then the worker, two web replicas and nginx, each started as compose would (its
    start-up script, its environment) and waited for as compose would (its health check)."""
    document = compose(VARIABLES)
    replicas = sorted(web_replicas(document))
    assert replicas == ["web", "web-2"]

    def script(service: str) -> list[str]:
        return here(service_command(document, service))

    def environment(service: str) -> dict[str, str]:
        (folder / service).mkdir()
        return _container_environment(
            service, document=document, database=database, queue=redis_url, data_dir=folder / service
        )

    environments = {name: environment(name) for name in ("migrate", *replicas, "worker")}
    # Each replica on a free port of this machine rather than compose.yaml's own.
    ports: dict[str, str] = {}
    for name in replicas:
        assert environments[name]["HOST"] == "127.0.0.1"
        ports[environments[name]["PORT"]] = environments[name]["PORT"] = str(free_port())
    migrate = _run(script("migrate"), environments["migrate"], folder)
    assert migrate.returncode == 0, migrate.stderr
    # The first admin, as an operator adds them: `docker compose exec web tiercards users add …`.
    admin = ["tiercards", "users", "add", "admin", "--role", "admin", "--password-stdin"]
    added = _run(admin, environments["web"], folder, stdin=ADMIN_PASSWORD + "\n")
    assert added.returncode == 0, added.stderr

    worker_check = here(service_health_check(document, "worker"))
    before = _run(worker_check, environments["worker"], folder)
    processes.append(_start(script("worker"), environments["worker"], folder / "worker" / "log"))
    for name in replicas:
        processes.append(_start(script(name), environments[name], folder / name / "log"))
    for name in replicas:
        web_check = here(service_health_check(document, name))
        _until(_passes(web_check, environments[name], folder), f"healthy {name}", 60, processes)
    urls = [f"http://127.0.0.1:{environments[name]['PORT']}" for name in replicas]

    port = free_port()
    main = nginx_front(
        folder / "nginx",
        environment=_proxy_environment(document, listen=f"127.0.0.1:{port}", ports=ports),
        common_name=PUBLIC_HOST,
        http=f"    {nginx.PROBE_LOG}\n    access_log {folder / 'nginx'}/access.log probe;",
    )
    processes.append(nginx.start(main))
    proxy = f"https://127.0.0.1:{port}"

    def proxy_answers() -> bool:
        try:
            httpx.get(f"{proxy}/healthz", headers={"Host": PUBLIC_HOST}, verify=False, timeout=2)
            return True
        except httpx.HTTPError:
            return False

    _until(proxy_answers, "answer from nginx", 10, processes)
    _until(_passes(worker_check, environments["worker"], folder), "worker beat", 90, processes)
    after = _run(worker_check, environments["worker"], folder)
    return Deployment(environments, urls, proxy, main.parent / "access.log", before, after, migrate.stdout)


@pytest.fixture(scope="module")
def deployment(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("compose")
    database = database_on(postgres_url, f"compose_{secrets.token_hex(4)}")
    queue = redis.Redis.from_url(urlsplit(redis_url)._replace(path=QUEUE_DB).geturl())
    queue.flushdb()
    queue.close()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        try:
            deployment = _bring_up(folder, database=database, redis_url=redis_url, processes=processes)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{_logs(folder)}") from error
        yield deployment
    finally:
        for process in reversed(processes):
            stop(process)


@contextmanager
def _signed_in_through_the_proxy(deployment: Deployment) -> Iterator[httpx.Client]:
    headers = {"Host": PUBLIC_HOST, "X-Forwarded-For": VISITOR}
    with closing(csrf_client(deployment.proxy, page="/login", verify=False, headers=headers)) as client:
        yield sign_in(client, "admin", ADMIN_PASSWORD)


def _straight_to(replica: str, through_proxy: httpx.Client) -> httpx.Client:
    """A client talking to one replica directly (plain HTTP over loopback), with the browser's
    cookies from the proxy."""
    cookies = "; ".join(f"{name}={value}" for name, value in through_proxy.cookies.items())
    return httpx.Client(base_url=replica, timeout=30, headers={"Host": PUBLIC_HOST, "Cookie": cookies})


def test_migrate_brings_the_database_to_the_newest_schema(deployment: Deployment) -> None:
    assert "database is up to date" in deployment.migrate_output
    head = ScriptDirectory(str(PROJECT_ROOT / "migrations")).get_current_head()
    engine = create_engine(deployment.environments["migrate"]["DATABASE_URL"])
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == head
    finally:
        engine.dispose()


def test_both_replicas_are_live_and_ready(deployment: Deployment) -> None:
    for replica in deployment.replicas:
        with httpx.Client(base_url=replica, headers={"Host": PUBLIC_HOST}, timeout=10) as client:
            assert client.get("/healthz").json()["status"] == "ok"
            ready = client.get("/readyz")
            assert ready.status_code == 200, ready.text
            assert ready.json()["database"] == "ok" and ready.json()["queue"] == "ok"


def test_the_worker_health_check_passes_once_the_worker_has_beaten(deployment: Deployment) -> None:
    assert deployment.worker_check_before_start.returncode == 1
    assert deployment.worker_check_after_beat.returncode == 0, deployment.worker_check_after_beat.stderr


def _upstreams(access_log: Path, request_uri: str, requests: int) -> set[str]:
    """The upstreams that served `request_uri`, once nginx has logged all `requests` of it (it
    writes each line just after answering)."""

    def logged() -> list[str] | None:
        lines = [line.split(" ") for line in access_log.read_text().splitlines()]
        served = [upstream for uri, _status, upstream in lines if uri == request_uri]
        return served if len(served) >= requests else None

    return set(wait_for(logged, 30, 0.05, f"nginx to log {request_uri} {requests} times"))


def test_signed_in_through_the_proxy_either_replica_knows_the_person(deployment: Deployment) -> None:
    with _signed_in_through_the_proxy(deployment) as client:
        for _ in range(4):
            assert client.get("/api/me?probe=replicas").json() == {"name": "admin", "role": "admin"}
        served_by = _upstreams(deployment.access_log, "/api/me?probe=replicas", requests=4)
        assert served_by == {urlsplit(replica).netloc for replica in deployment.replicas}
        # nginx's X-Forwarded-For is believed (TRUSTED_PROXIES), so the audit log names the
        # visitor, not the proxy.
        audit = BeautifulSoup(client.get("/admin/audit?kind=sign_in").text, "html.parser")
        addresses = {code.get_text() for code in audit.select("tr.event td.address code")}
        assert addresses == {VISITOR}


def test_both_replicas_show_the_same_cards(deployment: Deployment) -> None:
    with _signed_in_through_the_proxy(deployment) as through_proxy:
        shown = []
        for replica in deployment.replicas:
            with _straight_to(replica, through_proxy) as client:
                page = client.get("/")
                assert page.status_code == 200
                links = BeautifulSoup(page.text, "html.parser").select("a[href^='/cards/']")
                shown.append([(a["href"], a.get_text(strip=True)) for a in links])
        assert shown[0] == shown[1] and len(shown[0]) >= 3


def test_a_demo_started_through_the_proxy_runs_on_the_worker_and_shows_on_both_replicas(
    deployment: Deployment,
) -> None:
    with _signed_in_through_the_proxy(deployment) as client:
        submitted = client.post("/api/demos", json=demo_run_payload())
        assert submitted.status_code == 202, submitted.text
        run_id = submitted.json()["run_id"]

        def finished() -> bool:
            return bool(client.get(f"/api/demos/{run_id}").json()["status"] == "done")

        _until(finished, "finished demo", 120, [])
        runs = []
        for replica in deployment.replicas:
            with _straight_to(replica, client) as direct:
                runs.append(direct.get(f"/api/demos/{run_id}").json())
                page = BeautifulSoup(direct.get(f"/demos/{run_id}").text, "html.parser")
                assert page.h1 is not None
        assert runs[0] == runs[1] and runs[0]["status"] == "done"
