"""Signing in through a real OpenID provider: panva's oidc-provider (OpenID-certified) on Node.js,
started from tests/accounts/oidc_provider. A test is a browser: tiercards' TestClient for the app,
an httpx client for the provider, which signs in on the provider's own login page and consents
there, then brings the code back to /auth/oidc/callback."""

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient
from joserfc import jwt
from joserfc.jwk import KeySet, OctKey, RSAKey
from sqlalchemy import func, select

from app.accounts import openid, service
from app.accounts.models import LOCAL_USER_ID, AuditEvent, SignInSession, User
from app.accounts.routers.oidc import FLOW_COOKIE, FLOW_PATH
from app.exceptions import Invalid
from app.factory import create_app
from app.settings import Settings
from tests.helpers.accounts import PASSWORDS, accounts_settings, fresh_client
from tests.helpers.oidc import CLIENT_ID, CLIENT_SECRET, PEOPLE, REDIRECT_URI, OpenIdProvider, to_callback
from tests.servers import free_port

GROUP_ROLES = {"team-leads": "lead", "tiercards-admins": "admin"}


def _oidc_app(data_dir: Path, **settings: object) -> FastAPI:
    app = create_app(accounts_settings(data_dir, group_roles=GROUP_ROLES, **settings))
    with app.state.db.write_sessions() as session:
        service.create_user(session, name="alice", role="member", password=PASSWORDS["alice"])
        session.commit()
    return app


@pytest.fixture
def oidc_app(provider: OpenIdProvider, tmp_path: Path) -> Iterator[FastAPI]:
    provider.set_people(PEOPLE)
    app = _oidc_app(
        tmp_path,
        oidc_issuer_url=provider.url,
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
    )
    yield app
    app.state.db.dispose()


@pytest.fixture
def browser() -> Iterator[httpx.Client]:
    """The browser's side at the provider: its cookies (the provider's own session) and pages."""
    with httpx.Client(timeout=10) as client:
        yield client


# --- going through the provider as a browser does ---------------------------------------------------


def start(client: TestClient, next_path: str = "/") -> str:
    """Ask tiercards to sign in through the provider; the URL it sends the browser to."""
    response = client.get("/auth/oidc/login", params={"next": next_path})
    assert response.status_code == 303, response.text
    return response.headers["location"]


def sign_in_at_provider(
    client: TestClient, browser: httpx.Client, login: str, next_path: str = "/"
) -> httpx.Response:
    callback = to_callback(browser, start(client, next_path), login, str(PEOPLE[login]["password"]))
    return client.get(callback)


def with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {key: values[0] for key, values in parse_qs(parts.query).items()} | changes
    return parts._replace(query=urlencode(query)).geturl()


def put_flow_cookie(client: TestClient, value: str) -> None:
    """What a browser holding this flow cookie would send (TestClient's cookies live on testserver.local)."""
    client.cookies.set(FLOW_COOKIE, value, domain="testserver.local", path=FLOW_PATH)


def stored(app: FastAPI) -> tuple[int, int, int]:
    """People, sign-in sessions and audit events: what a refused sign-in must leave as it was."""
    with app.state.db.read_sessions() as session:
        return tuple(  # type: ignore[return-value]
            int(session.scalar(select(func.count()).select_from(model)) or 0)
            for model in (User, SignInSession, AuditEvent)
        )


def person(app: FastAPI, subject: str) -> User:
    with app.state.db.read_sessions() as session:
        user = service.user_by_subject(session, subject)
        assert user is not None
        session.expunge(user)
        return user


def assert_refused(response: httpx.Response, status: int, says: str) -> None:
    assert response.status_code == status, response.text
    page = BeautifulSoup(response.text, "html.parser")
    assert says in page.select_one(".errors").text  # type: ignore[union-attr]
    assert page.find("a", href="/login") is not None
    cookies = response.headers.get_list("set-cookie")
    assert not any(c.startswith("tiercards_session=") for c in cookies)
    assert any(c.startswith(f"{FLOW_COOKIE}=") and "Max-Age=0" in c for c in cookies)  # the flow is over


# --- the tests ----------------------------------------------------------------------------------------


def test_a_person_signs_in_through_the_provider_and_lands_where_they_were_going(
    oidc_app: FastAPI, browser: httpx.Client, provider: OpenIdProvider
) -> None:
    client = fresh_client(oidc_app)
    login_page = BeautifulSoup(client.get("/login?next=/progress").text, "html.parser")
    link = login_page.find("a", string="Sign in with your organisation")
    assert link is not None and link["href"] == "/auth/oidc/login?next=/progress"

    asked = parse_qs(urlsplit(start(client, "/progress")).query)
    assert asked["code_challenge_method"] == ["S256"] and asked["redirect_uri"] == [REDIRECT_URI]
    assert {"state", "nonce", "code_challenge"} <= asked.keys()
    assert "groups" in asked["scope"][0].split()
    cookie = next(c for c in client.cookies.jar if c.name == FLOW_COOKIE)
    assert cookie.path == FLOW_PATH and cookie.has_nonstandard_attr("HttpOnly")

    response = sign_in_at_provider(client, browser, "carol", "/progress")
    assert response.status_code == 303 and response.headers["location"] == "/progress"
    assert client.get("/api/me").json() == {"name": "carol", "role": "lead"}
    assert client.get("/progress").status_code == 200
    assert FLOW_COOKIE not in client.cookies  # spent
    carol = person(oidc_app, f"{provider.url}|carol")
    assert carol.name == "carol" and carol.password_hash is None
    with oidc_app.state.db.read_sessions() as session:
        sign_in = session.scalar(select(AuditEvent).where(AuditEvent.kind == "sign_in"))
        assert sign_in is not None and sign_in.user_id == carol.id and sign_in.detail["how"] == "oidc"


def test_a_taken_name_is_made_unique_and_the_local_account_is_left_alone(
    oidc_app: FastAPI, browser: httpx.Client, provider: OpenIdProvider
) -> None:
    client = fresh_client(oidc_app)
    assert sign_in_at_provider(client, browser, "dave").status_code == 303
    assert client.get("/api/me").json() == {"name": "alice-2", "role": "member"}
    assert person(oidc_app, f"{provider.url}|dave").name == "alice-2"
    with oidc_app.state.db.read_sessions() as session:
        alice = service.user_named(session, name="alice")
        assert alice is not None and alice.oidc_subject is None


def test_behind_a_trusted_proxy_the_sign_in_is_audited_with_the_visitor_s_address(
    provider: OpenIdProvider, browser: httpx.Client, tmp_path: Path
) -> None:
    app = _oidc_app(
        tmp_path,
        oidc_issuer_url=provider.url,
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
        trusted_proxies=["192.0.2.1/32"],
    )
    client = fresh_client(app, client=("192.0.2.1", 5000), headers={"X-Forwarded-For": "203.0.113.9"})
    assert sign_in_at_provider(client, browser, "carol").status_code == 303
    carol = person(app, f"{provider.url}|carol")
    with app.state.db.read_sessions() as session:
        events = session.scalars(select(AuditEvent).where(AuditEvent.user_id == carol.id)).all()
        assert {event.kind for event in events} >= {"user_created", "sign_in"}
        assert {event.address for event in events} == {"203.0.113.9"}
    app.state.db.dispose()


def test_a_group_change_at_the_provider_changes_the_role_at_the_next_sign_in(
    oidc_app: FastAPI, browser: httpx.Client, provider: OpenIdProvider
) -> None:
    assert sign_in_at_provider(fresh_client(oidc_app), browser, "carol").status_code == 303
    provider.set_groups("carol", ["staff", "tiercards-admins"])
    admin = fresh_client(oidc_app)
    assert sign_in_at_provider(admin, browser, "carol").status_code == 303
    assert admin.get("/api/me").json() == {"name": "carol", "role": "admin"}
    # Out of every group that maps to a role: the provider is authoritative, back to member.
    provider.set_groups("carol", ["staff"])
    lowered = fresh_client(oidc_app)
    assert sign_in_at_provider(lowered, browser, "carol").status_code == 303
    assert lowered.get("/api/me").json() == {"name": "carol", "role": "member"}
    assert lowered.get("/admin/users").status_code == 403
    with oidc_app.state.db.read_sessions() as session:
        changes = session.scalars(select(AuditEvent).where(AuditEvent.kind == "role_changed")).all()
        assert [c.detail for c in changes] == [
            {"old": "lead", "new": "admin", "via": "oidc"},
            {"old": "admin", "new": "member", "via": "oidc"},
        ]
        # The same carol each time, found by her subject.
        assert [u.name for u in service.all_users(session) if u.oidc_subject] == ["carol"]


@pytest.mark.parametrize(
    ("wanted", "given"),
    [("local", "local-2"), ("admin", "admin-2"), ("Alice", "Alice-2"), ("root", "root-2")],
)
def test_a_provider_cannot_name_someone_the_solo_history_a_reserved_or_a_look_alike_name(
    oidc_app: FastAPI, browser: httpx.Client, provider: OpenIdProvider, wanted: str, given: str
) -> None:
    erin = {"password": "erin at the provider 3", "groups": ["staff"], "preferred_username": wanted}
    provider.set_people({**PEOPLE, "erin": erin})
    client = fresh_client(oidc_app)
    assert client.get(to_callback(browser, start(client), "erin", erin["password"])).status_code == 303
    assert client.get("/api/me").json() == {"name": given, "role": "member"}
    assert person(oidc_app, f"{provider.url}|erin").id != LOCAL_USER_ID


def test_a_tampered_state_is_refused_and_stores_nothing(oidc_app: FastAPI, browser: httpx.Client) -> None:
    client = fresh_client(oidc_app)
    callback = to_callback(browser, start(client), "carol", str(PEOPLE["carol"]["password"]))
    before = stored(oidc_app)
    response = client.get(with_query(callback, state="forged-state"))
    assert_refused(response, 422, "does not belong to the sign-in started in this browser")
    assert stored(oidc_app) == before
    # The real answer in another browser (no flow cookie) is refused the same way.
    assert_refused(fresh_client(oidc_app).get(callback), 422, "no sign-in was started in this browser")
    assert stored(oidc_app) == before


def test_an_answer_naming_another_issuer_is_refused(oidc_app: FastAPI, browser: httpx.Client) -> None:
    client = fresh_client(oidc_app)
    callback = to_callback(browser, start(client), "carol", str(PEOPLE["carol"]["password"]))
    before = stored(oidc_app)
    mixed_up = with_query(callback, iss="https://attacker.example")
    assert_refused(client.get(mixed_up), 422, "comes from another sign-in service")
    assert stored(oidc_app) == before


def test_a_replayed_callback_is_refused_and_stores_nothing(oidc_app: FastAPI, browser: httpx.Client) -> None:
    client = fresh_client(oidc_app)
    callback = to_callback(browser, start(client), "carol", str(PEOPLE["carol"]["password"]))
    flow = client.cookies.get(FLOW_COOKIE, path=FLOW_PATH)
    assert client.get(callback).status_code == 303
    after_sign_in = stored(oidc_app)
    # The flow cookie is spent with the sign-in…
    assert_refused(client.get(callback), 422, "no sign-in was started")
    # …and with it put back, the provider refuses a code it already traded.
    replay = fresh_client(oidc_app)
    put_flow_cookie(replay, str(flow))
    assert_refused(replay.get(callback), 422, "did not accept this sign-in (invalid_grant)")
    assert stored(oidc_app) == after_sign_in


@pytest.mark.parametrize("changed", ["nonce", "verifier"])
def test_a_flow_that_does_not_match_the_provider_s_answer_is_refused(
    oidc_app: FastAPI, browser: httpx.Client, changed: str
) -> None:
    """A flow cookie with the right state but another nonce (a replayed ID token) or another code
    verifier (a stolen code) gets nothing."""
    client = fresh_client(oidc_app)
    callback = to_callback(browser, start(client), "carol", str(PEOPLE["carol"]["password"]))
    settings: Settings = oidc_app.state.settings
    flow = openid.unseal(client.cookies.get(FLOW_COOKIE, path=FLOW_PATH), settings.secret_key)
    altered = replace(flow, **{changed: "x" * 64})
    put_flow_cookie(client, openid.seal(altered, settings.secret_key))
    before = stored(oidc_app)
    says = "ID token does not check out" if changed == "nonce" else "did not accept this sign-in"
    assert_refused(client.get(callback), 422, says)
    assert stored(oidc_app) == before


def test_refusing_consent_at_the_provider_is_a_clear_403(oidc_app: FastAPI, browser: httpx.Client) -> None:
    client = fresh_client(oidc_app)
    callback = to_callback(browser, start(client), "carol", str(PEOPLE["carol"]["password"]), abort=True)
    assert parse_qs(urlsplit(callback).query)["error"] == ["access_denied"]
    before = stored(oidc_app)
    assert_refused(client.get(callback), 403, "cancelled or refused")
    assert stored(oidc_app) == before


def test_an_unknown_error_from_the_provider_is_a_clear_refusal(
    oidc_app: FastAPI, browser: httpx.Client
) -> None:
    client = fresh_client(oidc_app)
    callback = to_callback(browser, start(client), "carol", str(PEOPLE["carol"]["password"]))
    before = stored(oidc_app)
    odd = with_query(callback, error="something_new", error_description="<script>x</script>")
    response = client.get(odd)
    assert_refused(response, 422, "refused the sign-in (something_new)")
    assert "<script>x" not in response.text  # the provider's words are not echoed into the page
    assert stored(oidc_app) == before


def test_a_disabled_person_cannot_sign_in_through_the_provider(
    oidc_app: FastAPI, browser: httpx.Client, provider: OpenIdProvider
) -> None:
    assert sign_in_at_provider(fresh_client(oidc_app), browser, "carol").status_code == 303
    with oidc_app.state.db.write_sessions() as session:
        carol = service.user_by_subject(session, f"{provider.url}|carol")
        assert carol is not None
        service.set_disabled(session, user=carol, disabled=True)
        session.commit()
    provider.set_groups("carol", ["tiercards-admins"])
    before = stored(oidc_app)
    client = fresh_client(oidc_app)
    assert_refused(sign_in_at_provider(client, browser, "carol"), 403, "this account is disabled")
    assert client.get("/api/me").status_code == 401
    assert stored(oidc_app) == before
    assert person(oidc_app, f"{provider.url}|carol").role == "lead"  # their groups changed nothing


def test_a_wrong_password_at_the_provider_never_reaches_tiercards(
    oidc_app: FastAPI, browser: httpx.Client, provider: OpenIdProvider
) -> None:
    client = fresh_client(oidc_app)
    before = stored(oidc_app)
    with pytest.raises(AssertionError, match="wrong login or password"):
        to_callback(browser, start(client), "carol", "not carol's password")
    # tiercards' side: nobody signed in, no account made, nothing recorded.
    assert client.get("/api/me").status_code == 401
    assert stored(oidc_app) == before
    with oidc_app.state.db.read_sessions() as session:
        assert service.user_by_subject(session, f"{provider.url}|carol") is None


def test_an_unreachable_provider_is_a_clear_503(tmp_path: Path) -> None:
    app = _oidc_app(
        tmp_path,
        oidc_issuer_url=f"http://127.0.0.1:{free_port()}",
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
    )
    client = fresh_client(app)
    before = stored(app)
    assert_refused(client.get("/auth/oidc/login?next=/"), 503, "cannot be reached")
    assert_refused(client.get("/auth/oidc/callback?code=c&state=s"), 422, "no sign-in was started")
    assert stored(app) == before
    app.state.db.dispose()


def test_public_url_makes_the_redirect_uri(provider: OpenIdProvider, tmp_path: Path) -> None:
    app = _oidc_app(
        tmp_path,
        oidc_issuer_url=provider.url,
        oidc_client_id=CLIENT_ID,
        oidc_client_secret=CLIENT_SECRET,
        public_url="https://cards.example.org/",
    )
    asked = parse_qs(urlsplit(start(fresh_client(app))).query)
    assert asked["redirect_uri"] == ["https://cards.example.org/auth/oidc/callback"]
    app.state.db.dispose()


def test_without_the_oidc_settings_there_is_no_oidc_sign_in(team_app: FastAPI) -> None:
    client = fresh_client(team_app)
    assert client.get("/auth/oidc/login?next=/").status_code == 404
    assert client.get("/auth/oidc/callback?code=c&state=s").status_code == 404
    assert "/auth/oidc/" not in client.get("/login").text


# --- the ID token's checks, on tokens made here ---------------------------------------------------

ISSUER = "https://id.example.org"
SIGNING_KEY = RSAKey.generate_key(2048, parameters={"kid": "provider-key"})
PUBLISHED = openid.Provider(
    {"issuer": ISSUER, "jwks_uri": "https://id.example.org/jwks"},
    KeySet.import_key_set({"keys": [SIGNING_KEY.as_dict(private=False)]}),
    fresh_until=float("inf"),
)


def id_token(key: Any = SIGNING_KEY, alg: str = "RS256", **changes: object) -> dict[str, str]:
    now = int(time.time())
    claims = {"iss": ISSUER, "sub": "carol", "aud": CLIENT_ID, "nonce": "n0nce", "iat": now, "exp": now + 300}
    header = {"alg": alg, "kid": "provider-key"}
    return {"id_token": jwt.encode(header, {**claims, **changes}, key), "access_token": "at"}


def test_a_good_id_token_gives_its_claims() -> None:
    claims = openid.id_token_claims(PUBLISHED, token=id_token(), nonce="n0nce", client_id=CLIENT_ID)
    assert claims["sub"] == "carol" and claims["iss"] == ISSUER


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(id_token(key=RSAKey.generate_key(2048)), id="signed-by-another-key"),
        pytest.param(id_token(key=OctKey.import_key(CLIENT_SECRET), alg="HS256"), id="symmetric-alg"),
        pytest.param(id_token(iss="https://attacker.example"), id="another-issuer"),
        pytest.param(id_token(aud="another-client"), id="another-audience"),
        pytest.param(id_token(nonce="replayed"), id="another-nonce"),
        pytest.param(id_token(exp=int(time.time()) - 3600), id="expired"),
        pytest.param({"access_token": "at"}, id="no-id-token"),
    ],
)
def test_an_id_token_that_does_not_check_out_is_refused(token: dict[str, str]) -> None:
    with pytest.raises(Invalid):
        openid.id_token_claims(PUBLISHED, token=token, nonce="n0nce", client_id=CLIENT_ID)
