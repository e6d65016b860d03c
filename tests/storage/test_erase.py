"""Emptying SQLite's write-ahead log after a recording's sound is deleted: a reader that holds the
log open makes the checkpoint busy; it is tried again briefly, and said in the log when it could not
be done (the sound's pages then stay in the log until the next checkpoint)."""

import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.settings import Settings
from app.storage import database, migrations
from app.storage.database import Database
from tests.factories import make_attempt


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    # A short busy wait, so a checkpoint a reader blocks comes back busy at once.
    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT_MS", 20)
    settings = Settings(
        data_dir=tmp_path, database_url="", secret_key="test-only-secret-key-that-is-long-enough"
    )
    migrations.upgrade(settings)
    db = Database(settings)
    with db.write_sessions() as session:
        session.add(make_attempt(text="the sound's pages"))
        session.commit()
    yield db
    db.dispose()


def _wal(tmp_path: Path) -> Path:
    return next(tmp_path.glob("*.db-wal"))


def _reader(db: Database) -> sqlite3.Connection:
    """A connection holding a read snapshot on the log, as another process's open read does."""
    path = db.engine.url.database
    assert path
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM attempts").fetchone()
    return reader


@pytest.mark.parametrize("reader_held", [False, True], ids=["no-reader", "reader-lets-go"])
def test_the_log_is_emptied_once_no_reader_holds_it(
    db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture, reader_held: bool
) -> None:
    assert _wal(tmp_path).stat().st_size > 0
    if reader_held:
        # Let go while the checkpoint is being tried again.
        threading.Timer(database.ERASE_RETRY_S / 2, _reader(db).close).start()
    with caplog.at_level(logging.WARNING, logger="app.storage.database"):
        db.erase_deleted()
    assert _wal(tmp_path).stat().st_size == 0
    assert not caplog.records


def test_a_log_that_stays_busy_is_said_in_the_log(
    db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reader = _reader(db)
    try:
        with caplog.at_level(logging.WARNING, logger="app.storage.database"):
            # The reader stays open throughout: the erase gives up on it rather than waiting it out.
            erasing = threading.Thread(target=db.erase_deleted)
            erasing.start()
            erasing.join(timeout=60)
            assert not erasing.is_alive(), "the erase waited for the reader to let go"
    finally:
        reader.close()
    assert _wal(tmp_path).stat().st_size > 0
    assert [record.levelno for record in caplog.records] == [logging.WARNING]
    assert "write-ahead log" in caplog.records[0].getMessage()
