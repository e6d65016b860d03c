"""compose.yaml brought up for real on this machine's Docker engine, with the override that builds
every image from Debian's packages (compose.debian.yaml): how tests/containers start it, ask it
about its containers, and take it down.

scripts/container-check.sh starts the engine and builds the images first; these tests only ever
run the images it built (`up --no-build`).
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app import PROJECT_ROOT
from tests.servers import free_port

# The override a machine without a registry adds (docs/operating.md, "Docker").
FILES = ("compose.yaml", "compose.debian.yaml")
PUBLIC_HOST = "localhost"
ADMIN = "ada"
ADMIN_PASSWORD = "a long admin pass phrase 7"
TIERCARDS_SERVICES = ("web", "web-2", "worker")
HEALTHY_SERVICES = ("postgres", "redis", *TIERCARDS_SERVICES)


def compose_command() -> list[str]:
    """Compose v2 (`docker compose`) where the engine's client has it, else Debian's docker-compose."""
    plugin = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    if plugin.returncode == 0:
        return ["docker", "compose"]
    found = shutil.which("docker-compose")
    assert found, (
        "neither `docker compose` nor docker-compose is installed (scripts/container-check.sh installs it)"
    )
    return [found]


@dataclass
class Stack:
    """One compose project: its variables (the .env a team writes) and where nginx listens."""

    folder: Path
    variables: dict[str, str]
    command: list[str]

    @property
    def proxy(self) -> str:
        return f"https://{self.variables['HTTPS_ADDRESS']}:{self.variables['HTTPS_PORT']}"

    def compose(self, *arguments: str, stdin: str | None = None, timeout: float = 300) -> str:
        """Run a compose command in the checkout; its output, or an AssertionError saying what failed."""
        files = [word for name in FILES for word in ("-f", name)]
        command = [*self.command, *files, "--env-file", str(self.folder / "env"), *arguments]
        done = subprocess.run(
            command,
            cwd=PROJECT_ROOT,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"{shlex.join(command)} failed:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def container(self, service: str) -> str:
        """The id of the service's container (one each here)."""
        (container,) = self.compose("ps", "-q", service).split()
        return container

    def inspect(self, service: str) -> dict:
        return docker_inspect(self.container(service))

    def health(self, service: str) -> str:
        state = self.inspect(service)["State"]
        return str(state["Health"]["Status"] if state.get("Health") else state["Status"])

    def wait_until_healthy(self, services: tuple[str, ...] = HEALTHY_SERVICES, timeout: float = 240) -> None:
        until(
            lambda: all(self.health(name) == "healthy" for name in services),
            timeout=timeout,
            describe=self.describe,
        )

    def describe(self) -> str:
        """What each service is doing and the tail of its log, for a failure's message."""
        states = {name: self.health(name) for name in (*HEALTHY_SERVICES, "proxy")}
        return f"{states}\n{self.compose('logs', '--no-color', '--tail', '40')}"


def docker_inspect(what: str) -> dict:
    done = subprocess.run(["docker", "inspect", what], capture_output=True, text=True, check=True)
    (found,) = json.loads(done.stdout)
    return dict(found)


def until(ready: Callable[[], bool], *, timeout: float, describe: Callable[[], str]) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"not ready after {timeout:.0f} s:\n{describe()}")
        time.sleep(1)


def new_stack(folder: Path) -> Stack:
    """A project of its own name, on free loopback ports, with fresh secrets and a self-signed
    certificate for PUBLIC_HOST."""
    tls = folder / "tls"
    tls.mkdir()
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", f"/CN={PUBLIC_HOST}",
            "-keyout", str(tls / "privkey.pem"), "-out", str(tls / "fullchain.pem"),
        ],
        capture_output=True,
        check=True,
    )  # fmt: skip
    # nginx reads the key as root; the folder only has to be readable inside the container.
    os.chmod(tls / "privkey.pem", 0o644)
    variables = {
        "COMPOSE_PROJECT_NAME": f"tiercards-check-{secrets.token_hex(3)}",
        "SECRET_KEY": secrets.token_hex(32),
        "POSTGRES_PASSWORD": secrets.token_hex(16),
        "REDIS_PASSWORD": secrets.token_hex(32),
        "PUBLIC_HOST": PUBLIC_HOST,
        "TLS_DIR": str(tls),
        "HTTPS_ADDRESS": "127.0.0.1",
        "HTTPS_PORT": str(free_port()),
        "POSTGRES_PORT": str(free_port()),
        "REDIS_PORT": str(free_port()),
        "WEB_PORT_1": str(free_port()),
        "WEB_PORT_2": str(free_port()),
    }
    (folder / "env").write_text("".join(f"{name}={value}\n" for name, value in variables.items()))
    return Stack(folder, variables, compose_command())
