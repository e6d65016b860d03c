"""What a hostile client tries against the web layer: each is refused with a clear 4xx, or the
response carries what keeps it safe, and nothing is stored on refusal."""

import math
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app import PROJECT_ROOT
from app.factory import create_app
from app.settings import Settings
from app.web.security import CSRF_COOKIE
from tests.factories import OWNER_CARD
from tests.helpers.accounts import PASSWORDS, fresh_client, sign_in
from tests.helpers.clients import page_token, with_csrf
from tests.helpers.payloads import attempt_payload

ATTEMPTS = f"/api/cards/{OWNER_CARD}/attempts"


def stored_count(client: TestClient) -> int:
    return len(client.get("/api/attempts").json())


# --- CSRF --------------------------------------------------------------------------------------


def test_a_forged_csrf_pair_is_refused(anonymous_client: TestClient) -> None:
    anonymous_client.cookies.set(CSRF_COOKIE, "aaa.bbb")
    response = anonymous_client.post(ATTEMPTS, json=attempt_payload(), headers={"X-CSRF-Token": "aaa.bbb"})
    assert response.status_code == 403
    assert stored_count(anonymous_client) == 0


def _attempt_with(client: TestClient, token: str) -> int:
    return client.post(ATTEMPTS, json=attempt_payload(), headers={"X-CSRF-Token": token}).status_code


def test_where_no_sign_in_cookie_names_anyone_a_planted_one_does_not_choose_the_token(
    anonymous_client: TestClient,
) -> None:
    # Single mode (proxy mode alike): whoever can plant a sign-in cookie could read the token it
    # leads to off a page of their own; here it leads to none.
    anonymous_client.cookies.set("tiercards_session", "chosen-by-someone-else")
    token = page_token(anonymous_client, "/")
    assert token == anonymous_client.cookies[CSRF_COOKIE]
    assert _attempt_with(anonymous_client, token) == 201


def test_a_csrf_cookie_planted_from_elsewhere_does_not_work_for_a_signed_in_person(team_app: FastAPI) -> None:
    """A cookie another site managed to set (a sibling subdomain can) with its own token: the
    signed-in person's writes are judged against their own session, not the cookie."""
    planted = fresh_client(team_app).cookies[CSRF_COOKIE]
    bob = sign_in(fresh_client(team_app), "bob")
    bob.cookies.set(CSRF_COOKIE, planted, domain="testserver.local")
    assert _attempt_with(bob, planted) == 403
    assert bob.get("/api/attempts").json() == []
    assert _attempt_with(bob, page_token(bob)) == 201


def test_the_csrf_token_changes_at_sign_in_and_at_sign_out(team_app: FastAPI) -> None:
    browser = fresh_client(team_app)
    before = page_token(browser, "/login")
    sign_in(browser, "bob")
    del browser.headers["X-CSRF-Token"]  # each request below sends its own
    signed_in = page_token(browser)
    assert signed_in != before
    assert _attempt_with(browser, before) == 403
    assert _attempt_with(browser, signed_in) == 201
    assert browser.post("/logout", headers={"X-CSRF-Token": signed_in}).status_code == 303
    after = page_token(browser, "/login")
    assert after not in (before, signed_in)
    login = {"username": "bob", "password": PASSWORDS["bob"]}
    for stale in (before, signed_in):
        assert browser.post("/login", data={**login, "csrf_token": stale}).status_code == 403
    assert browser.post("/login", data={**login, "csrf_token": after}).status_code == 303


def test_another_person_s_token_is_refused(signed_in: Callable[[str], TestClient]) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    assert _attempt_with(bob, page_token(alice)) == 403
    assert bob.get("/api/attempts").json() == []


# --- Host and Origin ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "testserver:x@evil.example",
        "127.0.0.1:x@evil.example",
        "[::1]evil.example",
        "[::1]:80@evil.example",
        "testserver@evil.example",
        "testserver:80x",
        "testserver:",
        "testserver:8000:1",
        "testserver/evil",
        "[not-an-address]",
        "",
    ],
)
def test_a_host_that_is_not_a_name_or_address_with_a_port_is_refused(settings: Settings, host: str) -> None:
    for allowed in (["testserver", "127.0.0.1", "::1"], ["*"]):
        app = create_app(settings.model_copy(update={"allowed_hosts": allowed}))
        with TestClient(app) as client:
            response = client.get("/healthz", headers={"Host": host})
        assert response.status_code == 400, (host, allowed)


@pytest.mark.parametrize(
    "host", ["testserver", "testserver:8000", "127.0.0.1:8000", "[::1]:8000", "TestServer"]
)
def test_a_plain_host_name_or_address_with_a_port_is_answered(settings: Settings, host: str) -> None:
    app = create_app(settings.model_copy(update={"allowed_hosts": ["testserver", "127.0.0.1", "::1"]}))
    with TestClient(app) as client:
        assert client.get("/healthz", headers={"Host": host}).status_code == 200


def test_an_invite_link_is_never_built_from_a_host_with_a_user_part(
    signed_in: Callable[[str], TestClient],
) -> None:
    root = signed_in("root")
    response = root.post(
        "/admin/invites", data={"role": "member", "days": "7"}, headers={"Host": "testserver:x@evil.example"}
    )
    assert response.status_code == 400
    assert "evil.example/invite" not in response.text


@pytest.mark.parametrize("origin", ["null", "https://testserver", "ftp://testserver", "http://[testserver"])
def test_a_write_from_an_opaque_origin_or_another_scheme_is_refused(client: TestClient, origin: str) -> None:
    response = client.post(ATTEMPTS, json=attempt_payload(), headers={"Origin": origin})
    assert response.status_code == 403
    assert stored_count(client) == 0


def test_a_foreign_host_is_refused_before_anything_is_read(client: TestClient) -> None:
    response = client.get("/api/export.json", headers={"Host": "attacker.example"})
    assert response.status_code == 400
    assert "ALLOWED_HOSTS" in response.text


def test_a_write_from_a_foreign_origin_is_refused_and_stores_nothing(client: TestClient) -> None:
    response = client.post(ATTEMPTS, json=attempt_payload(), headers={"Origin": "http://attacker.example"})
    assert response.status_code == 403
    assert stored_count(client) == 0


def test_a_write_from_the_sites_own_origin_is_accepted(client: TestClient) -> None:
    response = client.post(ATTEMPTS, json=attempt_payload(), headers={"Origin": "http://testserver"})
    assert response.status_code == 201


# --- Page cache ----------------------------------------------------------------------------------


def test_a_boosted_request_does_not_poison_the_fragment_cache(client: TestClient) -> None:
    url = f"/cards/{OWNER_CARD}?tier=senior"
    boosted = client.get(url, headers={"HX-Request": "true", "HX-Boosted": "true"})
    assert BeautifulSoup(boosted.text, "html.parser").find("html") is not None
    fragment = client.get(url, headers={"HX-Request": "true"})
    assert BeautifulSoup(fragment.text, "html.parser").find("html") is None


# --- Bodies --------------------------------------------------------------------------------------


@pytest.fixture
def small_body_client(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"max_body_bytes": 64 * 1024}))
    with TestClient(app) as client:
        yield with_csrf(client)


def test_a_body_over_the_cap_is_refused_with_413_and_stores_nothing(small_body_client: TestClient) -> None:
    payload = attempt_payload(text="x" * (200 * 1024))
    response = small_body_client.post(ATTEMPTS, json=payload)
    assert response.status_code == 413
    assert "64 KB" in response.json()["detail"]
    assert stored_count(small_body_client) == 0


def test_a_streamed_body_over_the_cap_is_refused_without_a_length(small_body_client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b"x" * 4096

    response = small_body_client.post(
        ATTEMPTS, content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert stored_count(small_body_client) == 0


def test_an_import_over_its_own_cap_is_refused_before_it_is_read(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"max_body_bytes": 4096, "max_import_bytes": 64 * 1024}))
    with TestClient(app) as client:
        with_csrf(client)
        big = b'{"format": "tiercards-export", "pad": "' + b"x" * (128 * 1024) + b'"}'
        response = client.post("/api/import", content=big, headers={"Content-Type": "application/json"})
        assert response.status_code == 413 and "64 KB" in response.json()["detail"]
        # Below its cap an import is read, though it is larger than any other body may be.
        small = b'{"format": "nope", "pad": "' + b"x" * 8192 + b'"}'
        assert (
            client.post(
                "/api/import", content=small, headers={"Content-Type": "application/json"}
            ).status_code
            == 422
        )


def test_a_422_does_not_echo_the_input_back(client: TestClient) -> None:
    response = client.post(ATTEMPTS, json=attempt_payload(tier="x" * 5000))
    assert response.status_code == 422
    assert len(response.content) < 2000
    assert all("input" not in item for item in response.json()["detail"])


# --- Values that used to reach the database and make a 500 -------------------------------------


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -math.inf])
def test_non_finite_seconds_are_refused(client: TestClient, seconds: float) -> None:
    literal = {math.inf: "Infinity", -math.inf: "-Infinity"}.get(seconds, "NaN")
    body = '{"tier": "middle", "kind": "solid", "text": "an answer", "seconds": ' + literal + "}"
    response = client.post(ATTEMPTS, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert stored_count(client) == 0


def test_a_lone_surrogate_in_an_answer_is_refused(client: TestClient) -> None:
    body = '{"tier": "middle", "kind": "solid", "text": "half a pair \\ud800", "seconds": 3}'
    response = client.post(ATTEMPTS, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert stored_count(client) == 0


# --- Responses ----------------------------------------------------------------------------------


def test_an_unexpected_error_is_a_500_with_the_security_headers(settings: Settings) -> None:
    app = create_app(settings)
    boom = APIRouter()

    @boom.get("/boom")
    def explode() -> None:
        raise RuntimeError("secret internals")

    app.include_router(boom)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/boom")
    assert response.status_code == 500
    assert "secret internals" not in response.text
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" in response.headers


def test_exports_are_never_cached(client: TestClient) -> None:
    for url in ("/api/export.json", "/api/export.csv"):
        assert client.get(url).headers["cache-control"] == "no-store"


def test_card_list_names_broken_files_without_server_paths(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "broken.md").write_text("---\nid: [unclosed\n---\n", encoding="utf-8")
    app = create_app(settings.model_copy(update={"content_dir": tmp_path}))
    with TestClient(app) as client:
        body = client.get("/api/cards").json()
    assert {item["path"] for item in body["broken"]} == {"broken.md"}
    assert str(tmp_path) not in str(body) and str(PROJECT_ROOT) not in str(body)


def test_production_sends_hsts(settings: Settings, app: FastAPI) -> None:
    production = settings.model_copy(update={"environment": "production", "allowed_hosts": ["testserver"]})
    with TestClient(create_app(production), base_url="https://testserver") as client:
        response = client.get("/healthz")
    assert response.headers["strict-transport-security"].startswith("max-age=")


# --- Settings -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", [" " * 40, "a" * 40, "ab" * 20])
def test_production_refuses_a_secret_key_without_entropy(tmp_path: Path, key: str) -> None:
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(environment="production", secret_key=key, data_dir=tmp_path, allowed_hosts=["example.org"])


def test_production_needs_allowed_hosts(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="ALLOWED_HOSTS"):
        Settings(
            environment="production", secret_key=os.urandom(24).hex(), data_dir=tmp_path, allowed_hosts=[]
        )


def test_the_development_secret_is_private_from_its_first_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Were the file created readable and narrowed afterwards, it would stay readable without chmod.
    monkeypatch.setattr(Path, "chmod", lambda *_args, **_kwargs: None)
    old = os.umask(0)
    try:
        Settings(data_dir=tmp_path)
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "secret_key").stat().st_mode)
    assert mode == 0o600


# --- HTTPS in production -------------------------------------------------------------------------


def _production(settings: Settings, **extra: object) -> FastAPI:
    values = {**settings.model_dump(), "environment": "production", "allowed_hosts": ["testserver"], **extra}
    return create_app(Settings.model_validate(values))


def test_production_over_plain_http_from_the_network_says_https_is_required(settings: Settings) -> None:
    with TestClient(_production(settings), client=("192.0.2.10", 5000)) as client:
        response = client.get("/")
    assert response.status_code == 400
    assert BeautifulSoup(response.text, "html.parser").h1.text == "HTTPS is required"


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000"])
def test_the_production_recipe_opened_on_a_laptop_answers_a_page_saying_what_to_set(
    settings: Settings, host: str
) -> None:
    app = _production(settings, allowed_hosts=["cards.example.org"])
    with TestClient(app, base_url=f"http://{host}", client=("127.0.0.1", 5000)) as client:
        response = client.get("/login")
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    page = BeautifulSoup(response.text, "html.parser")
    said = page.main.get_text(" ") if page.main else ""
    name = host.split(":")[0]
    assert f"ALLOWED_HOSTS={name}" in said and "ENVIRONMENT" in said


def test_a_host_not_served_gets_a_page_naming_the_setting_and_never_the_hosts_served(
    client: TestClient,
) -> None:
    response = client.get("/login", headers={"Host": "attacker.example"})
    assert response.status_code == 400 and response.headers["content-type"].startswith("text/html")
    said = BeautifulSoup(response.text, "html.parser").main.get_text(" ")
    assert "ALLOWED_HOSTS=attacker.example" in said and "testserver" not in said


def test_production_believes_x_forwarded_proto_only_from_a_trusted_proxy(settings: Settings) -> None:
    app = _production(settings, trusted_proxies=["192.0.2.1/32"])
    with TestClient(app, client=("192.0.2.1", 5000)) as proxy:
        response = proxy.get("/healthz", headers={"X-Forwarded-Proto": "https"})
        assert response.status_code == 200
        assert "strict-transport-security" in response.headers
    with TestClient(app, client=("198.51.100.7", 5000)) as stranger:
        assert stranger.get("/healthz", headers={"X-Forwarded-Proto": "https"}).status_code == 400


def test_production_believes_a_loopback_proxy_that_says_the_visitor_came_over_http(
    settings: Settings,
) -> None:
    app = _production(settings, trusted_proxies=["127.0.0.1/32"])
    with TestClient(app, client=("127.0.0.1", 5000)) as proxy:
        response = proxy.get("/", headers={"X-Forwarded-Proto": "http"})
        assert response.status_code == 400
        assert BeautifulSoup(response.text, "html.parser").h1.text == "HTTPS is required"
        assert proxy.get("/healthz", headers={"X-Forwarded-Proto": "https"}).status_code == 200
        # Its own health check, with no visitor behind it, keeps the loopback exemption.
        assert proxy.get("/healthz").status_code == 200


def test_production_on_loopback_still_answers_over_http(settings: Settings) -> None:
    with TestClient(_production(settings), client=("127.0.0.1", 5000)) as client:
        assert client.get("/healthz").status_code == 200
