"""Migration 0012 gives the people already there the key the app computes, so a look-alike pair
made before keys existed (a capital I for an l) both stay, and nobody like either is made later."""

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from app.accounts import names
from app.settings import Settings
from app.storage import migrations
from app.storage.database import make_engine
from tests.services import database_url


def test_look_alikes_already_there_get_the_apps_keys_and_both_stay(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        database_url=database_url(tmp_path),
        secret_key="test-only-secret-key-that-is-long-enough",
    )
    migrations.upgrade(settings, "0011")
    engine = make_engine(settings)
    with engine.begin() as connection:
        for name in ("alice", "AIice", "carol"):
            connection.execute(
                text("INSERT INTO users (name, created_at) VALUES (:name, :at)"),
                {"name": name, "at": datetime.now(UTC)},
            )
    migrations.upgrade(settings)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT id, name, name_key FROM users")).all()
    engine.dispose()
    keys = {name: (user_id, key) for user_id, name, key in rows}
    assert keys["alice"][1] == names.name_key("alice")
    assert keys["carol"][1] == names.name_key("carol")
    assert keys["AIice"][1] == f"{names.name_key('alice')}#{keys['AIice'][0]}"
