"""AUTH_MODE=proxy: the proxy names the person in a header, believed only from TRUSTED_PROXIES
(judged by the connecting address, never by X-Forwarded-For); groups map to roles."""

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import select

from app.accounts import service
from app.accounts.models import AuditEvent
from app.factory import create_app
from tests.helpers.accounts import accounts_settings

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
