"""Every migration on both engines, with pytest-alembic's checks: one head, an upgrade from empty
to head one step at a time, models that match the DDL the migrations make, and every step undone
and redone."""

import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.config import Config
from pytest_alembic import MigrationContext
from pytest_alembic.tests import default as checks
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from app.accounts.names import name_key
from app.settings import Settings
from app.storage import migrations
from app.storage.database import make_engine
from tests.services import database_on


@pytest.fixture(params=["sqlite", "postgres"])
def migration_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    url = ""
    if request.param == "postgres":
        admin_url = request.getfixturevalue("postgres_url")
        url = database_on(admin_url, f"migrations_{secrets.token_hex(6)}")
    return Settings(
        data_dir=tmp_path, database_url=url, secret_key="test-only-secret-key-that-is-long-enough"
    )


@pytest.fixture
def alembic_config(migration_settings: Settings) -> Config:
    config = migrations.alembic_config()
    config.attributes["settings"] = migration_settings
    return config


@pytest.fixture
def alembic_engine(migration_settings: Settings) -> Iterator[Engine]:
    engine = make_engine(migration_settings, migrating=True)
    yield engine
    engine.dispose()


def test_the_history_has_one_head(alembic_runner: MigrationContext) -> None:
    checks.test_single_head_revision(alembic_runner)


def test_every_migration_applies_from_an_empty_database(alembic_runner: MigrationContext) -> None:
    checks.test_upgrade(alembic_runner)


def test_the_models_match_what_the_migrations_make(alembic_runner: MigrationContext) -> None:
    checks.test_model_definitions_match_ddl(alembic_runner)


def test_every_migration_goes_down_and_up_again(alembic_runner: MigrationContext) -> None:
    checks.test_up_down_consistency(alembic_runner)


def test_name_keys_are_computed_for_existing_people_and_look_alikes_already_there_survive(
    alembic_runner: MigrationContext, alembic_engine: Engine
) -> None:
    alembic_runner.migrate_up_to("0011")
    # Made before names were folded: a look-alike pair, and one of them in capitals.
    for name in ("admin", "Admin", "carol"):
        alembic_runner.insert_into("users", {"name": name, "created_at": datetime.now(UTC)})
    alembic_runner.migrate_up_one()
    with alembic_engine.connect() as connection:
        keys = {name: key for name, key in connection.execute(text("SELECT name, name_key FROM users"))}
    # The older of the pair keeps the plain key; the newer one stays, with a key nobody's name makes.
    admin = name_key("admin")
    assert keys["local"] == "local" and keys["carol"] == "carol" and keys["admin"] == admin
    assert keys["Admin"].startswith(f"{admin}#")
    with alembic_engine.connect() as connection, pytest.raises(IntegrityError):
        connection.execute(
            text(
                "INSERT INTO users (name, name_key, created_at, role, hide_answers)"
                " VALUES ('ADMIN', :key, CURRENT_TIMESTAMP, 'member', false)"
            ),
            {"key": admin},
        )
