"""Writers on each engine: on SQLite they take turns (one writer at a time, by SQLite's own rule);
on PostgreSQL two writers go ahead at once, with no process-wide lock between them."""

import secrets
import threading
import time
from pathlib import Path

from app.settings import Settings
from app.storage import migrations
from app.storage.database import Database
from tests.factories import make_attempt
from tests.services import database_on

HELD_S = 1.0


def _second_writer_waited(settings: Settings) -> float:
    """Seconds a second writer's commit took while a first held its write transaction open."""
    migrations.upgrade(settings)
    db = Database(settings)
    try:
        first = db.write_sessions()
        first.add(make_attempt(text="first"))
        first.flush()
        took: list[float] = []

        def second() -> None:
            began = time.monotonic()
            with db.write_sessions() as session:
                session.add(make_attempt(text="second"))
                session.commit()
            took.append(time.monotonic() - began)

        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(HELD_S)
        first.commit()
        first.close()
        thread.join(timeout=10)
        return took[0]
    finally:
        db.dispose()


def _settings(tmp_path: Path, url: str = "") -> Settings:
    return Settings(
        data_dir=tmp_path, database_url=url, secret_key="test-only-secret-key-that-is-long-enough"
    )


def test_on_sqlite_a_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    assert _second_writer_waited(_settings(tmp_path)) >= HELD_S * 0.9


def test_on_postgres_a_second_writer_does_not_wait_for_the_first(postgres_url: str, tmp_path: Path) -> None:
    url = database_on(postgres_url, f"writers_{secrets.token_hex(6)}")
    assert _second_writer_waited(_settings(tmp_path, url)) < HELD_S / 2
