"""The audit log: what happened to whom, by whom, from where. Admins read it on /admin/audit."""

from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.accounts.models import AuditEvent
from app.storage.base import utcnow

KINDS = (
    "sign_in",
    "sign_in_failed",
    "password_check_failed",
    "sign_out",
    "role_changed",
    "user_created",
    "user_disabled",
    "user_enabled",
    "password_changed",
    "invite_created",
    "invite_used",
    "invite_revoked",
    "token_created",
    "token_revoked",
    "import",
    "export",
    "history_adopted",
    "author_check",
    "card_created",
    "card_saved",
    "proposal_made",
    "proposal_commented",
    "proposal_accepted",
    "proposal_declined",
)
# Kinds recorded to count someone's requests against a limit, listed only when asked for by name.
COUNTING_KINDS = ("author_check",)


def record(
    session: Session,
    *,
    kind: str,
    user_id: int | None = None,
    actor_id: int | None = None,
    address: str | None = None,
    **detail: Any,
) -> None:
    """Part of the caller's unit of work: one event, stored with the change it records."""
    session.add(
        AuditEvent(kind=kind, user_id=user_id, actor_id=actor_id, address=address, detail=detail, at=utcnow())
    )


def times_since(session: Session, *, kind: str, since: datetime, user_id: int) -> list[datetime]:
    """When each event of `kind` about `user_id` since `since` happened, oldest first."""
    query = select(AuditEvent.at).where(
        AuditEvent.kind == kind, AuditEvent.user_id == user_id, AuditEvent.at >= since
    )
    return list(session.scalars(query.order_by(AuditEvent.at)))


def recent(
    session: Session, *, limit: int = 200, kind: str | None = None, user_id: int | None = None
) -> list[AuditEvent]:
    query = select(AuditEvent)
    if kind:
        query = query.where(AuditEvent.kind == kind)
    else:  # one a minute or more: they would push everything else off the page
        query = query.where(AuditEvent.kind.not_in(COUNTING_KINDS))
    if user_id is not None:
        query = query.where(or_(AuditEvent.user_id == user_id, AuditEvent.actor_id == user_id))
    return list(session.scalars(query.order_by(AuditEvent.at.desc(), AuditEvent.id.desc()).limit(limit)))
