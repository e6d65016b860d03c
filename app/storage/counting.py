"""Counters kept in a table: add to a row's counts, creating the row the first time, in one
statement that works on SQLite and on PostgreSQL alike."""

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert

from app.storage.base import Base


def add(
    session: Session,
    *,
    model: type[Base],
    key: Sequence[str],
    rows: Iterable[Mapping[str, Any]],
) -> None:
    """Part of the caller's unit of work. Add each row's counts (every column not in `key`) to the
    stored row with its key, or store it when there is none. Rows with the same key are summed
    first: one statement may not touch a row twice on PostgreSQL, and one upsert a key is less
    work than one a row."""
    summed: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        at = tuple(row[column] for column in key)
        total = summed.setdefault(at, dict(zip(key, at, strict=True)))
        for column, value in row.items():
            if column not in key:
                total[column] = total.get(column, 0) + value
    if not summed:
        return
    # Every row names every count, so one statement serves them all.
    counts = tuple(sorted({column for row in summed.values() for column in row} - set(key)))
    statement = _upsert(session.get_bind().dialect.name, model=model, key=tuple(key), counts=counts)
    # On the session's connection, not through the ORM: its bulk-insert path costs more than the
    # statement, and a counts table has no objects in the session to keep in step.
    params = [dict.fromkeys(counts, 0) | row for row in summed.values()]
    # One row is one plain execute; a list is an executemany, with its own set-up.
    session.connection().execute(statement, params[0] if len(params) == 1 else params)


# Building the statement costs more than running it; the few shapes in use are built once.
@functools.lru_cache(maxsize=64)
def _upsert(dialect_name: str, *, model: type[Base], key: tuple[str, ...], counts: tuple[str, ...]) -> Insert:
    dialect = sqlite if dialect_name == "sqlite" else postgresql
    statement = dialect.insert(model)
    table = statement.table
    return statement.on_conflict_do_update(
        index_elements=list(key),
        set_={column: table.c[column] + statement.excluded[column] for column in counts},
    )
