"""Counters kept in a table: add to a row's counts, creating the row the first time, in one
statement that works on SQLite and on PostgreSQL alike."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

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
    dialect = sqlite if session.get_bind().dialect.name == "sqlite" else postgresql
    statement = dialect.insert(model)
    table = statement.table
    # Every row names every count, so one statement serves them all.
    counts = sorted({column for row in summed.values() for column in row} - set(key))
    statement = statement.on_conflict_do_update(
        index_elements=list(key),
        set_={column: table.c[column] + statement.excluded[column] for column in counts},
    )
    session.execute(statement, [dict.fromkeys(counts, 0) | row for row in summed.values()])
