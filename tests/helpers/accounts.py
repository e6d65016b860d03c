"""The team of the accounts-mode tests (alice and bob, members; root, an admin), signing in, and
the operator's `tiercards users` command."""

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.accounts import service
from app.accounts.models import User
from app.practice import scheduling
from app.settings import Settings
from app.storage import migrations
from tests.helpers.clients import csrf_client, with_csrf
from tests.helpers.html import one, soup_of
from tests.servers import data_env
from tests.services import database_url

PASSWORDS = {
    "alice": "correct horse battery",
    "bob": "purple monkey dishwasher",
    "root": "admin pass phrase 7",
}
Client = TypeVar("Client", bound=httpx.Client)


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


def create_team(app: FastAPI) -> None:
    """alice and bob, members, and root, an admin."""
    with app.state.db.write_sessions() as session:
        service.create_user(session, name="alice", role="member", password=PASSWORDS["alice"])
        service.create_user(session, name="bob", role="member", password=PASSWORDS["bob"])
        # A reserved name, as an operator may give the first admin at the command line.
        service.create_user(session, name="root", role="admin", password=PASSWORDS["root"], by_operator=True)
        session.commit()


@contextmanager
def running_team(data_dir: Path) -> Iterator[FastAPI]:
    """An app in accounts mode on its own database in `data_dir`, with alice, bob and root."""
    from app.factory import create_app

    app = create_app(accounts_settings(data_dir))
    create_team(app)
    try:
        yield app
    finally:
        app.state.db.dispose()


def fresh_client(app: FastAPI, **kwargs: object) -> TestClient:
    """A browser with a CSRF cookie and no sign-in."""
    return csrf_client(app, page="/login", follow_redirects=False, **kwargs)


def sign_in(client: Client, name: str, password: str | None = None) -> Client:
    response = client.post(
        "/login", data={"username": name, "password": password or PASSWORDS[name], "next": "/"}
    )
    assert response.status_code == 303, response.text
    # Signing in gives the browser a new CSRF token: the one its pages now carry.
    return with_csrf(client, "/account")


def users_cli(
    settings: Settings, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`tiercards users ARGS…` run as an operator would, on the server's database; `env` adds
    settings of the operator's (PUBLIC_URL, say)."""
    server = {**data_env(settings.data_dir), "AUTH_MODE": "accounts", "SECRET_KEY": settings.secret_key}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "users", *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, **server, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def invite_link(admin: TestClient, role: str = "member", days: str = "7") -> str:
    """The path of a new invite link an admin made on /admin/users."""
    page = soup_of(admin.post("/admin/invites", data={"role": role, "expires_days": days}))
    url = one(page, "code.token").text
    return "/" + url.split("/", 3)[3]


@contextmanager
def new_person(app: FastAPI, name: str, role: str, password: str) -> Iterator[TestClient]:
    """A person created with `role`, signed in on a client of their own."""
    with app.state.db.write_sessions() as session:
        service.create_user(session, name=name, role=role, password=password)
        session.commit()
    client = sign_in(fresh_client(app), name, password)
    yield client
    client.close()


def user_id(app: FastAPI, name: str) -> int:
    with app.state.db.read_sessions() as session:
        user = service.user_named(session, name=name)
        assert isinstance(user, User)
        return user.id


def review_as(app: FastAPI, name: str, card_id: str, tier: str, rating: str, at: datetime) -> None:
    """A review rated in /practice without an answer, at a moment of the test's choosing."""
    with app.state.db.write_sessions() as session:
        scheduling.review(
            session,
            user_id=user_id(app, name),
            card_id=card_id,
            tier=tier,
            rating=scheduling.RATING_BY_NAME[rating],
            duration_ms=1000,
            at=at,
        )
