"""Which lanes the live workers read, as the web asks before it queues a job: the workers' rows
(`worker_beats`, owned by demos, above this package) read as plain columns."""

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import JSON, DateTime, column, select, table
from sqlalchemy.orm import Session

from app.storage.base import utcnow

_WORKER_BEATS = table("worker_beats", column("last_seen", DateTime()), column("capabilities", JSON()))


def live_capabilities(session: Session, *, timeout_seconds: float) -> list[Sequence[str] | None]:
    """The lanes each worker that beat within `timeout_seconds` lists."""
    cutoff = utcnow() - timedelta(seconds=timeout_seconds)
    return list(
        session.scalars(select(_WORKER_BEATS.c.capabilities).where(_WORKER_BEATS.c.last_seen >= cutoff))
    )
