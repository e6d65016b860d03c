"""Signing in and out with local accounts: where people without a session are sent, wrong
passwords, throttling, sessions that end at once, forged cookies, off-site `next`."""

from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.accounts import service, throttle
from app.accounts.models import AuditEvent, SignInSession
from app.factory import create_app
from tests.helpers.accounts import PASSWORDS, accounts_settings, fresh_client, sign_in
from tests.helpers.clients import csrf_client


def count(app: FastAPI, model: type, **where: object) -> int:
    with app.state.db.read_sessions() as session:
        query = select(func.count()).select_from(model)
        for column, value in where.items():
            query = query.where(getattr(model, column) == value)
        return int(session.scalar(query) or 0)


def test_pages_send_strangers_to_sign_in_and_the_api_answers_401(team_app: FastAPI) -> None:
    client = fresh_client(team_app)
    page = client.get("/practice?tier=senior")
    assert page.status_code == 303 and page.headers["location"] == "/login?next=%2Fpractice%3Ftier%3Dsenior"
    api = client.get("/api/attempts")
    assert api.status_code == 401 and "sign in" in api.json()["detail"]
    assert client.get("/cards/tf-data-prefetch-last").status_code == 303  # not even from the page cache
    assert client.get("/healthz").status_code == 200 and client.get("/login").status_code == 200


def test_signing_in_goes_where_the_person_was_going(team_app: FastAPI) -> None:
    client = fresh_client(team_app)
    response = client.post(
        "/login", data={"username": "alice", "password": PASSWORDS["alice"], "next": "/progress"}
    )
    assert response.status_code == 303 and response.headers["location"] == "/progress"
    assert client.get("/api/me").json() == {"name": "alice", "role": "member"}
    assert client.get("/progress").status_code == 200


@pytest.mark.parametrize(
    "target",
    ["//attacker.example/", "https://attacker.example/", "/\\attacker.example", "javascript:alert(1)"],
)
def test_next_never_leaves_the_site(team_app: FastAPI, target: str) -> None:
    client = fresh_client(team_app)
    response = client.post(
        "/login", data={"username": "alice", "password": PASSWORDS["alice"], "next": target}
    )
    assert response.headers["location"] == "/"


def test_a_wrong_password_is_refused_without_saying_which_part_was_wrong(team_app: FastAPI) -> None:
    client = fresh_client(team_app)
    for name in ("alice", "nobody"):
        response = client.post("/login", data={"username": name, "password": "not it at all"})
        assert response.status_code == 401
        assert (
            "do not match an active account"
            in BeautifulSoup(response.text, "html.parser").select_one(".errors").text
        )
    assert count(team_app, SignInSession) == 0
    assert count(team_app, AuditEvent, kind="sign_in_failed") == 2


def test_repeated_failures_are_throttled_with_retry_after(team_app: FastAPI) -> None:
    client = fresh_client(team_app)
    for _ in range(throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS):
        assert client.post("/login", data={"username": "alice", "password": "guess guess"}).status_code == 401
    throttled = client.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]})
    assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) > 0
    assert count(team_app, SignInSession) == 0
    # Another account from the same address is not locked by alice's failures (below the address limit).
    assert sign_in(client, "bob").get("/api/me").json()["name"] == "bob"


def test_signing_out_ends_the_session_at_once(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    alice = signed_in("alice")
    cookie = alice.cookies["tiercards_session"]
    assert alice.post("/logout").status_code == 303
    replay = fresh_client(team_app)
    replay.cookies.set("tiercards_session", cookie)
    assert replay.get("/api/me").status_code == 401


def test_disabling_a_person_ends_their_sessions_and_keeps_their_history(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    alice = signed_in("alice")
    assert (
        alice.post(
            "/api/cards/tf-data-prefetch-last/attempts",
            json={"tier": "middle", "kind": "solid", "text": "an answer", "seconds": 3},
        ).status_code
        == 201
    )
    root = signed_in("root")
    assert root.post("/admin/users/alice", data={"disabled": "true"}).status_code == 200
    assert alice.get("/api/me").status_code == 401
    refused = fresh_client(team_app).post(
        "/login", data={"username": "alice", "password": PASSWORDS["alice"]}
    )
    assert refused.status_code == 401
    with team_app.state.db.read_sessions() as session:
        assert service.user_named(session, name="alice") is not None
    from app.practice.models import Attempt

    assert count(team_app, Attempt) == 1


def test_a_forged_session_cookie_is_nobody(team_app: FastAPI) -> None:
    client = fresh_client(team_app)
    client.cookies.set("tiercards_session", "forged-" + "A" * 40)
    assert client.get("/api/me").status_code == 401
    assert client.get("/practice").status_code == 303


def test_signed_in_pages_offer_the_account_page(signed_in: Callable[[str], TestClient]) -> None:
    page = signed_in("bob").get("/account")
    soup = BeautifulSoup(page.text, "html.parser")
    assert "Signed in as bob" in soup.text
    assert soup.select_one("nav a[href='/account']") is not None


def test_failed_sign_ins_name_the_real_address_and_forged_forwarding_is_ignored(tmp_path: Path) -> None:
    app = create_app(accounts_settings(tmp_path, trusted_proxies="192.0.2.1/32"))
    forged = {"X-Forwarded-For": "198.51.100.9"}
    for peer in ("192.0.2.1", "203.0.113.5"):
        client = csrf_client(app, page="/login", client=(peer, 5000))
        client.post("/login", data={"username": "nobody", "password": "wrong wrong"}, headers=forged)
    with app.state.db.read_sessions() as session:
        addresses = session.scalars(
            select(AuditEvent.address).where(AuditEvent.kind == "sign_in_failed")
        ).all()
    # Through the trusted proxy: the address it saw. From anyone else: the connection's own.
    assert sorted(addresses) == ["198.51.100.9", "203.0.113.5"]


def test_a_password_hashed_with_older_parameters_is_rehashed_at_sign_in(team_app: FastAPI) -> None:
    from argon2 import PasswordHasher

    from app.accounts.models import User

    old = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(PASSWORDS["bob"])
    with team_app.state.db.write_sessions() as session:
        user = service.user_named(session, name="bob")
        assert user is not None
        user.password_hash = old
        session.commit()
    sign_in(fresh_client(team_app), "bob")
    with team_app.state.db.read_sessions() as session:
        stored = session.scalar(select(User.password_hash).where(User.name == "bob"))
    assert stored != old and stored is not None and stored.startswith("$argon2id$")
    assert not service.passwords.needs_rehash(stored)
