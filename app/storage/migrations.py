"""Bring a database to the newest schema with Alembic (the only way the schema changes)."""

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext

from app import PROJECT_ROOT
from app.settings import Settings
from app.storage.database import make_engine


def alembic_config() -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    return config


def upgrade(settings: Settings, revision: str = "head") -> None:
    config = alembic_config()
    engine = make_engine(settings, migrating=True)
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            # Data migrations read what the settings point at (0005: the cards in the content folder).
            config.attributes["settings"] = settings
            command.upgrade(config, revision)
    finally:
        engine.dispose()


def revision(settings: Settings) -> str | None:
    """The revision the database is at; None when it has none yet (empty or never migrated)."""
    engine = make_engine(settings)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
