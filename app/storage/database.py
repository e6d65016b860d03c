"""Engine, sessions and the SQLite settings that let the web and the worker share one file."""

import asyncio
import logging
import threading
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import sessionmaker

from app.settings import Settings
from app.storage.base import ERASED, Base
from app.storage.private import private_sqlite

SQLITE_BUSY_TIMEOUT_MS = 10_000
# Sync routes and their sessions run on FastAPI's thread pool (anyio's default: 40 threads), and
# each such thread holds at most one connection. A pool that can grow to that many never makes a
# thread wait for a connection; the kept-open part stays small. A wait that does happen gives up
# after POOL_TIMEOUT_S and the request fails cleanly rather than hanging.
POOL_SIZE = 10
POOL_MAX_OVERFLOW = 30
POOL_TIMEOUT_S = 10
WRITERS_IN_FLIGHT = 4
# A checkpoint that a reader keeps busy (each try already waits busy_timeout) is tried this often,
# this far apart, before the log is left for the next one.
ERASE_TRIES = 3
ERASE_RETRY_S = 0.2
ERASE_LOCK_TIMEOUT = "5s"

log = logging.getLogger(__name__)


def make_engine(settings: Settings, migrating: bool = False) -> Engine:
    """The engine for `settings`. `migrating`: SQLite without foreign keys enforced, as Alembic's
    batch mode needs (it rebuilds a table by copying it, and dropping the old copy would
    otherwise cascade to every row that points at it)."""
    pool = {"pool_size": POOL_SIZE, "max_overflow": POOL_MAX_OVERFLOW, "pool_timeout": POOL_TIMEOUT_S}
    if not settings.is_sqlite:
        return create_engine(settings.database_url, pool_pre_ping=True, **pool)
    private_sqlite(settings.database_url)
    engine = create_engine(settings.database_url, connect_args={"check_same_thread": False}, **pool)
    turn = _WriterTurn()
    event.listen(engine, "connect", _configure_sqlite_connection)
    if migrating:
        event.listen(engine, "connect", _without_foreign_keys)
    event.listen(engine, "begin", turn.begin)
    event.listen(engine, "checkin", turn.end)
    return engine


def _configure_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    # Hand transaction control to SQLAlchemy's "begin" event (below) instead of pysqlite.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # Deleted rows are overwritten with zeros, so a deleted recording leaves no sound in the file.
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.close()


def _without_foreign_keys(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("PRAGMA foreign_keys=OFF")


class _WriterTurn:
    """One SQLite writer at a time in this process, from BEGIN IMMEDIATE until its connection is
    back in the pool (the transaction is over then, however it ended).

    Threads of this process queue on this lock instead of in SQLite's busy handler, which sleeps
    in steps of milliseconds; other processes (the demo worker) still meet busy_timeout.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def begin(self, connection: Any) -> None:
        # A writer takes the write lock up front (BEGIN IMMEDIATE) and so waits its turn; a
        # deferred transaction that reads and then writes can instead fail at once with
        # "database is locked" when another writer got in between.
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode != "IMMEDIATE":
            connection.exec_driver_sql(f"BEGIN {mode}")
            return
        self.lock.acquire()
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            self.lock.release()
            raise
        connection.connection._connection_record.info[_HOLDS_TURN] = True

    def end(self, _dbapi_connection: Any, record: Any) -> None:
        if record is not None and record.info.pop(_HOLDS_TURN, False):
            self.lock.release()


_HOLDS_TURN = "holds_writer_turn"


class Database:
    """Holds the engine and the two session factories: reads, and writes that lock up front."""

    def __init__(self, settings: Settings) -> None:
        self.engine = make_engine(settings)
        self.read_sessions = sessionmaker(self.engine, expire_on_commit=False)
        write_engine = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self.write_sessions = sessionmaker(write_engine, expire_on_commit=False)
        # SQLite has one writer at a time. A few writers go ahead to the thread pool and take turns
        # there (_WriterTurn); the rest wait on the loop, so waiting writers never fill the pool
        # that reads need. Several in flight hide each hop to the pool behind another's write.
        self.write_slots = asyncio.Semaphore(WRITERS_IN_FLIGHT) if settings.is_sqlite else None

    def erase_deleted(self) -> None:
        """After deleting what must not stay on disk (a recording's sound): SQLite's write-ahead log
        still holds the pages as they were written, so they are copied into the database (where
        secure_delete zeroed the rows) and the log emptied. On PostgreSQL the tables marked
        `ERASED` are unlogged (no copy in the log) and rewritten, since a deleted row stays in
        its table's file until a rewrite and a plain VACUUM frees its space without clearing it."""
        erase_deleted(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()


def erase_deleted(engine: Engine) -> None:
    """`Database.erase_deleted` on `engine`; a checkpoint readers keep busy is tried again briefly,
    then said in the log (the pages stay in the log until a later checkpoint)."""
    if engine.dialect.name == "postgresql":
        _rewrite_erased(engine)
        return
    if engine.dialect.name != "sqlite":
        return
    for attempt in range(ERASE_TRIES):
        if attempt:
            time.sleep(ERASE_RETRY_S)
        with engine.execution_options(sqlite_begin="DEFERRED").connect() as connection:
            # (busy, log pages, pages checkpointed); busy is 1 when a reader held the log.
            row = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
        if not row[0]:
            return
    log.warning(
        "could not empty the write-ahead log after deleting recorded audio: readers kept it busy "
        "(%s pages in it); a later checkpoint will",
        row[1],
    )


def _rewrite_erased(engine: Engine) -> None:
    """VACUUM FULL each table marked `ERASED`: its rows are copied to new files and the old ones,
    deleted rows and all, truncated at commit. Such a table holds only sound not yet transcribed
    (or kept with KEEP_RECORDINGS), so the rewrite is small; it waits at most ERASE_LOCK_TIMEOUT
    for readers, then leaves the rows to the next deletion's rewrite and says so."""
    tables = [table.name for table in Base.metadata.sorted_tables if table.info.get(ERASED)]
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"SET lock_timeout = '{ERASE_LOCK_TIMEOUT}'")
        for table in tables:
            try:
                connection.exec_driver_sql(f'VACUUM FULL "{table}"')
            except OperationalError as error:
                log.warning(
                    "could not rewrite %s after deleting from it (%s); the next deletion will", table, error
                )
