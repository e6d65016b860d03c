"""One temporary database per test session, migrated with Alembic; a client that speaks CSRF."""

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app import PROJECT_ROOT
from app.practice.models import Attempt, ReviewLog, ReviewState, UserSettings
from app.settings import Settings
from app.storage import migrations
from app.web.factory import create_app
from app.web.security import CSRF_COOKIE


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data_dir = tmp_path_factory.mktemp("data")
    settings = Settings(
        data_dir=data_dir,
        content_dir=PROJECT_ROOT / "content",
        secret_key="test-only-secret-key-that-is-long-enough",
        content_poll_seconds=0,
        # TestClient's own host name, beside the loopback names a browser would use.
        allowed_hosts=["testserver", "localhost", "127.0.0.1"],
    )
    migrations.upgrade(settings)
    return settings


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    app = create_app(settings)
    yield app
    app.dependency_overrides.clear()
    with app.state.db.write_sessions() as session:
        for table in (ReviewLog, ReviewState, UserSettings, Attempt):
            session.execute(delete(table))
        session.commit()
    app.state.db.dispose()


@pytest.fixture
def anonymous_client(app: FastAPI) -> Iterator[TestClient]:
    """A client that has not picked up a CSRF token yet."""
    with TestClient(app) as client:
        yield client


@pytest.fixture
def client(anonymous_client: TestClient) -> TestClient:
    """A client that has loaded a page, so it holds the CSRF cookie and sends the token back."""
    anonymous_client.get("/healthz")
    anonymous_client.headers["X-CSRF-Token"] = anonymous_client.cookies[CSRF_COOKIE]
    return anonymous_client
