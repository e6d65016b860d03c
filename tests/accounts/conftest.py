"""An app in AUTH_MODE=accounts with two members and an admin, and clients signed in as each."""

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.accounts import service
from app.factory import create_app
from app.settings import Settings
from app.storage import migrations
from app.web.security import CSRF_COOKIE
from tests.servers import data_env
from tests.services import database_url

PASSWORDS = {
    "alice": "correct horse battery",
    "bob": "purple monkey dishwasher",
    "root": "admin pass phrase 7",
}


def accounts_settings(data_dir: Path, **extra: object) -> Settings:
    values: dict[str, object] = {
        "data_dir": data_dir,
        "database_url": database_url(data_dir),
        "content_dir": PROJECT_ROOT / "content",
        "secret_key": "test-only-secret-key-that-is-long-enough",
        "content_poll_seconds": 0,
        "allowed_hosts": ["testserver"],
        "auth_mode": "accounts",
        **extra,
    }
    settings = Settings.model_validate(values)
    migrations.upgrade(settings)
    return settings


@pytest.fixture
def team_app(tmp_path: Path) -> Iterator[FastAPI]:
    app = create_app(accounts_settings(tmp_path))
    with app.state.db.write_sessions() as session:
        service.create_user(session, "alice", role="member", password=PASSWORDS["alice"])
        service.create_user(session, "bob", role="member", password=PASSWORDS["bob"])
        # A reserved name, as an operator may give the first admin at the command line.
        service.create_user(session, "root", role="admin", password=PASSWORDS["root"], by_operator=True)
        session.commit()
    yield app
    app.state.db.dispose()


def fresh_client(app: FastAPI, **kwargs: object) -> TestClient:
    """A browser with a CSRF cookie and no sign-in."""
    client = TestClient(app, follow_redirects=False, **kwargs)  # type: ignore[arg-type]
    client.get("/login")
    client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
    return client


def sign_in(client: TestClient, name: str, password: str | None = None) -> TestClient:
    response = client.post(
        "/login", data={"username": name, "password": password or PASSWORDS[name], "next": "/"}
    )
    assert response.status_code == 303, response.text
    # Signing in gives the browser a new CSRF token: the one its pages now carry.
    client.headers["X-CSRF-Token"] = page_token(client)
    return client


def page_token(client: TestClient, url: str = "/account") -> str:
    """The CSRF token the person's pages carry (the session's own once signed in)."""
    page = BeautifulSoup(client.get(url).text, "html.parser")
    meta = page.find("meta", attrs={"name": "csrf-token"})
    assert meta is not None
    return str(meta["content"])


def users_cli(settings: Settings, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`tiercards users ARGS…` run as an operator would, on the server's database."""
    env = {**data_env(settings.data_dir), "AUTH_MODE": "accounts", "SECRET_KEY": settings.secret_key}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "users", *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def invite_link(admin: TestClient, role: str = "member", days: str = "7") -> str:
    """The path of a new invite link an admin made on /admin/users."""
    page = admin.post("/admin/invites", data={"role": role, "expires_days": days})
    assert page.status_code == 200
    url = BeautifulSoup(page.text, "html.parser").select_one("code.token").text
    return "/" + url.split("/", 3)[3]


@contextmanager
def new_person(app: FastAPI, name: str, role: str, password: str) -> Iterator[TestClient]:
    """A person created with `role`, signed in on a client of their own."""
    with app.state.db.write_sessions() as session:
        service.create_user(session, name, role=role, password=password)
        session.commit()
    client = sign_in(fresh_client(app), name, password)
    yield client
    client.close()


@pytest.fixture
def signed_in(team_app: FastAPI) -> Callable[[str], TestClient]:
    clients: list[TestClient] = []

    def make(name: str) -> TestClient:
        client = sign_in(fresh_client(team_app), name)
        clients.append(client)
        return client

    yield make  # type: ignore[misc]
    for client in clients:
        client.close()
