"""The workers' backups: with each upkeep a worker takes one when the newest is
BACKUP_EVERY_HOURS old, and keeps the BACKUP_KEEP newest. Several workers may share a backup
folder: a lock on it lets one take the backup and the others pass."""

import fcntl
import os
from datetime import datetime

from app.backups import service
from app.settings import Settings

due = service.due


def upkeep(settings: Settings, *, now: datetime) -> service.Backup | None:
    """The backup taken now, or None when none was due (or another worker is taking it)."""
    if not service.due(settings, now=now):
        return None
    folder = service.folder(settings)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(folder / ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        if not service.due(settings, now=now):  # taken while this worker waited for the lock
            return None
        taken = service.take(settings, now=now)
        service.prune(settings, keep=settings.backup_keep, now=now)
        return taken
    finally:
        os.close(fd)  # closing it lets go of the lock
