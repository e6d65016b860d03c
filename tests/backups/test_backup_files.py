"""What a backup file is, and what is left when one is killed half-way: the previous backups are
untouched, and nothing that looks like a complete backup is left behind. The workers take one
when the newest is BACKUP_EVERY_HOURS old and keep BACKUP_KEEP; the admin's page says how old the
newest is, and warns when it is late."""

import hashlib
import os
import signal
import subprocess
import sys
import tarfile
import time
from datetime import timedelta
from pathlib import Path

from alembic.script import ScriptDirectory
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.backups import scheduled, service
from app.settings import Settings
from app.storage import migrations
from app.storage.base import utcnow
from tests.helpers.accounts import fresh_client, running_team, sign_in
from tests.helpers.html import one, soup_of
from tests.servers import data_env, tiercards_on
from tests.services import database_url


def _settings(data: Path, **extra: object) -> Settings:
    values: dict[str, object] = {
        "data_dir": data,
        "database_url": database_url(data),
        "content_dir": PROJECT_ROOT / "content",
        **extra,
    }
    settings = Settings.model_validate(values)
    migrations.upgrade(settings)
    return settings


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_backup_killed_half_way_leaves_the_previous_one_whole(tmp_path: Path) -> None:
    data, backups = tmp_path / "data", tmp_path / "backups"
    _settings(data)
    first = tiercards_on(data, "backup", "--to", str(backups))
    assert first.returncode == 0, first.stderr
    previous = Path(first.stdout.split("\t")[0])
    digest = _digest(previous)
    env = {**os.environ, **data_env(data)}
    # Killed at moments spread over a backup's length: whenever it dies, the same holds.
    for delay in (0.05, 0.2, 0.4, 0.6, 0.8, 1.0):
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "backup", "--to", str(backups)], cwd=PROJECT_ROOT, env=env
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        complete = sorted(backups.glob("tiercards-*.tar.gz"))
        assert previous in complete and _digest(previous) == digest
        for path in complete:
            with tarfile.open(path, "r:gz") as archive:  # whatever is named complete, is
                assert "manifest.json" in archive.getnames()
    # What the killed ones left is swept once it is stale, and the previous one restores.
    later = utcnow() + service.STALE + timedelta(minutes=1)
    service.prune(_settings(data, backup_dir=backups), keep=14, now=later)
    assert [p.name for p in backups.iterdir() if not p.name.startswith(("tiercards-", ".lock"))] == []
    assert not list(backups.glob("*.partial"))
    restored = tiercards_on(tmp_path / "fresh", "restore", str(previous))
    assert restored.returncode == 0, restored.stderr


def test_a_backup_of_an_older_schema_restores_then_upgrades(tmp_path: Path) -> None:
    data, fresh = tmp_path / "data", tmp_path / "fresh"
    old = Settings.model_validate({"data_dir": data, "database_url": database_url(data)})
    migrations.upgrade(old, "0027")
    taken = service.take(old, to=tmp_path / "backups")
    settings = Settings.model_validate({"data_dir": fresh, "database_url": database_url(fresh)})
    manifest = service.restore(settings, file=taken.path)
    assert manifest["revision"] == "0027"
    assert (
        migrations.revision(settings)
        == ScriptDirectory.from_config(migrations.alembic_config()).get_current_head()
    )


def test_the_card_files_go_in_unless_git_keeps_them(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "one.md").write_text("a card", encoding="utf-8")
    settings = _settings(tmp_path / "data", content_dir=cards)
    with tarfile.open(service.take(settings, to=tmp_path / "b1").path, "r:gz") as archive:
        assert "content/one.md" in archive.getnames()
    (cards / ".git").mkdir()
    with tarfile.open(service.take(settings, to=tmp_path / "b2").path, "r:gz") as archive:
        assert not [name for name in archive.getnames() if name.startswith("content")]


def test_a_worker_takes_one_when_due_and_keeps_the_newest(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "data", backup_every_hours=24, backup_keep=2)
    now = utcnow()
    taken = [scheduled.upkeep(settings, now=now + timedelta(hours=25 * day)) for day in range(4)]
    assert all(backup is not None for backup in taken)
    assert scheduled.upkeep(settings, now=now + timedelta(hours=25 * 3 + 1)) is None, "not due yet"
    assert [b.path for b in service.listed(settings)] == [taken[3].path, taken[2].path]


def _admin(app: FastAPI) -> TestClient:
    return sign_in(fresh_client(app), "root")


def test_the_admin_page_says_how_old_the_newest_backup_is_and_warns_when_late(tmp_path: Path) -> None:
    with running_team(tmp_path / "data") as app:
        settings: Settings = app.state.settings
        root = _admin(app)
        box = one(soup_of(root.get("/admin/users")), "#backups")
        assert "No backup has been taken yet" in box.get_text()
        taken = service.take(settings)
        box = one(soup_of(root.get("/admin/users")), "#backups")
        assert taken.path.name in box.get_text()
        assert box.select(".warning") == []
        taken.path.unlink()
        service.take(settings, now=utcnow() - timedelta(hours=settings.backup_every_hours + 2))
        box = one(soup_of(root.get("/admin/users")), "#backups")
        assert "It is late" in one(box, ".warning").get_text()
