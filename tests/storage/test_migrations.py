"""Every migration on both engines, with pytest-alembic's checks: one head, an upgrade from empty
to head one step at a time, models that match the DDL the migrations make, and every step undone
and redone."""

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.config import Config
from pytest_alembic import MigrationContext
from pytest_alembic.tests import default as checks
from sqlalchemy import Engine

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
