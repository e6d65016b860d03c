"""Writers on each engine: on SQLite they take turns (one writer at a time, by SQLite's own rule);
on PostgreSQL two writers go ahead at once, with no process-wide lock between them."""

import secrets
import threading
from pathlib import Path

from app.settings import Settings
from app.storage import migrations
from app.storage.database import Database
from tests.factories import make_attempt
from tests.services import database_on

HELD_S = 1.0
# Long enough that only a writer that waits for the first one never gets there.
DEADLINE_S = 60.0


def _second_writer_went_ahead(settings: Settings, wait_s: float) -> bool:
    """Whether a second writer's commit went through within `wait_s` while a first writer held its
    write transaction open. Told by the event itself, not by how long anything took."""
    migrations.upgrade(settings)
    db = Database(settings)
    try:
        first = db.write_sessions()
        first.add(make_attempt(text="first"))
        first.flush()
        committed = threading.Event()

        def second() -> None:
            with db.write_sessions() as session:
                session.add(make_attempt(text="second"))
                session.commit()
            committed.set()

        thread = threading.Thread(target=second)
        thread.start()
        went_ahead = committed.wait(wait_s)
        first.commit()
        first.close()
        thread.join(timeout=DEADLINE_S)
        assert committed.is_set(), "the second writer never committed"
        return went_ahead
    finally:
        db.dispose()


def _settings(tmp_path: Path, url: str = "") -> Settings:
    return Settings(
        data_dir=tmp_path, database_url=url, secret_key="test-only-secret-key-that-is-long-enough"
    )


def test_on_sqlite_a_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    assert not _second_writer_went_ahead(_settings(tmp_path), wait_s=HELD_S)


def test_on_postgres_a_second_writer_does_not_wait_for_the_first(postgres_url: str, tmp_path: Path) -> None:
    url = database_on(postgres_url, f"writers_{secrets.token_hex(6)}")
    assert _second_writer_went_ahead(_settings(tmp_path, url), wait_s=DEADLINE_S)
