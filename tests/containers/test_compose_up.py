"""compose.yaml, run for real: the images scripts/container-check.sh built from Debian's packages,
brought up on this machine's Docker engine as a team would bring them up, and used through nginx.

Every service shares the host's network and listens on loopback ports of its own (compose.yaml);
these tests reach the deployment only through nginx's HTTPS port, as a browser would, through
`docker` and `compose`, as its operator would, and through Redis's loopback port and /proc, as any
program on the host would.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import pytest
import redis

from app import PROJECT_ROOT
from tests.containers.stack import (
    ADMIN,
    ADMIN_PASSWORD,
    HEALTHY_SERVICES,
    PUBLIC_HOST,
    TIERCARDS_SERVICES,
    Stack,
    docker_inspect,
    new_stack,
    until,
)
from tests.helpers.accounts import sign_in
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload, demo_run_payload

# The owner's card (content/tf-data-prefetch-last.md).
CARD = "tf-data-prefetch-last"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    stack = new_stack(tmp_path_factory.mktemp("compose"))
    try:
        stack.compose("up", "-d", "--no-build")
        stack.wait_until_healthy()
        # The first admin, as docs/operating.md has an operator add them.
        stack.compose(
            "exec", "-T", "web", "tiercards", "users", "add", ADMIN, "--role", "admin", "--password-stdin",
            stdin=ADMIN_PASSWORD + "\n",
        )  # fmt: skip
        yield stack
    finally:
        stack.compose("down", "--volumes", "--timeout", "5")


@contextmanager
def signed_in(stack: Stack) -> Iterator[httpx.Client]:
    """A person's browser: through nginx over HTTPS, under the name and port people open, with
    the Origin a browser sends on every POST."""
    site = f"{PUBLIC_HOST}:{stack.variables['HTTPS_PORT']}"
    options = {"verify": False, "headers": {"Host": site, "Origin": f"https://{site}"}}
    with closing(csrf_client(stack.proxy, page="/login", **options)) as client:
        yield sign_in(client, ADMIN, ADMIN_PASSWORD)


def stored_answers(client: httpx.Client) -> set[int]:
    listed = client.get("/api/attempts", params={"card_id": CARD, "limit": 1000})
    assert listed.status_code == 200, listed.text
    return {attempt["id"] for attempt in listed.json()}


def test_the_migration_finished_and_every_service_is_healthy(stack: Stack) -> None:
    migrate = stack.inspect("migrate")["State"]
    assert (migrate["Status"], migrate["ExitCode"]) == ("exited", 0)
    assert "database is up to date" in stack.compose("logs", "--no-color", "migrate")
    # wait_until_healthy saw postgres, redis, both replicas and the worker pass their own checks.
    for service in HEALTHY_SERVICES:
        assert stack.health(service) == "healthy", service
    assert stack.health("proxy") == "running"


def test_the_tiercards_images_run_as_an_unprivileged_user(stack: Stack) -> None:
    for service in TIERCARDS_SERVICES:
        uid = stack.compose("exec", "-T", service, "id", "-u").strip()
        assert uid != "0" and uid.isdigit(), f"{service} runs as uid {uid}"
        assert stack.inspect(service)["Config"]["User"] == "tiercards"


def test_only_the_worker_image_has_tensorflow_of_the_pinned_release(stack: Stack) -> None:
    extras = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (pin,) = [r for r in extras["worker"] if r.startswith("tensorflow")]
    ask = "import importlib.util as u; print(bool(u.find_spec('tensorflow')))"
    assert stack.compose("exec", "-T", "web", "python3", "-c", ask).strip() == "False"
    version = "import tensorflow as tf; print(tf.__version__)"
    assert stack.compose("exec", "-T", "worker", "python3", "-c", version).strip() == pin.split("==")[1]


def listening_in(containers: list[str]) -> set[tuple[str, int]]:
    """Every (address, port) that a process of these containers listens on: on the host's network
    their sockets are the host's, told apart by the process's control group, named by container."""

    def inside(pid: int | None) -> bool:
        try:
            groups = Path(f"/proc/{pid}/cgroup").read_text()
        except OSError:  # gone since it was listed
            return False
        return any(container in groups for container in containers)

    return {
        (c.laddr.ip, c.laddr.port)
        for c in psutil.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN and inside(c.pid)
    }


def test_nothing_listens_beyond_loopback(stack: Stack) -> None:
    ports = {
        int(stack.variables[name])
        for name in ("POSTGRES_PORT", "REDIS_PORT", "WEB_PORT_1", "WEB_PORT_2", "HTTPS_PORT")
    }
    # Whatever the deployment's containers opened, not only the ports they were asked for.
    opened = listening_in(stack.compose("ps", "-q").split())
    assert {port for _, port in opened} == ports, "a service is not listening where compose.yaml says"
    assert {address for address, _ in opened} == {"127.0.0.1"}


def redis_client(stack: Stack, password: str) -> redis.Redis:
    """A client of the deployment's Redis on its loopback port, where any program on the host
    reaches it."""
    return redis.Redis(
        host="127.0.0.1", port=int(stack.variables["REDIS_PORT"]), password=password, socket_timeout=10
    )


def redis_reply(stack: Stack, *command: str) -> bytes:
    """What the deployment's Redis replies to a command sent first thing on a new connection,
    without a password (RESP, as any client sends it)."""
    request = f"*{len(command)}\r\n" + "".join(f"${len(word)}\r\n{word}\r\n" for word in command)
    address = ("127.0.0.1", int(stack.variables["REDIS_PORT"]))
    with socket.create_connection(address, timeout=10) as connection:
        connection.sendall(request.encode())
        return connection.recv(4096)


def test_redis_answers_only_a_client_that_gives_the_password(stack: Stack) -> None:
    # The web replicas and the worker reach it with the password in QUEUE_URL: the demo test
    # below runs through this queue.
    password = stack.variables["REDIS_PASSWORD"]
    assert redis_reply(stack, "PING") == b"-NOAUTH Authentication required.\r\n"
    assert redis_reply(stack, "KEYS", "*").startswith(b"-NOAUTH ")
    with closing(redis_client(stack, f"not-{password}")) as wrong, pytest.raises(redis.AuthenticationError):
        wrong.ping()
    with closing(redis_client(stack, password)) as allowed:
        assert allowed.ping() is True
        config_file = allowed.info("server")["config_file"]
    # The file redis-server read the password from is its own user's alone.
    assert config_file, "redis-server was started without a config file"
    owner_and_mode = stack.compose("exec", "-T", "redis", "stat", "-c", "%U %a", config_file).split()
    assert owner_and_mode == ["redis", "600"], owner_and_mode


def command_lines() -> dict[int, str]:
    """Every process's command line on this host, by pid: the containers' processes are the
    host's too, and anyone on the host may read these (ps, /proc/*/cmdline)."""
    lines = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes()
            except OSError:  # gone since it was listed
                continue
            lines[int(entry.name)] = line.replace(b"\0", b" ").decode(errors="replace")
    return lines


def test_no_command_line_shows_the_redis_password(stack: Stack) -> None:
    password = stack.variables["REDIS_PASSWORD"]
    # What Docker starts in each container, health checks included: a check lives too briefly
    # to be caught in /proc every time.
    for container in stack.compose("ps", "-q").split():
        found = docker_inspect(container)
        config = found["Config"]
        started = [
            found["Path"],
            *found["Args"],
            *(config.get("Entrypoint") or []),
            *(config.get("Cmd") or []),
            *((config.get("Healthcheck") or {}).get("Test") or []),
        ]
        assert not [word for word in started if password in word], f"{found['Name']}: {started}"
    # The worker has it, in its environment alone (QUEUE_URL).
    worker = stack.inspect("worker")["State"]["Pid"]
    assert password.encode() in Path(f"/proc/{worker}/environ").read_bytes()
    # Every process, watched for longer than a health-check interval (5 s).
    seen: set[int] = set()
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline:
        lines = command_lines()
        shown = {pid: line for pid, line in lines.items() if password in line}
        assert not shown, f"the Redis password on a command line: {shown}"
        seen.update(lines)
        time.sleep(0.05)
    # The scan saw the deployment's own processes.
    assert {stack.inspect("redis")["State"]["Pid"], worker} <= seen


def test_a_person_signs_in_through_nginx_and_answers_the_owners_card(stack: Stack) -> None:
    with signed_in(stack) as client:
        assert client.get("/api/me").json() == {"name": ADMIN, "role": "admin"}
        page = client.get(f"/cards/{CARD}")
        assert page.status_code == 200 and "prefetch" in page.text
        answered = client.post(f"/api/cards/{CARD}/attempts", json=attempt_payload())
        assert answered.status_code == 201, answered.text
        assert answered.json()["id"] in stored_answers(client)


def test_a_demo_started_through_nginx_runs_in_the_worker_container(stack: Stack) -> None:
    with signed_in(stack) as client:
        submitted = client.post("/api/demos", json=demo_run_payload())
        assert submitted.status_code == 202, submitted.text
        run_id = submitted.json()["run_id"]
        until(
            lambda: client.get(f"/api/demos/{run_id}").json()["status"] in ("done", "failed"),
            timeout=180,
            describe=stack.describe,
        )
        run = client.get(f"/api/demos/{run_id}").json()
        assert run["status"] == "done", run
        # The worker's name is its host name, which compose gives the worker container alone.
        assert run["worker"].split(":")[0] == "worker"
        assert run["environment"]["compute"] and run["variants"]


@dataclass
class Load:
    """Answers sent through nginx by a few browsers at once: what each acknowledgement said."""

    acknowledged: list[tuple[float, int]] = field(default_factory=list)
    refused: list[tuple[float, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def send(self, client: httpx.Client) -> None:
        while not self.stop.is_set():
            try:
                answered = client.post(f"/api/cards/{CARD}/attempts", json=attempt_payload(rating=None))
            except httpx.HTTPError as error:
                self.refused.append((time.monotonic(), repr(error)))
                continue
            if answered.status_code == 201:
                self.acknowledged.append((time.monotonic(), answered.json()["id"]))
                # A person's pace, roughly: and the whole run stays within one page of /api/attempts.
                time.sleep(0.1)
            else:
                self.refused.append((time.monotonic(), f"{answered.status_code} {answered.text[:200]}"))


def test_kill_9_of_a_web_container_mid_load_loses_no_acknowledged_answer(stack: Stack) -> None:
    load = Load()
    with signed_in(stack) as first, signed_in(stack) as second, signed_in(stack) as third:
        senders = [threading.Thread(target=load.send, args=(client,)) for client in (first, second, third)]
        for sender in senders:
            sender.start()
        try:
            time.sleep(4)
            killed_at = time.monotonic()
            # kill -9 of the container's first process, as a crash would end it (`docker kill` is
            # an operator's stop, after which the restart policy rightly leaves it down).
            os.kill(stack.inspect("web")["State"]["Pid"], signal.SIGKILL)
            time.sleep(8)
        finally:
            load.stop.set()
            for sender in senders:
                sender.join(30)
        before = [i for at, i in load.acknowledged if at < killed_at]
        after = [i for at, i in load.acknowledged if at > killed_at + 1]
        assert before and len(after) >= 10, f"the other replica did not keep serving: {load.refused[:5]}"
        # Only what was in flight at the kill may fail, one request a sender.
        assert len(load.refused) <= len(senders), load.refused
        missing = {i for _, i in load.acknowledged} - stored_answers(first)
        assert not missing, f"acknowledged but not stored: {sorted(missing)}"
    # The restart policy brings the crashed replica back, healthy.
    stack.wait_until_healthy(("web",), timeout=120)


def test_down_and_up_again_keeps_every_answer_and_account(stack: Stack) -> None:
    with signed_in(stack) as client:
        assert client.post(f"/api/cards/{CARD}/attempts", json=attempt_payload()).status_code == 201
        before = stored_answers(client)
        demos = client.get("/api/demos").json()["runs"]
    stack.compose("down", "--timeout", "10")
    assert not stack.compose("ps", "-q").split(), "containers are left after down"
    stack.compose("up", "-d", "--no-build")
    stack.wait_until_healthy()
    with signed_in(stack) as client:
        assert stored_answers(client) == before
        assert [run["run_id"] for run in client.get("/api/demos").json()["runs"]] == [
            r["run_id"] for r in demos
        ]


def test_the_gpu_check_runs_in_the_worker_image_and_says_there_is_no_gpu_here() -> None:
    # make gpu-check's image half, on the CPU worker image: everything but the GPU itself (the
    # GPU image differs from this one in its TensorFlow alone; tests/deploy/test_compose.py).
    done = subprocess.run(
        ["bash", "scripts/gpu-check-image.sh", "tiercards:worker"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no GPU here" in done.stdout + done.stderr
