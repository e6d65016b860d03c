"""The workers' upkeep forgets what can no longer be used or is past keeping: sign-ins that ended
(too long idle, or past their lifetime), invites used or expired, and audit rows older than
AUDIT_RETENTION_DAYS, and password checks older than every throttle window; never the checks the
throttle still counts."""

from datetime import datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import throttle
from app.accounts.models import AuditEvent, Invite, SignInAttempt, SignInSession
from app.demos import claims
from app.jobs.queue import JobQueue
from app.storage.base import utcnow
from tests.helpers.accounts import PASSWORDS, fresh_client, sign_in

IDLE = timedelta(hours=12)


def _upkeep(app: FastAPI, audit_retention_days: float = 365) -> dict[str, int]:
    settings = app.state.settings
    return claims.upkeep(
        app.state.db,
        queue=JobQueue(settings.queue_url),
        timeout_seconds=settings.demo_heartbeat_timeout_seconds,
        retention_days=settings.demo_retention_days,
        recording_retention_days=settings.recording_retention_days,
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


def test_ended_sign_ins_and_spent_invites_are_forgotten(team_app: FastAPI) -> None:
    alice = sign_in(fresh_client(team_app), "alice")
    _sign_in_rows(team_app, utcnow())
    done = _upkeep(team_app)
    assert (done["sign-ins ended"], done["invites spent"]) == (2, 2)
    with team_app.state.db.read_sessions() as session:
        assert set(session.scalars(select(Invite.token_hash))) == {"open"}
        assert len(session.scalars(select(SignInSession.token_hash)).all()) == 1  # alice's
    assert alice.get("/api/me").json()["name"] == "alice"  # still signed in


def test_old_audit_rows_go_but_the_throttle_keeps_its_failures(team_app: FastAPI) -> None:
    now = utcnow()
    with team_app.state.db.write_sessions() as session:
        session.add(AuditEvent(kind="sign_in", user_id=1, at=now - timedelta(days=2), detail={}))
        session.add(AuditEvent(kind="sign_in", user_id=1, at=now - timedelta(hours=20), detail={}))
        session.add(
            SignInAttempt(
                name="gone",
                address="203.0.113.9",
                purpose="sign_in",
                outcome="failed",
                at=now - throttle.NAME_WINDOW - timedelta(minutes=1),
            )
        )
        session.commit()
    bob = fresh_client(team_app)
    for _ in range(throttle.MAX_FAILURES_PER_NAME_AND_ADDRESS):
        bob.post("/login", data={"username": "bob", "password": "wrong password 1", "next": "/"})
    done = _upkeep(team_app, audit_retention_days=1)
    assert (done["audit rows"], done["password checks"]) == (1, 1)
    # The failures the throttle still counts stay: upkeep lets no guesser in early.
    refused = bob.post("/login", data={"username": "bob", "password": PASSWORDS["bob"], "next": "/"})
    assert refused.status_code == 429


def test_upkeep_with_nothing_to_forget_forgets_nothing(team_app: FastAPI) -> None:
    client: TestClient = sign_in(fresh_client(team_app), "root")
    done = _upkeep(team_app)
    assert set(done.values()) == {0}
    assert client.get("/api/me").status_code == 200
