"""An app server behind a real nginx that passes the visitor's address on (as
deploy/nginx/tiercards.conf does) and, with basic auth, names the person in Remote-User and their
groups in Remote-Groups; and the addresses its audit log then holds."""

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from tests import nginx
from tests.servers import free_port, start_server, stop
from tests.services import engine_for

PASSWORDS = {"alice": "correct horse battery", "rhea": "admin pass phrase 7"}


@dataclass
class Deployment:
    nginx_url: str
    data_dir: Path
    access_log: Path


def _htpasswd(path: Path) -> None:
    lines = []
    for name, password in PASSWORDS.items():
        hashed = subprocess.run(
            ["openssl", "passwd", "-apr1", "-stdin"],
            input=password,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        lines.append(f"{name}:{hashed}\n")
    path.write_text("".join(lines))


def _nginx_conf(folder: Path, port: int, upstream: str, basic_auth: bool = True) -> Path:
    auth = f'auth_basic "tiercards"; auth_basic_user_file {folder}/htpasswd;' if basic_auth else ""
    return nginx.main_conf(
        folder,
        f"""
    {nginx.PROBE_LOG}
    access_log {folder}/access.log probe;

    map $remote_user $groups {{
        alice "staff,tc-leads";
        rhea  "tc-admins";
        default "";
    }}

    server {{
        listen 127.0.0.1:{port};
        {auth}
        location / {{
            proxy_pass {upstream};
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-Proto $scheme;
            # As deploy/nginx/tiercards.conf does: the audit log then names the visitor.
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # Setting these replaces anything the client sent under the same names; an empty
            # $groups drops the header altogether.
            proxy_set_header Remote-User $remote_user;
            proxy_set_header Remote-Groups $groups;
        }}
    }}""",
    )


def _wait_listening(process: subprocess.Popen[bytes], url: str, folder: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"nginx exited with {process.returncode}: {(folder / 'error.log').read_text()}"
            )
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("nginx did not answer within 10 s")


@contextmanager
def behind_nginx(
    tmp_path_factory: pytest.TempPathFactory, env: dict[str, str], basic_auth: bool = True
) -> Iterator[Deployment]:
    data_dir = tmp_path_factory.mktemp("proxied-app")
    app, app_url = start_server(data_dir, "--no-worker", env=env)
    try:
        folder = tmp_path_factory.mktemp("nginx")
        _htpasswd(folder / "htpasswd")
        port = free_port()
        proxy = nginx.start(_nginx_conf(folder, port, app_url, basic_auth))
        try:
            nginx_url = f"http://127.0.0.1:{port}"
            _wait_listening(proxy, nginx_url, folder)
            yield Deployment(nginx_url, data_dir, folder / "access.log")
        finally:
            stop(proxy)
    finally:
        stop(app)


# On one machine nginx sees the test client at 127.0.0.1, an address the app trusts as a proxy;
# the visitor is then the address a load balancer in front of nginx wrote, as in a real chain.
VISITOR = "203.0.113.9"


def audited_addresses(data_dir: Path) -> dict[str, set[str | None]]:
    engine = engine_for(data_dir)
    try:
        with engine.connect() as db:
            rows = db.execute(text("SELECT kind, address FROM audit_events")).all()
    finally:
        engine.dispose()
    found: dict[str, set[str | None]] = {}
    for kind, address in rows:
        found.setdefault(kind, set()).add(address)
    return found
