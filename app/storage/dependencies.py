"""FastAPI dependencies that hand a route a database session for one request."""

from collections.abc import AsyncIterator, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.storage.database import Database


async def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def get_session(request: Request) -> Iterator[Session]:
    database: Database = request.app.state.db
    with database.read_sessions() as session:
        yield session


async def get_write_session(request: Request) -> AsyncIterator[Session]:
    """A session for one write transaction; callers commit, so an acknowledged write is stored.

    Writers in this process take turns on an asyncio lock: SQLite allows one writer at a time, and
    queueing here is far cheaper than many threads sleeping in SQLite's busy handler. Other
    processes (the demo worker) still meet BEGIN IMMEDIATE and busy_timeout.
    """
    database: Database = request.app.state.db
    async with database.write_lock:
        with database.write_sessions() as session:
            yield session


DatabaseDep = Annotated[Database, Depends(get_database)]
SessionDep = Annotated[Session, Depends(get_session)]
WriteSessionDep = Annotated[Session, Depends(get_write_session)]
