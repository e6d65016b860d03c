"""FastAPI dependencies that hand a route a database session for one request.

Sessions are synchronous, so FastAPI opens them in its thread pool and the routes that use them
are plain `def` routes, run there too: database work never runs on the event loop's thread, and a
request waiting for a connection never stops the loop from serving others. Both end with the
route (scope "function"), before the response is sent, so no connection is held while a slow
client reads it.
"""

from collections.abc import AsyncIterator, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.storage.database import Database


async def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


DatabaseDep = Annotated[Database, Depends(get_database)]


def get_session(db: DatabaseDep) -> Iterator[Session]:
    with db.read_sessions() as session:
        yield session


async def write_turn(db: DatabaseDep) -> AsyncIterator[None]:
    """Writers in this process take turns on SQLite, waiting on the loop rather than in a thread.

    SQLite allows one writer at a time; queueing here is far cheaper than threads sleeping in its
    busy handler. Other processes (the demo worker) still meet BEGIN IMMEDIATE and busy_timeout.
    Other databases have no such lock, so writers there go straight on.
    """
    if db.write_lock is None:
        yield
        return
    async with db.write_lock:
        yield


def get_write_session(
    db: DatabaseDep, _turn: Annotated[None, Depends(write_turn, scope="function")]
) -> Iterator[Session]:
    """A session for one write transaction; callers commit, so an acknowledged write is stored."""
    with db.write_sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
WriteSessionDep = Annotated[Session, Depends(get_write_session, scope="function")]
