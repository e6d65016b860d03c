"""Migration 0007 makes the assignments table as the models say, and takes it away again."""

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.settings import Settings
from app.storage import migrations
from app.storage.base import Base
from app.storage.database import make_engine


def test_0007_goes_down_and_up_again_and_matches_the_models(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, secret_key="test-only-secret-key-that-is-long-enough")
    migrations.upgrade(settings, "0007")
    engine = make_engine(settings, migrating=True)
    try:
        with engine.begin() as connection:
            config = migrations.alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0006")
            assert "assignments" not in inspect(connection).get_table_names()
            assert "audit_events" in inspect(connection).get_table_names()
            command.upgrade(config, "0007")
            differences = [
                diff
                for diff in compare_metadata(MigrationContext.configure(connection), Base.metadata)
                if "assignments" in str(diff)
            ]
        assert differences == []
    finally:
        engine.dispose()
