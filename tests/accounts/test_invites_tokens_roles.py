"""Invites (one use, expiry, password rules), personal API tokens (bearer, no CSRF, revocable),
roles (admins manage people, never the last admin away), and the CLI that makes the first admin."""

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app import PROJECT_ROOT
from app.accounts import passwords, service
from app.accounts.models import Invite, User
from app.storage.base import utcnow
from tests.helpers.accounts import PASSWORDS, accounts_settings, fresh_client, invite_link, sign_in, users_cli
from tests.servers import data_env

ANSWER = {"tier": "middle", "kind": "solid", "text": "an answer", "seconds": 3}


def users(app: FastAPI) -> dict[str, User]:
    with app.state.db.read_sessions() as session:
        return {u.name: u for u in service.all_users(session)}


def test_an_invite_makes_an_account_with_its_role_once(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    link = invite_link(signed_in("root"), role="lead")
    newcomer = fresh_client(team_app)
    assert "Lead" in newcomer.get(link).text
    joined = newcomer.post(link, data={"username": "carol", "password": "a long enough phrase"})
    assert joined.status_code == 303
    assert newcomer.get("/api/me").json() == {"name": "carol", "role": "lead"}
    again = fresh_client(team_app).post(link, data={"username": "mallory", "password": "another long phrase"})
    assert again.status_code == 404
    assert "mallory" not in users(team_app)


def test_an_expired_invite_opens_nothing(signed_in: Callable[[str], TestClient], team_app: FastAPI) -> None:
    link = invite_link(signed_in("root"))
    with team_app.state.db.write_sessions() as session:
        session.execute(update(Invite).values(expires_at=utcnow() - timedelta(seconds=1)))
        session.commit()
    client = fresh_client(team_app)
    assert client.get(link).status_code == 404
    assert client.post(link, data={"username": "late", "password": "a long enough phrase"}).status_code == 404


@pytest.mark.parametrize(
    ("name", "password", "message"),
    [
        ("dave", "short", "at least 8 characters"),
        ("dave", "password1", "too common"),
        ("dave", "dave", "at least 8"),
        ("alice", "a long enough phrase", "taken"),
        ("no spaces allowed", "a long enough phrase", "a name is"),
    ],
)
def test_a_refused_invite_form_says_why_and_stores_nothing(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, name: str, password: str, message: str
) -> None:
    link = invite_link(signed_in("root"))
    response = fresh_client(team_app).post(link, data={"username": name, "password": password})
    assert response.status_code == 422
    assert message in BeautifulSoup(response.text, "html.parser").select_one(".errors").text
    assert set(users(team_app)) == {"alice", "bob", "root"}
    assert fresh_client(team_app).get(link).status_code == 200  # still usable


def test_an_api_token_works_without_cookies_or_csrf_until_revoked(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    bob = signed_in("bob")
    page = bob.post("/account/tokens", data={"name": "my script", "password": PASSWORDS["bob"]})
    token = BeautifulSoup(page.text, "html.parser").select_one("code.token").text
    script = TestClient(team_app)
    headers = {"Authorization": f"Bearer {token}"}
    assert script.get("/api/me", headers=headers).json() == {"name": "bob", "role": "member"}
    assert (
        script.post("/api/cards/tf-data-prefetch-last/attempts", json=ANSWER, headers=headers).status_code
        == 201
    )
    token_id = service_token_id(team_app, "bob")
    assert bob.post(f"/account/tokens/{token_id}/revoke").status_code == 200
    assert script.get("/api/me", headers=headers).status_code == 401
    assert script.get("/api/me", headers={"Authorization": "Bearer not-a-token"}).status_code == 401


def service_token_id(app: FastAPI, name: str) -> int:
    with app.state.db.read_sessions() as session:
        user = service.user_named(session, name=name)
        assert user is not None
        return service.tokens_of(session, user.id)[0].id


def test_only_admins_manage_people_and_the_last_admin_stays(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    alice = signed_in("alice")
    assert alice.get("/admin/users").status_code == 403
    assert alice.post("/admin/users/bob", data={"role": "admin"}).status_code == 403
    root = signed_in("root")
    assert root.post("/admin/users/bob", data={"role": "lead"}).status_code == 200
    assert users(team_app)["bob"].role == "lead"
    refused = root.post("/admin/users/root", data={"role": "member"})
    assert refused.status_code == 409 and "no active admin" in refused.text
    assert users(team_app)["root"].role == "admin"
    assert root.post("/admin/users/bob", data={"role": "wizard"}).status_code == 422


def test_the_first_admin_comes_from_the_cli(tmp_path: Path) -> None:
    settings = accounts_settings(tmp_path)

    def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return users_cli(settings, *args, stdin=stdin)

    assert (
        cli("add", "boss", "--role", "admin", "--password-stdin", stdin="a sturdy admin phrase\n").returncode
        == 0
    )
    weak = cli("add", "weak", "--password-stdin", stdin="12345678\n")
    assert weak.returncode == 1 and "too common" in weak.stderr
    invite = cli("invite", "--role", "author")
    assert invite.returncode == 0 and "/invite/" in invite.stdout
    assert cli("set-role", "boss", "wizard").returncode == 1
    listed = cli("list").stdout
    assert "boss\tadmin\tactive\tpassword" in listed and "weak" not in listed
    assert "local" not in listed  # the solo history of single mode is no account

    from app.factory import create_app

    app = create_app(settings)
    client = sign_in(fresh_client(app), "boss", "a sturdy admin phrase")
    assert client.get("/api/me").json() == {"name": "boss", "role": "admin"}
    last = cli("disable", "boss")
    assert last.returncode == 1 and "no active admin" in last.stderr
    assert (
        cli(
            "add", "deputy", "--role", "admin", "--password-stdin", stdin="a second admin phrase\n"
        ).returncode
        == 0
    )
    assert cli("disable", "boss").returncode == 0
    app.state.signed_in.clear()
    assert client.get("/api/me").status_code == 401
    app.state.db.dispose()


def test_serve_refuses_a_network_address_in_single_mode(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--host", "0.0.0.0", "--no-worker"],
        cwd=PROJECT_ROOT,
        env={**os.environ, **data_env(tmp_path), "AUTH_MODE": "single"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "AUTH_MODE=accounts" in result.stderr and "ALLOW_OPEN_SINGLE" in result.stderr


def test_an_admins_api_token_cannot_change_people_or_make_invites(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    root = signed_in("root")
    page = root.post("/account/tokens", data={"name": "admin script", "password": PASSWORDS["root"]})
    token = BeautifulSoup(page.text, "html.parser").select_one("code.token").text
    script = TestClient(team_app)
    headers = {"Authorization": f"Bearer {token}"}
    assert script.get("/api/me", headers=headers).json() == {"name": "root", "role": "admin"}
    promoted = script.post("/admin/users/bob", data={"role": "admin"}, headers=headers)
    assert promoted.status_code == 403 and "signed-in browser" in promoted.text
    assert users(team_app)["bob"].role == "member"
    invited = script.post("/admin/invites", data={"role": "admin"}, headers=headers)
    assert invited.status_code == 403 and "signed-in browser" in invited.text
    with team_app.state.db.read_sessions() as session:
        assert session.query(Invite).count() == 0


class WriterProbe:
    """argon2's hasher that, at each hash, tries a write of its own elsewhere: whether it got in
    says whether the database's writer was free while argon2 ran."""

    def __init__(self, real: Any, app: FastAPI) -> None:
        self.real, self.app, self.writer_free = real, app, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def _write(self) -> None:
        with self.app.state.db.write_sessions() as session:
            session.execute(update(User).where(User.id == -1).values(role="member"))
            session.commit()

    def hash(self, password: str) -> str:
        writer = threading.Thread(target=self._write, daemon=True)
        writer.start()
        writer.join(5)
        self.writer_free.append(not writer.is_alive())
        return str(self.real.hash(password))


def test_accepting_an_invite_hashes_the_password_outside_the_write(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = invite_link(signed_in("root"))
    probe = WriterProbe(passwords._hasher, team_app)
    monkeypatch.setattr(passwords, "_hasher", probe)
    bad = fresh_client(team_app).post("/invite/not-a-token", data={"username": "eve", "password": "x" * 20})
    assert bad.status_code == 404 and probe.writer_free == []  # a bad link costs no hash
    newcomer = fresh_client(team_app)
    joined = newcomer.post(link, data={"username": "carol", "password": "a long enough phrase"})
    assert joined.status_code == 303
    assert newcomer.get("/api/me").json() == {"name": "carol", "role": "member"}
    assert probe.writer_free == [True]


def test_an_admins_api_token_is_never_shown_an_invite_link(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    """Redeeming a pending invite would give the token's holder a browser session that can do
    what tokens are refused: the page that lists invites opens to a signed-in browser only."""
    root = signed_in("root")
    page = root.post("/account/tokens", data={"name": "admin script", "password": PASSWORDS["root"]})
    token = BeautifulSoup(page.text, "html.parser").select_one("code.token").text
    invite = invite_link(root, role="admin").rsplit("/", 1)[-1]
    script = TestClient(team_app)
    listed = script.get("/admin/users", headers={"Authorization": f"Bearer {token}"})
    assert listed.status_code == 403 and "signed-in browser" in listed.text
    assert invite not in listed.text
    assert invite in root.get("/admin/users").text
