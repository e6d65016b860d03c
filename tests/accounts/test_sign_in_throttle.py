"""The sign-in throttle: a burst cannot outrun it, strangers cannot turn it on the owner, password
changes count like sign-ins, and checking a password never holds the database's one writer."""

import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.accounts import passwords, service, throttle
from app.accounts.models import AuditEvent, SignInAttempt
from app.storage.base import utcnow
from tests.factories import OWNER_CARD
from tests.helpers.accounts import PASSWORDS, accounts_settings, fresh_client, sign_in
from tests.helpers.clients import with_csrf
from tests.helpers.payloads import attempt_payload
from tests.servers import running_server, wrong_password_burst
from tests.services import engine_for

pytestmark = pytest.mark.load

BURST = 40


def events(app: FastAPI, kind: str) -> int:
    with app.state.db.read_sessions() as session:
        query = select(func.count()).select_from(AuditEvent).where(AuditEvent.kind == kind)
        return int(session.scalar(query) or 0)


def browser(app: FastAPI, address: str) -> TestClient:
    """A browser of its own at `address` (no cookies yet)."""
    return fresh_client(app, client=(address, 50000))


def wrong(client: TestClient, name: str) -> int:
    return client.post("/login", data={"username": name, "password": "not the password"}).status_code


class Hasher:
    """argon2's hasher, with `before` run at the start of every verification."""

    def __init__(self, real: Any, before: Callable[[str], None]) -> None:
        self.real, self.before = real, before

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def verify(self, stored: str, password: str) -> bool:
        self.before(stored)
        return bool(self.real.verify(stored, password))


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every argon2 verification the app runs, by the hash it checked against."""
    seen: list[str] = []
    monkeypatch.setattr(passwords, "_hasher", Hasher(passwords._hasher, seen.append))
    return seen


def test_a_burst_of_wrong_passwords_against_a_running_server_checks_at_most_the_limit(
    tmp_path: Path,
) -> None:
    env = {"AUTH_MODE": "accounts", "SECRET_KEY": "test-only-secret-key-that-is-long-enough"}
    with running_server(tmp_path, "--no-worker", env=env) as url:
        engine = engine_for(tmp_path)
        with Session(engine) as session:
            service.create_user(session, name="alice", role="member", password=PASSWORDS["alice"])
            session.commit()
        statuses = wrong_password_burst(url, "alice", BURST)
        with Session(engine) as session:
            checked = session.scalar(
                select(func.count()).select_from(AuditEvent).where(AuditEvent.kind == "sign_in_failed")
            )
        engine.dispose()
    assert sorted(set(statuses)) == [401, 429]
    assert statuses.count(401) == checked
    assert checked is not None and checked <= throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS


def test_a_strangers_failures_lock_their_address_not_the_owner(team_app: FastAPI) -> None:
    stranger = browser(team_app, "203.0.113.7")
    for _ in range(throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS):
        assert wrong(stranger, "alice") == 401
    refused = stranger.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert "try again" in BeautifulSoup(refused.text, "html.parser").select_one(".errors").text
    # The owner, at home, is not locked out; nor is another account from the stranger's address.
    sign_in(browser(team_app, "198.51.100.20"), "alice")
    sign_in(stranger, "bob")


def test_strangers_everywhere_cannot_lock_out_a_browser_that_signed_in_before(team_app: FastAPI) -> None:
    owner = sign_in(browser(team_app, "198.51.100.20"), "alice")
    assert throttle.DEVICE_COOKIE in owner.cookies
    assert owner.post("/logout").status_code == 303
    # Signing out gives the browser a new CSRF token, which the sign-in page it is sent to carries.
    with_csrf(owner, "/login")
    strangers = [browser(team_app, f"203.0.113.{n}") for n in range(1, 60)]
    # Guessing from many addresses at once: the name's own (slower) limit stops them.
    statuses = [wrong(s, "alice") for s in strangers for _ in range(2)]
    assert statuses.count(401) == throttle.MAX_FAILURES_PER_NAME and statuses[-1] == 429
    assert wrong(browser(team_app, "192.0.2.99"), "alice") == 429
    # The owner's browser is counted on its own: her right password still lets her in.
    sign_in(owner, "alice")
    assert owner.get("/api/me").json()["name"] == "alice"


def test_a_device_cookie_for_someone_else_earns_no_trust(team_app: FastAPI) -> None:
    bobs = sign_in(browser(team_app, "198.51.100.30"), "bob")
    device = bobs.cookies[throttle.DEVICE_COOKIE]
    strangers = [browser(team_app, f"203.0.113.{n}") for n in range(1, 60)]
    statuses = [wrong(s, "alice") for s in strangers for _ in range(2)]
    assert statuses[-1] == 429
    for cookie in (device, "forged." + "A" * 40):
        client = browser(team_app, "198.51.100.31")
        client.cookies.set(throttle.DEVICE_COOKIE, cookie)
        assert (
            client.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]}).status_code
            == 429
        )


def test_successful_sign_ins_from_one_address_are_limited(tmp_path: Path) -> None:
    app = _app_with(tmp_path, sign_ins_per_address=3)
    for _ in range(3):
        sign_in(browser(app, "198.51.100.40"), "alice")
    again = browser(app, "198.51.100.40").post(
        "/login", data={"username": "alice", "password": PASSWORDS["alice"]}
    )
    assert again.status_code == 429 and int(again.headers["retry-after"]) > 0
    sign_in(browser(app, "198.51.100.41"), "alice")  # another address is not held back
    app.state.db.dispose()


def _app_with(data_dir: Path, **extra: Any) -> FastAPI:
    from app.factory import create_app

    app = create_app(accounts_settings(data_dir, **extra))
    with app.state.db.write_sessions() as session:
        service.create_user(session, name="alice", role="member", password=PASSWORDS["alice"])
        session.commit()
    return app


def test_wrong_current_passwords_are_throttled_and_audited_like_sign_ins(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    alice = signed_in("alice")
    change = {"current_password": "not my password", "new_password": "a brand new phrase 9"}
    for _ in range(throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS):
        refused = alice.post("/account/password", data=change)
        assert refused.status_code == 422
        assert "current password" in BeautifulSoup(refused.text, "html.parser").select_one(".errors").text
    assert events(team_app, "password_check_failed") == throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS
    right = {**change, "current_password": PASSWORDS["alice"]}
    throttled = alice.post("/account/password", data=right)
    assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) > 0
    assert events(team_app, "password_changed") == 0
    assert sign_in(fresh_client(team_app), "alice")  # the old password still stands


def test_every_name_costs_one_argon2_verification(team_app: FastAPI, verifications: list[str]) -> None:
    with team_app.state.db.write_sessions() as session:
        service.create_user(session, name="proxied", role="member")  # a person without a password
        session.commit()
    for name in ("alice", "proxied", "nobody-at-all"):
        verifications.clear()
        assert wrong(browser(team_app, "198.51.100.50"), name) == 401
        assert len(verifications) == 1, name
        assert verifications[0].startswith("$argon2id$")


@pytest.fixture
def slow_verify(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Argon2 that stops in the middle of a check until released, as a long hash would."""
    entered, release = threading.Event(), threading.Event()

    def held(_stored: str) -> None:
        entered.set()
        release.wait(30)

    monkeypatch.setattr(passwords, "_hasher", Hasher(passwords._hasher, held))
    yield entered, release
    release.set()


def test_another_persons_answer_is_stored_while_a_password_is_being_checked(
    signed_in: Callable[[str], TestClient],
    team_app: FastAPI,
    slow_verify: tuple[threading.Event, threading.Event],
) -> None:
    bob = signed_in("bob")
    entered, release = slow_verify
    signing_in = threading.Thread(
        target=wrong, args=(browser(team_app, "198.51.100.60"), "alice"), daemon=True
    )
    signing_in.start()
    assert entered.wait(30)
    answered: list[int] = []
    writer = threading.Thread(
        target=lambda: answered.append(
            bob.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload()).status_code
        ),
        daemon=True,
    )
    writer.start()
    writer.join(10)
    # Bob's answer got in before alice's check finished.
    finished_first = answered == [201]
    release.set()
    writer.join(30)
    signing_in.join(30)
    assert finished_first, answered


def test_checks_older_than_every_window_are_forgotten(team_app: FastAPI) -> None:
    stranger = browser(team_app, "203.0.113.70")
    for _ in range(throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS):
        assert wrong(stranger, "alice") == 401
    with team_app.state.db.write_sessions() as session:
        long_ago = utcnow() - throttle.NAME_WINDOW - timedelta(minutes=1)
        session.execute(update(SignInAttempt).values(at=long_ago))
        session.commit()
    assert wrong(stranger, "alice") == 401  # counted afresh
    with team_app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).select_from(SignInAttempt)) == 1


@pytest.mark.parametrize("name", ["al\x00ice", "a name with spaces", "ünïcødé", ""])
def test_a_name_nobody_can_have_is_refused_like_a_wrong_password(team_app: FastAPI, name: str) -> None:
    response = browser(team_app, "198.51.100.80").post("/login", data={"username": name, "password": "x"})
    assert response.status_code == 401
    assert "do not match" in BeautifulSoup(response.text, "html.parser").select_one(".errors").text
    assert events(team_app, "sign_in_failed") == 1


def test_a_name_with_a_nul_is_counted_like_any_wrong_name(team_app: FastAPI) -> None:
    stranger = browser(team_app, "198.51.100.81")
    for _ in range(throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS):
        assert wrong(stranger, "al\x00ice") == 401
    assert wrong(stranger, "al\x00ice") == 429


@pytest.mark.parametrize("needs_rehash", [False, True], ids=["current-hash", "old-parameters"])
def test_a_sign_in_with_the_old_password_during_a_password_change_gets_no_session(
    team_app: FastAPI, monkeypatch: pytest.MonkeyPatch, needs_rehash: bool
) -> None:
    new_password = "a brand new phrase 9"
    new_hash = passwords.hash_password(new_password)
    changed: list[bool] = []

    def change_password_meanwhile(_stored: str) -> None:
        if changed:
            return
        changed.append(True)
        with team_app.state.db.write_sessions() as session:
            user = service.user_named(session, name="alice")
            assert user is not None
            service.set_password(session, user=user, password_hash=new_hash)
            session.commit()

    monkeypatch.setattr(passwords, "needs_rehash", lambda _stored: needs_rehash)
    monkeypatch.setattr(passwords, "_hasher", Hasher(passwords._hasher, change_password_meanwhile))
    client = browser(team_app, "198.51.100.60")
    old = client.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]})
    assert old.status_code == 401
    assert client.get("/api/me").status_code == 401
    monkeypatch.setattr(passwords, "needs_rehash", lambda _stored: False)
    # The new password stands (no rehash wrote the old one back); the old one opens nothing.
    assert wrong(browser(team_app, "198.51.100.61"), "alice") == 401
    assert sign_in(browser(team_app, "198.51.100.62"), "alice", new_password)
    refused = browser(team_app, "198.51.100.63").post(
        "/login", data={"username": "alice", "password": PASSWORDS["alice"]}
    )
    assert refused.status_code == 401


def test_fresh_ipv6_addresses_from_one_64_share_the_per_address_limit(team_app: FastAPI) -> None:
    for n in range(throttle.MAX_FAILURES_PER_ADDRESS):
        assert wrong(browser(team_app, f"2001:db8:1:2::{n + 1:x}"), f"guess{n}") == 401
    assert wrong(browser(team_app, "2001:db8:1:2:ffff::1"), "another-guess") == 429
    # Another /64 is another subscriber, and its owner still signs in.
    sign_in(browser(team_app, "2001:db8:1:3::1"), "alice")
    with team_app.state.db.read_sessions() as session:
        # The audit log keeps each address as it was.
        failed = session.scalars(select(AuditEvent.address).where(AuditEvent.kind == "sign_in_failed"))
        assert "2001:db8:1:2::1" in set(failed)


def test_strangers_at_the_owners_address_cannot_lock_out_her_browser(team_app: FastAPI) -> None:
    shared = "198.51.100.90"  # an office, or a carrier's NAT
    owner = sign_in(browser(team_app, shared), "alice")
    assert owner.post("/logout").status_code == 303
    with_csrf(owner, "/login")
    for n in range(throttle.MAX_FAILURES_PER_ADDRESS):
        assert wrong(browser(team_app, shared), f"guess{n}") == 401
    assert wrong(browser(team_app, shared), "alice") == 429
    # Her browser, known by its device cookie, is counted on its own.
    sign_in(owner, "alice")
    assert owner.get("/api/me").json()["name"] == "alice"


def test_a_device_cookie_past_its_age_earns_no_trust(
    team_app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from itsdangerous.timed import TimestampSigner

    secret = team_app.state.settings.secret_key
    signed_at = int(time.time()) - throttle.DEVICE_DAYS * 86400 - 60
    with monkeypatch.context() as then:
        then.setattr(TimestampSigner, "get_timestamp", lambda _self: signed_at)
        stale = throttle.device_cookie(secret, "alice")
    assert (
        throttle.trusted_device(secret, cookie=throttle.device_cookie(secret, "alice"), name="alice")
        is not None
    )
    strangers = [browser(team_app, f"203.0.113.{n}") for n in range(1, 60)]
    statuses = [wrong(s, "alice") for s in strangers for _ in range(2)]
    assert statuses[-1] == 429
    owner = browser(team_app, "198.51.100.95")
    owner.cookies.set(throttle.DEVICE_COOKIE, stale)
    refused = owner.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]})
    assert refused.status_code == 429
