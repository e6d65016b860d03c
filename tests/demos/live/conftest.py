"""The demo tests' workers: one `tiercards worker` for the whole session, restarted by the tests
that kill it, and an app with no worker at all, whose queue fills up."""

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.demos.models import DemoRun
from app.factory import create_app
from app.settings import Settings
from tests.helpers.clients import csrf_client
from tests.helpers.demos import WorkerProcess, demo_settings_for, running_worker, settle

# ---------------------------------------------------------------------------------------------
# With a worker


@pytest.fixture(scope="session")
def demo_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings_for(tmp_path_factory.mktemp("demo-data"))


@pytest.fixture(scope="session")
def worker(demo_settings: Settings) -> Iterator[WorkerProcess]:
    yield from running_worker(demo_settings)


@pytest.fixture
def demo_app(demo_settings: Settings, worker: WorkerProcess) -> Iterator[FastAPI]:
    worker.ensure_running()
    app = create_app(demo_settings)
    yield app
    settle(app.state.db)
    app.state.db.dispose()


@pytest.fixture
def demo_client(demo_app: FastAPI) -> Iterator[TestClient]:
    with csrf_client(demo_app) as client:
        yield client


# ---------------------------------------------------------------------------------------------
# Without any worker: the queue fills up and nobody takes from it


@pytest.fixture(scope="session")
def idle_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings_for(tmp_path_factory.mktemp("idle-data"))


@pytest.fixture
def idle_app(idle_settings: Settings) -> Iterator[FastAPI]:
    app = create_app(idle_settings)
    yield app
    with app.state.db.write_sessions() as session:
        session.execute(
            update(DemoRun).where(DemoRun.status.in_(("queued", "running"))).values(status="cancelled")
        )
        session.commit()
    app.state.db.dispose()


@pytest.fixture
def idle_client(idle_app: FastAPI) -> Iterator[TestClient]:
    with csrf_client(idle_app) as client:
        yield client
