"""Take a backup and restore one.

A backup is one gzipped tar: `manifest.json`, the database (SQLite's online backup API, or
`pg_dump` in its custom format) and, where the content folder is not a git repository of its own,
the card files. It is written as `<name>.partial` and renamed only once whole and synced, so a
backup killed half-way leaves no file that looks complete, and the previous ones are untouched.
Kept audio lives in the database, so it is in the database's copy."""

import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import MetaData, func, select
from sqlalchemy.engine import make_url

from app.exceptions import Conflict, Invalid, Unavailable
from app.settings import Settings
from app.storage import migrations
from app.storage.database import make_engine
from app.storage.durable import sync_folder

PREFIX = "tiercards-"
SUFFIX = ".tar.gz"
PARTIAL = ".partial"
FORMAT = 1
NAME_TIME = "%Y%m%d-%H%M%S-%f"
# What a killed backup left is removed once this old.
STALE = timedelta(hours=1)
# pg_dump and pg_restore get this long; a team's database dumps in seconds.
PG_TIMEOUT_S = 3600


@dataclass(frozen=True)
class Backup:
    path: Path
    size: int
    taken_at: datetime


def folder(settings: Settings) -> Path:
    return settings.backup_dir or settings.data_dir / "backups"


def listed(settings: Settings) -> list[Backup]:
    """The complete backups in the backup folder, newest first (a `.partial` is never one)."""
    found = []
    for path in folder(settings).glob(f"{PREFIX}*{SUFFIX}"):
        stat = path.stat()
        found.append(
            Backup(path, stat.st_size, _taken_at(path) or datetime.fromtimestamp(stat.st_mtime, UTC))
        )
    return sorted(found, key=lambda backup: (backup.taken_at, backup.path.name), reverse=True)


def _taken_at(path: Path) -> datetime | None:
    """When the backup was taken, from its name: a copy or a move keeps it, unlike the file's
    modification time."""
    stamp = path.name.removeprefix(PREFIX).removesuffix(SUFFIX)
    try:
        return datetime.strptime(stamp, NAME_TIME).replace(tzinfo=UTC)
    except ValueError:
        return None


def take(settings: Settings, *, to: Path | None = None, now: datetime | None = None) -> Backup:
    """Write a backup of what `settings` point at into `to` (default the backup folder)."""
    target = to or folder(settings)
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    now = now or datetime.now(UTC)
    final = target / f"{PREFIX}{now.astimezone(UTC).strftime(NAME_TIME)}{SUFFIX}"
    partial = final.with_name(final.name + PARTIAL)
    with tempfile.TemporaryDirectory(dir=target, prefix=".staging-") as staging:
        work = Path(staging)
        database = _dump(settings, work)
        manifest = {
            "format": FORMAT,
            "taken_at": now.isoformat(),
            "engine": _engine(settings),
            "revision": migrations.revision(settings),
            "database": database.name,
            "content": _keeps_content(settings),
        }
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as raw:
            with tarfile.open(fileobj=raw, mode="w:gz") as archive:
                _add_bytes(archive, name="manifest.json", data=json.dumps(manifest, indent=2).encode())
                archive.add(database, arcname=database.name)
                if manifest["content"]:
                    archive.add(settings.content_dir, arcname="content")
            raw.flush()
            os.fsync(raw.fileno())
    os.replace(partial, final)
    sync_folder(target)
    return Backup(final, final.stat().st_size, now)


def _keeps_content(settings: Settings) -> bool:
    """The card files go in unless git keeps them: a content folder that is a repository of its
    own has its history, and its remote, elsewhere."""
    content = settings.content_dir
    return content.is_dir() and not (content / ".git").exists()


def _add_bytes(archive: tarfile.TarFile, *, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o600
    archive.addfile(info, io.BytesIO(data))


def _engine(settings: Settings) -> str:
    """The engine a backup names, and a restore must match."""
    return "sqlite" if settings.is_sqlite else "postgresql"


def _dump(settings: Settings, work: Path) -> Path:
    if settings.is_sqlite:
        copy = work / "database.sqlite3"
        _sqlite_copy(Path(make_url(settings.database_url).database or ""), copy)
        return copy
    dump = work / "database.pgdump"
    _pg(settings, "pg_dump", "--format=custom", "--no-owner", f"--file={dump}")
    return dump


def _sqlite_copy(source: Path, target: Path) -> None:
    """SQLite's online backup: a consistent copy while writers go on (they wait only for the
    pages being copied at each step)."""
    if not source.exists():
        raise Invalid("database", f"there is no database at {source}")
    src = sqlite3.connect(source, timeout=30)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)  # one step: a snapshot that writers in WAL mode go on beside
    finally:
        dst.close()
        src.close()


def _pg(settings: Settings, program: str, *args: str) -> None:
    """Run a PostgreSQL client program against the database, its password in the environment
    (never on a command line, where `ps` shows it)."""
    url = make_url(settings.database_url)
    if shutil.which(program) is None:
        raise Unavailable(f"{program} is not installed: install PostgreSQL's client programs")
    env = {**os.environ, "PGPASSWORD": url.password or "", "PGCONNECT_TIMEOUT": "10"}
    command = [program, f"--host={url.host or 'localhost'}", f"--port={url.port or 5432}"]
    command += [f"--username={url.username or ''}", f"--dbname={url.database or ''}", *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=PG_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise Unavailable(f"{program} failed: {done.stderr.strip()[:500]}")


def prune(settings: Settings, *, keep: int, now: datetime) -> list[Path]:
    """Delete all but the `keep` newest backups in the backup folder, and what a backup killed
    half-way left (an hour old: a younger one may be another process's, still being written);
    the paths deleted."""
    gone = [backup.path for backup in listed(settings)[keep:]]
    for path in folder(settings).glob(f"*{PARTIAL}"):
        if _older(path, now):
            gone.append(path)
    for path in gone:
        path.unlink(missing_ok=True)
    for staging in folder(settings).glob(".staging-*"):
        if _older(staging, now):
            shutil.rmtree(staging, ignore_errors=True)
            gone.append(staging)
    return gone


def _older(path: Path, now: datetime) -> bool:
    return now - datetime.fromtimestamp(path.stat().st_mtime, UTC) > STALE


def due(settings: Settings, *, now: datetime) -> bool:
    newest = next(iter(listed(settings)), None)
    return newest is None or now - newest.taken_at >= timedelta(hours=settings.backup_every_hours)


@contextmanager
def _opened(file: Path) -> Iterator[tuple[dict[str, object], Path]]:
    """The backup's manifest, and a folder holding what it carries."""
    with tempfile.TemporaryDirectory(prefix="tiercards-restore-") as staging:
        work = Path(staging)
        try:
            with tarfile.open(file, mode="r:gz") as archive:
                # The data filter refuses absolute paths, links out of the folder and devices.
                archive.extractall(work, filter="data")
        except (OSError, tarfile.TarError, EOFError) as error:
            raise Invalid("file", f"{file} is not a tiercards backup: {error}") from None
        try:
            manifest = json.loads((work / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise Invalid("file", f"{file} is not a tiercards backup: it has no manifest") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise Invalid("file", f"{file} is a backup of a format this version cannot read")
        yield manifest, work


def restore(settings: Settings, *, file: Path, force: bool = False) -> dict[str, object]:
    """Restore `file` into the database `settings` point at, then upgrade it to this version's
    schema. A database that holds anything is refused unless `force`."""
    with _opened(file) as (manifest, work):
        engine = _engine(settings)
        if manifest.get("engine") != engine:
            raise Invalid(
                "file", f"this backup is of a {manifest.get('engine')} database; this one is {engine}"
            )
        if not force and not is_empty(settings):
            raise Conflict(
                "the database is not empty: restore into an empty one, or pass --force to replace it"
            )
        database = work / str(manifest["database"])
        if settings.is_sqlite:
            _sqlite_copy(database, Path(make_url(settings.database_url).database or ""))
        else:
            _pg(
                settings,
                "pg_restore",
                "--clean",
                "--if-exists",
                "--no-owner",
                "--exit-on-error",
                str(database),
            )
        if manifest.get("content"):
            _restore_content(settings, source=work / "content", force=force)
    migrations.upgrade(settings)
    return manifest


def _restore_content(settings: Settings, *, source: Path, force: bool) -> None:
    target = settings.content_dir
    if target.exists() and any(target.iterdir()) and not force:
        return  # the cards there stay; the backup's are the operator's to copy by hand
    shutil.copytree(source, target, dirs_exist_ok=True)


def is_empty(settings: Settings) -> bool:
    """Whether the database holds no row at all (a fresh database, migrated or not)."""
    engine = make_engine(settings)
    try:
        with engine.connect() as connection:
            tables = MetaData()
            tables.reflect(connection)
            for table in tables.sorted_tables:
                if table.name == "alembic_version":
                    continue
                if connection.execute(
                    select(func.count()).select_from(select(table).limit(1).subquery())
                ).scalar():
                    return False
        return True
    finally:
        engine.dispose()
