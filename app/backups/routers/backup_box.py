"""The admin's box about backups on /admin/users (app/factory.py hooks it in): the newest, its
size and age, and a warning when it is late."""

from datetime import timedelta

from app.backups import service
from app.settings import Settings
from app.storage.base import utcnow
from app.web.panels import Panel

# Late: the newest backup is older than BACKUP_EVERY_HOURS by this much (an upkeep runs within it).
GRACE = timedelta(hours=1)


def backups_panel(*, settings: Settings) -> Panel:
    newest = next(iter(service.listed(settings)), None)
    now = utcnow()
    late = newest is None or now - newest.taken_at > timedelta(hours=settings.backup_every_hours) + GRACE
    return Panel(
        "_backups_panel.html",
        {
            "newest": newest,
            "late": late,
            "every": settings.backup_every_hours,
            "keep": settings.backup_keep,
            "now": now,
        },
    )
