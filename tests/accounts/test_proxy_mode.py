"""AUTH_MODE=proxy: the proxy names the person in a header, believed only from TRUSTED_PROXIES
(judged by the connecting address, never by X-Forwarded-For); groups map to roles, and an API
token follows them."""

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import select

from app.accounts import service
from app.accounts.models import AuditEvent
from app.factory import create_app
from tests.factories import card_text
from tests.helpers.accounts import accounts_settings
from tests.helpers.clients import csrf_client
from tests.helpers.html import one, soup_of

PROXY = ("192.0.2.10", 4000)
STRANGER = ("198.51.100.7", 4000)


@pytest.fixture
def proxy_app(tmp_path: Path) -> FastAPI:
    settings = accounts_settings(
        tmp_path,
        auth_mode="proxy",
        trusted_proxies="192.0.2.10/32",
        group_roles="tc-admins=admin,tc-leads=lead",
    )
    return create_app(settings)


def test_the_proxys_header_signs_the_person_in_and_creates_them(proxy_app: FastAPI) -> None:
    with TestClient(proxy_app, client=PROXY) as client:
        me = client.get("/api/me", headers={"Remote-User": "erin", "Remote-Groups": "staff, tc-leads"})
        assert me.json() == {"name": "erin", "role": "lead"}
        proxy_app.state.signed_in.clear()
        promoted = client.get("/api/me", headers={"Remote-User": "erin", "Remote-Groups": "tc-admins"})
        assert promoted.json()["role"] == "admin"
        proxy_app.state.signed_in.clear()
        # Out of every mapped group at the provider: GROUP_ROLES is authoritative, back to member.
        left = client.get("/api/me", headers={"Remote-User": "erin", "Remote-Groups": "staff"})
        assert left.json() == {"name": "erin", "role": "member"}
        assert client.get("/admin/users", headers={"Remote-User": "erin"}).status_code == 403
    with proxy_app.state.db.read_sessions() as session:
        assert service.user_named(session, name="erin") is not None
        changes = session.scalars(select(AuditEvent).where(AuditEvent.kind == "role_changed")).all()
        assert [(c.detail["new"], c.detail["via"]) for c in changes] == [
            ("admin", "proxy"),
            ("member", "proxy"),
        ]


def test_who_the_proxy_creates_and_promotes_is_audited_with_the_visitors_address(proxy_app: FastAPI) -> None:
    visitor = {"Remote-User": "fern", "X-Forwarded-For": "198.51.100.77"}
    with TestClient(proxy_app, client=PROXY) as client:
        assert client.get("/api/me", headers=visitor).json()["role"] == "member"
        proxy_app.state.signed_in.clear()
        assert (
            client.get("/api/me", headers={**visitor, "Remote-Groups": "tc-leads"}).json()["role"] == "lead"
        )
    with proxy_app.state.db.read_sessions() as session:
        fern = service.user_named(session, name="fern")
        assert fern is not None
        events = session.scalars(select(AuditEvent).where(AuditEvent.user_id == fern.id)).all()
    assert {(event.kind, event.address) for event in events} == {
        ("user_created", "198.51.100.77"),
        ("role_changed", "198.51.100.77"),
    }


def test_the_header_from_anyone_else_is_ignored(proxy_app: FastAPI) -> None:
    with TestClient(proxy_app, client=STRANGER, follow_redirects=False) as client:
        headers = {"Remote-User": "erin", "X-Forwarded-For": "192.0.2.10"}
        assert client.get("/api/me", headers=headers).status_code == 401
        page = client.get("/practice", headers=headers)
        assert page.status_code == 401 and "through the proxy" in page.text
    with proxy_app.state.db.read_sessions() as session:
        assert service.user_named(session, name="erin") is None


def test_without_the_header_the_proxy_itself_is_nobody(proxy_app: FastAPI) -> None:
    with TestClient(proxy_app, client=PROXY) as client:
        assert client.get("/api/me").status_code == 401


def test_proxy_mode_refuses_to_start_without_trusted_proxies(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="TRUSTED_PROXIES"):
        accounts_settings(tmp_path, auth_mode="proxy")


def test_a_disabled_person_stays_out_behind_the_proxy(proxy_app: FastAPI) -> None:
    with TestClient(proxy_app, client=PROXY) as client:
        assert client.get("/api/me", headers={"Remote-User": "frank"}).status_code == 200
        with proxy_app.state.db.write_sessions() as session:
            user = service.user_named(session, name="frank")
            assert user is not None
            service.set_disabled(session, user=user, disabled=True)
            session.commit()
        proxy_app.state.signed_in.clear()
        assert client.get("/api/me", headers={"Remote-User": "frank"}).status_code == 401


def _token_made_behind_the_proxy(app: FastAPI, name: str, groups: str) -> str:
    """An API token that `name` made on /account while the proxy said they were in `groups`."""
    browser = csrf_client(
        app, page="/account", client=PROXY, headers={"Remote-User": name, "Remote-Groups": groups}
    )
    with browser:
        page = browser.post("/account/tokens", data={"name": "my script"})
    return one(soup_of(page), "code.token").text


def _stored_role(app: FastAPI, name: str) -> str:
    with app.state.db.read_sessions() as session:
        user = service.user_named(session, name=name)
        assert user is not None
        return user.role


def _as_admin(client: TestClient, headers: dict[str, str]) -> list[int]:
    """The statuses of an admin's author check and audit log for a request with `headers`."""
    return [
        client.post("/api/author/check", json={"text": card_text()}, headers=headers).status_code,
        client.get("/admin/audit", headers=headers).status_code,
    ]


def test_a_token_follows_the_groups_the_proxy_sends_with_it(proxy_app: FastAPI) -> None:
    token = _token_made_behind_the_proxy(proxy_app, "erin", "tc-admins")
    bearer = {"Authorization": f"Bearer {token}"}
    admin = {**bearer, "Remote-User": "erin", "Remote-Groups": "staff, tc-admins"}
    left = {**bearer, "Remote-User": "erin", "Remote-Groups": "staff"}
    with TestClient(proxy_app, client=PROXY) as script:
        assert script.get("/api/me", headers=admin).json() == {"name": "erin", "role": "admin"}
        assert _as_admin(script, admin) == [200, 200]
        # Out of the admin group at the provider: no sign-out, no pause, the same token.
        assert script.get("/api/me", headers=left).json() == {"name": "erin", "role": "member"}
        refused = script.post("/api/author/check", json={"text": card_text()}, headers=left)
        assert refused.status_code == 403
        assert refused.json() == {"detail": "only an author or an admin may use the author preview"}
        assert script.get("/admin/audit", headers=left).json() == {"detail": "only an admin may do this"}
    assert _stored_role(proxy_app, "erin") == "member"
    with proxy_app.state.db.read_sessions() as session:
        changes = session.scalars(select(AuditEvent).where(AuditEvent.kind == "role_changed")).all()
        assert [(c.detail["old"], c.detail["new"], c.detail["via"]) for c in changes] == [
            ("admin", "member", "proxy")
        ]


@pytest.mark.parametrize("groups", ["tc-admins", "tc-leads", "staff"])
def test_a_token_without_the_proxys_word_acts_as_a_member_at_most(proxy_app: FastAPI, groups: str) -> None:
    token = _token_made_behind_the_proxy(proxy_app, "erin", groups)
    stored = _stored_role(proxy_app, "erin")
    bearer = {"Authorization": f"Bearer {token}"}
    forged = {**bearer, "Remote-User": "erin", "Remote-Groups": "tc-admins"}
    with (
        TestClient(proxy_app, client=PROXY) as through_proxy,
        TestClient(proxy_app, client=STRANGER) as direct,
    ):
        for client, headers in ((through_proxy, bearer), (direct, bearer), (direct, forged)):
            assert client.get("/api/me", headers=headers).json() == {"name": "erin", "role": "member"}
            assert _as_admin(client, headers) == [403, 403]
            assert client.get("/team", headers=headers).status_code == 403
    # Nothing the provider said on these requests: the stored role is left as it was.
    assert _stored_role(proxy_app, "erin") == stored


def test_a_token_sent_with_someone_elses_name_is_nobody(proxy_app: FastAPI) -> None:
    token = _token_made_behind_the_proxy(proxy_app, "erin", "tc-admins")
    other = {"Authorization": f"Bearer {token}", "Remote-User": "frank", "Remote-Groups": "tc-admins"}
    with TestClient(proxy_app, client=PROXY) as script:
        me = script.get("/api/me", headers=other)
        assert me.status_code == 401
        assert me.json()["detail"].startswith("sign in first")
        assert script.get("/api/me", headers={**other, "Remote-User": "erin"}).json()["name"] == "erin"
    with proxy_app.state.db.read_sessions() as session:
        assert service.user_named(session, name="frank") is None


def test_without_group_roles_a_token_keeps_its_stored_role(tmp_path: Path) -> None:
    app = create_app(accounts_settings(tmp_path, auth_mode="proxy", trusted_proxies="192.0.2.10/32"))
    token = _token_made_behind_the_proxy(app, "erin", "tc-admins")
    with app.state.db.write_sessions() as session:
        service.change_person(session, name="erin", role="admin")
    bearer = {"Authorization": f"Bearer {token}"}
    named = {**bearer, "Remote-User": "erin", "Remote-Groups": "staff"}
    with TestClient(app, client=PROXY) as through_proxy, TestClient(app, client=STRANGER) as direct:
        for client, headers in ((through_proxy, named), (through_proxy, bearer), (direct, bearer)):
            assert client.get("/api/me", headers=headers).json() == {"name": "erin", "role": "admin"}
            assert _as_admin(client, headers) == [200, 200]
    assert _stored_role(app, "erin") == "admin"
