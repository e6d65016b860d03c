"""AUTH_MODE=proxy behind a real nginx with basic auth, configured the way docs/team.md says a
proxy must be: it names the person in Remote-User, their groups in Remote-Groups, and replaces
whatever a client sent in those headers.

The app believes the header only from TRUSTED_PROXIES, judged by the connecting address. On one
machine nginx and the test client both connect from 127.0.0.1, so the instance behind nginx
(TRUSTED_PROXIES=127.0.0.1/32) cannot tell them apart: that is why docs/team.md says the app must
be reachable only through the proxy. The refusal of a client talking straight to the app is
therefore shown on a second instance whose trusted proxy is another address (192.0.2.1/32), as
a direct client on another machine would see it.
"""

import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.accounts import service
from tests.helpers.accounts import sign_in
from tests.helpers.clients import csrf_client
from tests.helpers.nginx_proxy import PASSWORDS, VISITOR, Deployment, audited_addresses, behind_nginx
from tests.servers import start_server, stop
from tests.services import engine_for

GROUP_ROLES = "tc-admins=admin,tc-leads=lead"


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    env = {"AUTH_MODE": "proxy", "TRUSTED_PROXIES": "127.0.0.1/32", "GROUP_ROLES": GROUP_ROLES}
    with behind_nginx(tmp_path_factory, env) as found:
        yield found


@pytest.fixture(scope="module")
def accounts_deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """AUTH_MODE=accounts behind nginx (no basic auth there): people sign in with a password."""
    env = {"AUTH_MODE": "accounts", "TRUSTED_PROXIES": "127.0.0.1/32"}
    with behind_nginx(tmp_path_factory, env, basic_auth=False) as found:
        engine = engine_for(found.data_dir)
        try:
            with Session(engine) as session:
                service.create_user(session, name="alice", role="member", password=PASSWORDS["alice"])
                session.commit()
        finally:
            engine.dispose()
        yield found


@pytest.fixture(scope="module")
def unproxied_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An instance trusting a proxy at 192.0.2.1 only, reached directly from 127.0.0.1."""
    app, url = start_server(
        tmp_path_factory.mktemp("direct-app"),
        "--no-worker",
        env={"AUTH_MODE": "proxy", "TRUSTED_PROXIES": "192.0.2.1/32", "GROUP_ROLES": GROUP_ROLES},
    )
    try:
        yield url
    finally:
        stop(app)


def _people(data_dir: Path) -> set[str]:
    engine = engine_for(data_dir)
    try:
        with engine.connect() as db:
            return set(db.scalars(text("SELECT name FROM users")))
    finally:
        engine.dispose()


def _upstream_of(access_log: Path, request_uri: str) -> str:
    """nginx writes its log line just after answering; wait for it."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for line in access_log.read_text().splitlines():
            uri, _status, upstream = line.split(" ", 2)
            if uri == request_uri:
                return upstream
        time.sleep(0.05)
    raise AssertionError(f"nginx logged no request for {request_uri}")


def test_the_right_password_signs_the_person_in_with_their_groups_role(deployment: Deployment) -> None:
    alice = httpx.Client(base_url=deployment.nginx_url, auth=("alice", PASSWORDS["alice"]))
    rhea = httpx.Client(base_url=deployment.nginx_url, auth=("rhea", PASSWORDS["rhea"]))
    with alice, rhea:
        assert alice.get("/api/me").json() == {"name": "alice", "role": "lead"}
        assert rhea.get("/api/me").json() == {"name": "rhea", "role": "admin"}
        page = alice.get("/account")
        assert page.status_code == 200
        assert "Signed in as <strong>alice</strong>" in page.text


def test_a_wrong_password_stops_at_nginx(deployment: Deployment) -> None:
    uri = "/api/me?probe=wrong-password"
    response = httpx.get(deployment.nginx_url + uri, auth=("mallory", "guess"))
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Basic realm="tiercards"'
    assert _upstream_of(deployment.access_log, uri) == "-"
    assert "mallory" not in _people(deployment.data_dir)


def test_a_client_sent_remote_user_is_replaced_or_refused(deployment: Deployment) -> None:
    forged = {"Remote-User": "admin", "Remote-Groups": "tc-admins"}
    uri = "/api/me?probe=forged-without-auth"
    assert httpx.get(deployment.nginx_url + uri, headers=forged).status_code == 401
    assert _upstream_of(deployment.access_log, uri) == "-"
    as_alice = httpx.get(deployment.nginx_url + "/api/me", headers=forged, auth=("alice", PASSWORDS["alice"]))
    assert as_alice.json() == {"name": "alice", "role": "lead"}
    assert "admin" not in _people(deployment.data_dir)


def test_straight_to_the_app_the_header_is_not_believed(unproxied_url: str) -> None:
    forged = {"Remote-User": "admin", "Remote-Groups": "tc-admins"}
    assert httpx.get(unproxied_url + "/api/me", headers=forged).status_code == 401
    page = httpx.get(unproxied_url + "/practice", headers=forged)
    assert page.status_code == 401 and "through the proxy" in page.text


def test_straight_to_the_app_x_forwarded_for_does_not_make_a_proxy(unproxied_url: str) -> None:
    forged = {"Remote-User": "admin", "X-Forwarded-For": "192.0.2.1"}
    assert httpx.get(unproxied_url + "/api/me", headers=forged).status_code == 401


def test_the_audit_log_names_the_visitor_behind_nginx_not_nginx(accounts_deployment: Deployment) -> None:
    visitor = {"X-Forwarded-For": VISITOR}
    with closing(csrf_client(accounts_deployment.nginx_url, page="/login", headers=visitor)) as browser:
        sign_in(browser, "alice", PASSWORDS["alice"])
        export = browser.get("/api/export.json")
        assert export.status_code == 200
        imported = browser.post(
            "/api/import", content=export.content, headers={"Content-Type": "application/json"}
        )
        assert imported.status_code == 200, imported.text
    addresses = audited_addresses(accounts_deployment.data_dir)
    for kind in ("sign_in", "export", "import"):
        assert addresses.get(kind) == {VISITOR}, (kind, addresses)
