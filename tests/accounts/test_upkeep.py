"""The workers' upkeep forgets what can no longer be used or is past keeping: sign-ins that ended
(too long idle, or past their lifetime), invites used or expired, and audit rows older than
AUDIT_RETENTION_DAYS; never the failed sign-ins the throttle still counts."""

from datetime import datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import service as accounts
from app.accounts.models import AuditEvent, Invite, SignInSession
from app.demos import service
from app.demos.queue import DemoQueue
from app.storage.base import utcnow
from tests.accounts.conftest import PASSWORDS, fresh_client, sign_in, team_app  # noqa: F401

IDLE = timedelta(hours=12)


def _upkeep(app: FastAPI, audit_retention_days: float = 365) -> dict[str, int]:
    settings = app.state.settings
    return service.upkeep(
        app.state.db,
        DemoQueue(settings.queue_url),
        settings.demo_heartbeat_timeout_seconds,
        settings.demo_retention_days,
        session_idle=IDLE,
        audit_retention_days=audit_retention_days,
    )


def _sign_in_rows(app: FastAPI, now: datetime) -> None:
    with app.state.db.write_sessions() as session:
        for token, seen, expires in (
            ("idle", now - IDLE - timedelta(minutes=1), now + timedelta(days=3)),
            ("expired", now - timedelta(minutes=1), now - timedelta(seconds=1)),
        ):
            session.add(
                SignInSession(
                    token_hash=token, user_id=1, created_at=now, last_seen_at=seen, expires_at=expires
                )
            )
        for token, used, expires in (
            ("used", now - timedelta(hours=1), now + timedelta(days=1)),
            ("lapsed", None, now - timedelta(seconds=1)),
            ("open", None, now + timedelta(days=1)),
        ):
            session.add(
                Invite(token_hash=token, role="member", created_at=now, expires_at=expires, used_at=used)
            )
        session.commit()


def test_ended_sign_ins_and_spent_invites_are_forgotten(team_app: FastAPI) -> None:  # noqa: F811
    alice = sign_in(fresh_client(team_app), "alice")
    _sign_in_rows(team_app, utcnow())
    done = _upkeep(team_app)
    assert (done["sign-ins ended"], done["invites spent"]) == (2, 2)
    with team_app.state.db.read_sessions() as session:
        assert set(session.scalars(select(Invite.token_hash))) == {"open"}
        assert len(session.scalars(select(SignInSession.token_hash)).all()) == 1  # alice's
    assert alice.get("/api/me").json()["name"] == "alice"  # still signed in


def test_old_audit_rows_go_but_the_throttle_keeps_its_failures(team_app: FastAPI) -> None:  # noqa: F811
    now = utcnow()
    with team_app.state.db.write_sessions() as session:
        session.add(AuditEvent(kind="sign_in", user_id=1, at=now - timedelta(days=2), detail={}))
        session.add(AuditEvent(kind="sign_in", user_id=1, at=now - timedelta(hours=20), detail={}))
        session.commit()
    bob = fresh_client(team_app)
    for _ in range(accounts.MAX_FAILURES_PER_ACCOUNT):
        bob.post("/login", data={"username": "bob", "password": "wrong password 1", "next": "/"})
    done = _upkeep(team_app, audit_retention_days=1)
    assert done["audit rows"] == 1
    # A retention shorter than the throttle's window still keeps the failures it counts.
    _upkeep(team_app, audit_retention_days=0.0001)
    with team_app.state.db.read_sessions() as session:
        kinds = list(session.scalars(select(AuditEvent.kind)))
    assert kinds.count("sign_in_failed") == accounts.MAX_FAILURES_PER_ACCOUNT
    refused = bob.post("/login", data={"username": "bob", "password": PASSWORDS["bob"], "next": "/"})
    assert refused.status_code == 429


def test_upkeep_with_nothing_to_forget_forgets_nothing(team_app: FastAPI) -> None:  # noqa: F811
    client: TestClient = sign_in(fresh_client(team_app), "root")
    done = _upkeep(team_app)
    assert (done["sign-ins ended"], done["invites spent"], done["audit rows"]) == (0, 0, 0)
    assert client.get("/api/me").status_code == 200
