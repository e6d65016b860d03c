"""A route's session gives its connection back as the route ends, whether it returned or raised.

A write that is refused (a 429, a 422 raised from the service) ended with its SQLite writer turn
still held until the garbage collector found the abandoned session: every later write waited on
it, and the suite hung on a demo submit after "the queue is full". The collector is kept out of
the way here, so nothing but the route's own ending can give the connection back."""

import gc
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from sqlalchemy import text

from app.settings import Settings
from app.storage import migrations
from app.storage.database import Database
from app.storage.dependencies import get_session, get_write_session, write_turn
from tests.services import database_url


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    settings = Settings(
        data_dir=tmp_path,
        database_url=database_url(tmp_path),
        secret_key="test-only-secret-key-that-is-long-enough",
    )
    migrations.upgrade(settings)
    database = Database(settings)
    gc.disable()
    try:
        yield database
    finally:
        gc.enable()
        database.dispose()


class Refused(Exception):
    pass


async def _route_that_raises(db: Database, dependency: Callable[..., AsyncIterator[object]]) -> None:
    """What FastAPI does with a dependency that yields: enter it, run the route, and on the way out
    throw the route's exception into it."""
    args = (db, None) if dependency is get_write_session else (db,)
    with pytest.raises(Refused):
        async with asynccontextmanager(dependency)(*args) as session:
            session.execute(text("SELECT 1"))  # type: ignore[attr-defined]
            raise Refused


def _run(scenario: Callable[[], Awaitable[None]], failures: list[BaseException]) -> None:
    try:
        anyio.run(scenario)
    except BaseException as error:  # reported on the test's own thread
        failures.append(error)


@pytest.mark.parametrize("dependency", [get_session, get_write_session], ids=["read", "write"])
def test_a_route_that_raises_gives_its_connection_back_at_once(db: Database, dependency: object) -> None:
    async def scenario() -> None:
        async with asynccontextmanager(write_turn)(db):
            await _route_that_raises(db, dependency)  # type: ignore[arg-type]

    # A thread of its own: the browser tests' Playwright keeps an event loop running on this one.
    failures: list[BaseException] = []
    runner = threading.Thread(target=lambda: _run(scenario, failures))
    runner.start()
    runner.join(timeout=30)
    assert failures == []
    assert db.engine.pool.checkedout() == 0  # type: ignore[attr-defined]
