"""The audit log as /admin/audit shows it: names instead of ids, the detail as one line."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.accounts import audit
from app.accounts.service import user_named
from app.team.members import name_of

LIMIT = 200


@dataclass(frozen=True)
class Entry:
    at: datetime
    kind: str
    actor: str | None  # who did it
    about: str | None  # whom it is about
    address: str | None
    what: str


def describe(detail: dict[str, Any]) -> str:
    """{"old": "member", "new": "lead"} -> "old member, new lead"."""
    return ", ".join(f"{key} {value}" for key, value in detail.items())


def entries(session: Session, *, kind: str = "", person: str = "") -> list[Entry] | None:
    """The newest events, of one kind and by or about one person when given; None when nobody
    has the name `person`."""
    user = user_named(session, name=person) if person else None
    if person and user is None:
        return None
    events = audit.recent(session, limit=LIMIT, kind=kind or None, user_id=user.id if user else None)
    return [
        Entry(
            at=event.at,
            kind=event.kind,
            actor=name_of(session, event.actor_id),
            about=name_of(session, event.user_id) or event.detail.get("name"),
            address=event.address,
            what=describe(event.detail),
        )
        for event in events
    ]
