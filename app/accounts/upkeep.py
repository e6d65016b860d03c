"""What the workers' upkeep forgets of accounts: sign-ins that ended, invites that can no longer
be used, and audit rows past AUDIT_RETENTION_DAYS."""

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, or_
from sqlalchemy.orm import Session

from app.accounts.models import AuditEvent, Invite, SignInSession
from app.accounts.service import THROTTLE_WINDOW
from app.storage.base import utcnow


def purge(session: Session, *, session_idle: timedelta, audit_retention_days: float) -> dict[str, int]:
    """Delete what has ended; returns how many of each. Caller commits."""
    now = utcnow()
    # The sign-in throttle counts failures within its window (author checks within a shorter
    # one): those rows stay, however short the retention.
    keep_from = now - max(timedelta(days=audit_retention_days), THROTTLE_WINDOW)
    statements = {
        "sign-ins ended": delete(SignInSession).where(
            or_(SignInSession.expires_at <= now, SignInSession.last_seen_at <= now - session_idle)
        ),
        "invites spent": delete(Invite).where(or_(Invite.used_at.is_not(None), Invite.expires_at <= now)),
        "audit rows": delete(AuditEvent).where(AuditEvent.at < keep_from),
    }
    done = {}
    for what, statement in statements.items():
        result: Any = session.execute(statement.execution_options(synchronize_session=False))
        done[what] = int(result.rowcount or 0)
    return done
