"""One temporary database per test session, migrated with Alembic; a client that speaks CSRF;
an app in AUTH_MODE=accounts with two members and an admin, and clients signed in as each; a
content folder of a test's own, served instead of content/.

`TIERCARDS_TEST_DATABASE=postgres` (make test-postgres) runs the whole suite on a PostgreSQL server
started here, each data folder with a database of its own (tests/services.py).
"""

import importlib.util
import os
import secrets
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app import PROJECT_ROOT
from app.content.catalogue import Catalogue
from app.content.dependencies import get_catalogue
from app.factory import create_app
from app.interview.models import InterviewQuestion, InterviewSession
from app.practice.models import (
    Attempt,
    PracticeDay,
    QuizTally,
    ReviewLog,
    ReviewState,
    UserSettings,
)
from app.settings import Settings
from app.speech.models import QuestionVoice, Recording, RecordingAudio
from app.storage import migrations
from app.transfer.models import ImportGuard
from tests.helpers.accounts import fresh_client, running_team, sign_in
from tests.helpers.clients import with_csrf
from tests.services import (
    ENGINES,
    POSTGRES_ENV,
    RUN_ENV,
    database_url,
    postgres_server,
    redis_server,
    suite_engine,
)

# pytester runs the suite's own plugin on small suites of its own (tests/test_engines.py).
pytest_plugins = ["tests.engines", "pytester"]

_servers = ExitStack()

# The containers' tests need a Docker engine and the images built: scripts/container-check.sh
# (`make test-containers`, which `make test` runs last) sets this after building them.
collect_ignore = [] if os.environ.get("TIERCARDS_TEST_CONTAINERS") else ["containers"]


def pytest_configure(config: pytest.Config) -> None:
    # Environment, so that the servers and workers the tests start find the same database server.
    os.environ.setdefault(RUN_ENV, secrets.token_hex(4))
    engine = suite_engine()
    if engine not in ENGINES:
        raise pytest.UsageError(f"TIERCARDS_TEST_DATABASE is one of {', '.join(ENGINES)}")
    if engine == "postgres" and not os.environ.get(POSTGRES_ENV):
        folder = Path(tempfile.mkdtemp(prefix="tiercards-test-postgres-"))
        os.environ[POSTGRES_ENV] = _servers.enter_context(postgres_server(folder))


def _claims_model_missing() -> str | None:
    """Why the entailment model cannot run here, or None when it can."""
    for module in ("tiercards_claims_model", "app.coverage.entailment"):
        if importlib.util.find_spec(module) is None:
            return f"the entailment model is not installed here ({module} is missing)"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Tests of the entailment model run wherever it is installed. Elsewhere they are skipped with
    # the reason (-ra lists it), except on CI, which installs everything: there they run and fail.
    missing = _claims_model_missing()
    if missing and not os.environ.get("CI"):
        for item in items:
            if item.get_closest_marker("claims_model"):
                item.add_marker(pytest.mark.skip(reason=missing))
    # make test runs tests in parallel, grouped by id: two tests of one id would run as one.
    repeated = sorted(nodeid for nodeid, count in Counter(item.nodeid for item in items).items() if count > 1)
    if repeated:
        raise pytest.UsageError(
            f"tests share an id, so a parallel run would run only one of each: {repeated}"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    _servers.close()


@pytest.fixture(scope="session")
def postgres_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL server's admin URL, for tests that need one whatever the suite runs on."""
    running = os.environ.get(POSTGRES_ENV)
    if running:
        yield running
        return
    with postgres_server(tmp_path_factory.mktemp("postgres")) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server's URL, shared by the session: tests use queue names of their own."""
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data_dir = tmp_path_factory.mktemp("data")
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url(data_dir),
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
        for table in (
            InterviewQuestion,
            InterviewSession,
            ImportGuard,
            ReviewLog,
            ReviewState,
            PracticeDay,
            QuizTally,
            UserSettings,
            Attempt,
            RecordingAudio,
            Recording,
            QuestionVoice,
        ):
            session.execute(delete(table))
        session.commit()
    app.state.db.dispose()


@pytest.fixture
def content_folder(app: FastAPI, tmp_path: Path) -> Iterator[Path]:
    """An empty content folder of our own, served instead of content/ (edits show at once)."""
    catalogue = Catalogue(tmp_path, poll_seconds=0)
    app.dependency_overrides[get_catalogue] = lambda: catalogue
    yield tmp_path
    app.dependency_overrides.pop(get_catalogue, None)


@pytest.fixture
def anonymous_client(app: FastAPI) -> Iterator[TestClient]:
    """A client that has not picked up a CSRF token yet."""
    with TestClient(app) as client:
        yield client


@pytest.fixture
def client(anonymous_client: TestClient) -> TestClient:
    """A client that has loaded a page, so it holds the CSRF cookie and sends the token back."""
    return with_csrf(anonymous_client)


@pytest.fixture
def team_app(tmp_path: Path) -> Iterator[FastAPI]:
    with running_team(tmp_path) as app:
        yield app


@pytest.fixture
def signed_in(team_app: FastAPI) -> Iterator[Callable[[str], TestClient]]:
    clients: list[TestClient] = []

    def make(name: str) -> TestClient:
        client = sign_in(fresh_client(team_app), name)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
