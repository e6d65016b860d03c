"""FastAPI dependencies that hand a route a database session for one request.

Sessions are synchronous and the routes that use them are plain `def` routes, which FastAPI runs
in its thread pool: database work never runs on the event loop's thread, and a request waiting
for a connection never stops the loop from serving others. A session is made on the loop (that
touches no database: it connects on first use, in the route's thread) and closed in a thread
whenever closing has a connection to give back. Both end with the route (scope "function"),
before the response is sent, so no connection is held while a slow client reads it.

Each hop to the thread pool costs a millisecond or more on a busy loop, so the write path takes
as few as it can, and several writers are in flight while SQLite takes them one at a time
(bench/answer_writes.py measures it).
"""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated

import anyio
from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.storage.database import Database


async def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


DatabaseDep = Annotated[Database, Depends(get_database)]


@asynccontextmanager
async def _session_for_route(make: Callable[[], Session]) -> AsyncIterator[Session]:
    session = make()
    try:
        yield session
    finally:
        if session.in_transaction():
            # Giving the connection back rolls its transaction back: database work, off the loop.
            # On a thread of its own, not one of the pool's: a session waiting for a free thread
            # while holding its connection would starve the requests that hold the threads.
            # Shielded: a cancelled request still gives its connection (and on SQLite the one
            # writer's turn) back.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(session.close, limiter=anyio.CapacityLimiter(1))
        else:
            session.close()  # nothing open (the service it was handed to committed): closing is bookkeeping


# `async with`, not `async for`: a route's exception is thrown into the `with`, so the session
# closes as the route ends; an `async for` would leave the inner generator to the garbage
# collector, holding its connection until then.
async def get_session(db: DatabaseDep) -> AsyncIterator[Session]:
    async with _session_for_route(db.read_sessions) as session:
        yield session


async def write_turn(db: DatabaseDep) -> AsyncIterator[None]:
    """On SQLite, a slot among the few writers let into the thread pool at once (see Database);
    other databases take many writers at a time, so writers there go straight on."""
    if db.write_slots is None:
        yield
        return
    async with db.write_slots:
        yield


async def get_write_session(
    db: DatabaseDep, _turn: Annotated[None, Depends(write_turn, scope="function")]
) -> AsyncIterator[Session]:
    """A session for one write transaction; the service it is handed to commits before it
    returns, so an acknowledged write is stored."""
    async with _session_for_route(db.write_sessions) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
WriteSessionDep = Annotated[Session, Depends(get_write_session, scope="function")]
