"""Engine, sessions and the SQLite settings that let the web and the worker share one file."""

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import sessionmaker

from app.settings import Settings

SQLITE_BUSY_TIMEOUT_MS = 10_000
# Sync routes and their sessions run on FastAPI's thread pool (anyio's default: 40 threads), and
# each such thread holds at most one connection. A pool that can grow to that many never makes a
# thread wait for a connection; the kept-open part stays small. A wait that does happen gives up
# after POOL_TIMEOUT_S and the request fails cleanly rather than hanging.
POOL_SIZE = 10
POOL_MAX_OVERFLOW = 30
POOL_TIMEOUT_S = 10


def make_engine(settings: Settings) -> Engine:
    pool = {"pool_size": POOL_SIZE, "max_overflow": POOL_MAX_OVERFLOW, "pool_timeout": POOL_TIMEOUT_S}
    if not settings.is_sqlite:
        return create_engine(settings.database_url, pool_pre_ping=True, **pool)
    _ensure_sqlite_folder(settings.database_url)
    engine = create_engine(settings.database_url, connect_args={"check_same_thread": False}, **pool)
    event.listen(engine, "connect", _configure_sqlite_connection)
    event.listen(engine, "begin", _begin_sqlite_transaction)
    return engine


def _ensure_sqlite_folder(url: str) -> None:
    path = url.removeprefix("sqlite:///")
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)


def _configure_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    # Hand transaction control to SQLAlchemy's "begin" event (below) instead of pysqlite.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _begin_sqlite_transaction(connection: Any) -> None:
    # A writer takes the write lock up front (BEGIN IMMEDIATE) and so waits on busy_timeout;
    # a deferred transaction that reads and then writes can instead fail at once with
    # "database is locked" when another writer got in between.
    mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
    connection.exec_driver_sql(f"BEGIN {mode}")


class Database:
    """Holds the engine and the two session factories: reads, and writes that lock up front."""

    def __init__(self, settings: Settings) -> None:
        self.engine = make_engine(settings)
        self.read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        write_engine = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self.write_sessions = sessionmaker(write_engine, expire_on_commit=False)
        # SQLite has one writer at a time: writers of this process queue on the loop for it.
        self.write_lock = asyncio.Lock() if settings.is_sqlite else None

    def dispose(self) -> None:
        self.engine.dispose()
