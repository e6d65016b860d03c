"""What an import keeps while it runs: the per-person guard that lets one import at a time run."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.storage.base import Base


class ImportGuard(Base):
    """A person's import while it runs: one at a time, whichever replica it reaches.

    Every batch moves `lease_until` on; past it (the server was killed) the next import takes the
    row over. `replays` are the (card id, tier) pairs the import owes a replay and `restored` those
    it restored as exported; kept across a crash, they let the same import run again converge.
    `digest` is the file's SHA-256: `restored` only carries over to a re-run of the same file.
    `owner` is the running import's own random id: an import whose lease was taken over (it
    stopped reporting for longer than the lease) finds another owner there and stops.
    """

    __tablename__ = "import_guards"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    lease_until: Mapped[datetime]
    digest: Mapped[str] = mapped_column(String(64))
    owner: Mapped[str] = mapped_column(String(32))
    replays: Mapped[list[Any]] = mapped_column(default=list)
    restored: Mapped[list[Any]] = mapped_column(default=list)
