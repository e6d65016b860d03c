"""What the workers' upkeep forgets of accounts: sign-ins that ended, invites that can no longer
be used, password checks no throttle window counts any more, and audit rows past
AUDIT_RETENTION_DAYS."""

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, or_
from sqlalchemy.orm import Session

from app.accounts import throttle
from app.accounts.models import AuditEvent, Invite, SignInAttempt, SignInSession
from app.storage.base import utcnow


def purge(session: Session, *, session_idle: timedelta, audit_retention_days: float) -> dict[str, int]:
    """Part of the caller's unit of work. Delete what has ended; returns how many of each."""
    now = utcnow()
    statements = {
        "sign-ins ended": delete(SignInSession).where(
            or_(SignInSession.expires_at <= now, SignInSession.last_seen_at <= now - session_idle)
        ),
        "invites spent": delete(Invite).where(or_(Invite.used_at.is_not(None), Invite.expires_at <= now)),
        # The throttle forgets a name's checks as it sees the name again; one never seen again
        # would otherwise stay.
        "password checks": delete(SignInAttempt).where(SignInAttempt.at < now - throttle.NAME_WINDOW),
        # At least a day (Settings): the per-minute limits that count audit rows keep their rows.
        "audit rows": delete(AuditEvent).where(AuditEvent.at < now - timedelta(days=audit_retention_days)),
    }
    done = {}
    for what, statement in statements.items():
        result: Any = session.execute(statement.execution_options(synchronize_session=False))
        done[what] = int(result.rowcount or 0)
    return done
