"""A person's writes take turns (accounts.service.lock_person): the lock is asked for once per
transaction, however many steps of one write ask, and every new transaction asks again, so a
second write of the same person waits until the first is stored."""

import sqlite3
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import OperationalError

from app.accounts import service
from app.storage.database import Database


@pytest.fixture
def person(app: FastAPI) -> int:
    with app.state.db.write_sessions() as session:
        user = service.ensure_user(session, name="lockee", role=None, how="proxy")
        session.commit()
        return user.id


@pytest.fixture
def locks(app: FastAPI) -> Iterator[list[str]]:
    """The lock statements the app's engine runs."""
    seen: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        if statement.lstrip().upper().startswith("SELECT USERS.ID"):
            seen.append(statement)

    event.listen(app.state.db.engine, "before_cursor_execute", note)
    yield seen
    event.remove(app.state.db.engine, "before_cursor_execute", note)


def _another_writer_gets_in(db: Database, user_id: int) -> bool:
    """Whether a writer on a connection of its own takes the person's lock at once."""
    url = db.engine.url
    if url.get_backend_name() == "sqlite":
        other = sqlite3.connect(str(url.database), timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")  # SQLite's one writer at a time is the lock
            other.rollback()
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            other.close()
    engine = create_engine(url.render_as_string(hide_password=False))
    try:
        with engine.connect() as connection:
            connection.execute(text("SET lock_timeout = '200ms'"))
            connection.execute(text("SELECT id FROM users WHERE id = :id FOR NO KEY UPDATE"), {"id": user_id})
            return True
    except OperationalError:
        return False
    finally:
        engine.dispose()


def test_one_write_asks_for_the_lock_once(app: FastAPI, person: int, locks: list[str]) -> None:
    with app.state.db.write_sessions() as session:
        service.lock_person(session, person)
        service.lock_person(session, person)  # an answer's schedule asks again
        assert len(locks) == 1
        assert not _another_writer_gets_in(app.state.db, person)
        session.rollback()


def test_the_next_write_of_the_same_session_locks_again(app: FastAPI, person: int, locks: list[str]) -> None:
    with app.state.db.write_sessions() as session:
        service.lock_person(session, person)
        session.commit()
        assert _another_writer_gets_in(app.state.db, person)
        service.lock_person(session, person)
        assert len(locks) == 2
        assert not _another_writer_gets_in(app.state.db, person)
        session.rollback()
    assert _another_writer_gets_in(app.state.db, person)
