"""API tokens end when they should: with a new password, when their person is disabled, when
they expire; and only a signed-in browser that knows the password makes, lists or revokes them."""

import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app import PROJECT_ROOT
from app.accounts.models import ApiToken
from app.storage.base import utcnow
from tests.helpers.accounts import PASSWORDS, fresh_client, sign_in
from tests.servers import data_env


def make_token(client: TestClient, name: str, password: str, **extra: str) -> str:
    page = client.post("/account/tokens", data={"name": "my script", "password": password, **extra})
    assert page.status_code == 200, page.text
    return BeautifulSoup(page.text, "html.parser").select_one("code.token").text


def works(app: FastAPI, token: str) -> bool:
    app.state.signed_in.clear()
    response = TestClient(app).get("/api/me", headers={"Authorization": f"Bearer {token}"})
    return response.status_code == 200


def stored_tokens(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return int(session.scalar(select(func.count()).select_from(ApiToken)) or 0)


def test_a_new_password_ends_other_browsers_and_every_token(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    here, elsewhere = signed_in("alice"), signed_in("alice")
    token = make_token(here, "alice", PASSWORDS["alice"])
    assert works(team_app, token)
    changed = here.post(
        "/account/password",
        data={"current_password": PASSWORDS["alice"], "new_password": "a brand new phrase 9"},
    )
    assert changed.status_code == 303
    team_app.state.signed_in.clear()
    assert here.get("/api/me").json()["name"] == "alice"
    assert elsewhere.get("/api/me").status_code == 401
    assert not works(team_app, token)
    listed = BeautifulSoup(here.get("/account").text, "html.parser")
    assert listed.select("#tokens-heading ~ div table tbody tr") == []


def test_a_reset_from_the_command_line_ends_every_token(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    token = make_token(signed_in("alice"), "alice", PASSWORDS["alice"])
    settings = team_app.state.settings
    env = {**data_env(settings.data_dir), "AUTH_MODE": "accounts", "SECRET_KEY": settings.secret_key}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "users", "reset-password", "alice", "--password-stdin"],
        cwd=PROJECT_ROOT,
        env={**os.environ, **env},
        input="a reset pass phrase 3\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert not works(team_app, token)


def test_disabling_revokes_tokens_and_enabling_brings_none_back(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    token = make_token(signed_in("alice"), "alice", PASSWORDS["alice"])
    root = signed_in("root")
    assert root.post("/admin/users/alice", data={"disabled": "true"}).status_code == 200
    assert root.post("/admin/users/alice", data={"disabled": "false"}).status_code == 200
    assert not works(team_app, token)
    alice = sign_in(fresh_client(team_app), "alice")
    assert "my script" not in BeautifulSoup(alice.get("/account").text, "html.parser").text


def token_rows(client: TestClient) -> list[list[str]]:
    soup = BeautifulSoup(client.get("/account").text, "html.parser")
    table = soup.select_one("#tokens-heading").find_next("table")
    heads = [th.text.strip() for th in table.select("thead th")]
    return [heads, *([td.text.strip() for td in tr.select("td")] for tr in table.select("tbody tr"))]


def test_tokens_expire_after_ninety_days_unless_told_otherwise(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    alice = signed_in("alice")
    lasting = make_token(alice, "alice", PASSWORDS["alice"])
    short = make_token(alice, "alice", PASSWORDS["alice"], expires_days="1")
    assert works(team_app, lasting) and works(team_app, short)
    heads, *rows = token_rows(alice)
    expires, used = heads.index("Expires"), heads.index("Last used")
    today = utcnow().date()
    assert sorted(row[expires] for row in rows) == [
        str(today + timedelta(days=1)),
        str(today + timedelta(days=90)),
    ]
    assert {row[used] for row in rows} != {"never"}  # both were just used
    with team_app.state.db.write_sessions() as session:
        session.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        session.commit()
    assert not works(team_app, lasting) and not works(team_app, short)


@pytest.mark.parametrize("days", ["0", "366", "many", "1e9"])
def test_a_token_lifetime_out_of_bounds_is_refused_and_stores_nothing(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, days: str
) -> None:
    refused = signed_in("alice").post(
        "/account/tokens", data={"name": "x", "password": PASSWORDS["alice"], "expires_days": days}
    )
    assert refused.status_code == 422
    assert "1 to 365 days" in BeautifulSoup(refused.text, "html.parser").select_one(".errors").text
    assert stored_tokens(team_app) == 0


@pytest.mark.parametrize("name", ["", "x" * 81, "a\x00b", "tab\there"])
def test_a_token_name_that_cannot_be_shown_is_refused_and_stores_nothing(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, name: str
) -> None:
    refused = signed_in("alice").post("/account/tokens", data={"name": name, "password": PASSWORDS["alice"]})
    assert refused.status_code == 422
    assert "name the token" in BeautifulSoup(refused.text, "html.parser").select_one(".errors").text
    assert stored_tokens(team_app) == 0


@pytest.mark.parametrize("password", ["", "not my password"])
def test_making_a_token_needs_the_current_password(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, password: str
) -> None:
    refused = signed_in("alice").post("/account/tokens", data={"name": "x", "password": password})
    assert refused.status_code == 422
    assert "current password" in BeautifulSoup(refused.text, "html.parser").select_one(".errors").text
    assert stored_tokens(team_app) == 0


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/account"), ("POST", "/account/tokens"), ("POST", "/account/tokens/1/revoke")],
)
def test_a_token_cannot_make_list_or_revoke_tokens(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, method: str, path: str
) -> None:
    token = make_token(signed_in("bob"), "bob", PASSWORDS["bob"])
    script = TestClient(team_app, headers={"Authorization": f"Bearer {token}", "Accept": "text/html"})
    response = script.request(
        method, path, data={"name": "minted", "password": PASSWORDS["bob"]} if method == "POST" else None
    )
    assert response.status_code == 403
    assert "signed-in browser" in BeautifulSoup(response.text, "html.parser").text
    assert stored_tokens(team_app) == 1 and works(team_app, token)
