"""The import quota: the rows a person may have stored once an import is merged
(IMPORT_ROWS_PER_PERSON), so that imports cannot fill the disk.

Rows are attempts, review logs and review states: all an import stores, but for an attempt's
suggestion, which hangs off its attempt. Each row's size is bounded by the file's schema, so a bound
on a person's rows bounds their bytes. Practice is not refused: a person past the quota may still
answer, and import a file that adds nothing.

The merge commits batch by batch, so a file is judged whole before anything of it is stored: by
its lengths when all of it may be new and still fits, else by looking up which of its rows are
stored already (a person importing their own export again adds nothing). The claim that starts
the merge checks again, with the person locked, so two imports cannot both take the last room.
"""

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TypeVar

from sqlalchemy import func, select, tuple_
from sqlalchemy.orm import Session

from app.exceptions import TooLarge
from app.practice.models import Attempt, ReviewLog, ReviewState
from app.transfer.reader import ImportFile
from app.transfer.schemas import AttemptDoc, ReviewLogDoc, ReviewStateDoc

# Rows of the file looked up at a time, each batch in a short read transaction of its own.
LOOKUP_ROWS = 500
Item = TypeVar("Item")


def stored_rows(session: Session, user_id: int) -> int:
    """The person's rows, counted on each table's index that starts with user_id: none is read."""
    return sum(
        session.scalar(select(func.count()).select_from(model).where(model.user_id == user_id)) or 0
        for model in (Attempt, ReviewLog, ReviewState)
    )


def rows_to_add(reads: Callable[[], Session], *, user_id: int, file: ImportFile, quota: int) -> int:
    """How many rows merging `file` would store for `user_id` (at most; a row the merge finds
    twice in the file counts twice), or TooLarge when more than the quota leaves room for."""
    with reads() as session:
        stored = stored_rows(session, user_id)
    room = max(0, quota - stored)
    if file.stored_rows() <= room:  # even if all of it is new
        return file.stored_rows()
    new = _new_rows(reads, user_id=user_id, file=file, past=room)
    if new > room:
        raise _over(stored=stored, quota=quota)
    return new


def check(session: Session, *, user_id: int, adding: int, quota: int) -> None:
    """TooLarge when `adding` rows no longer fit the quota (another import of the person's came
    first). Part of the caller's unit of work, which holds the person's lock."""
    stored = stored_rows(session, user_id)
    if adding > max(0, quota - stored):
        raise _over(stored=stored, quota=quota)


def _over(*, stored: int, quota: int) -> TooLarge:
    return TooLarge(
        f"the file would add more rows (answers, reviews and schedules) than the"
        f" {max(0, quota - stored):,} left of this server's import quota of {quota:,} a person"
        f" (IMPORT_ROWS_PER_PERSON), with {stored:,} stored already; nothing of it was imported."
        " Import a file with less history, or ask the server's admin to raise IMPORT_ROWS_PER_PERSON"
    )


def _new_rows(reads: Callable[[], Session], *, user_id: int, file: ImportFile, past: int) -> int:
    """The rows of `file` not stored yet; the count stops once it is past `past`, which is all
    the caller needs to know then."""
    new = 0
    for count in _new_per_batch(reads, user_id=user_id, file=file):
        new += count
        if new > past:
            break
    return new


def _new_per_batch(reads: Callable[[], Session], *, user_id: int, file: ImportFile) -> Iterator[int]:
    """How many rows of each batch of the file are not stored yet, by the keys the merge matches
    them on; a short read transaction a batch (a long one would hold SQLite's checkpoint back)."""
    for attempts in _batches(file.attempts()):
        with reads() as session:
            new = _new_attempts(session, user_id=user_id, docs=attempts)
        yield new
    for logs in _batches(file.review_logs()):
        with reads() as session:
            new = _new_logs(session, user_id=user_id, docs=logs)
        yield new
    for states in _batches(file.review_states()):
        with reads() as session:
            new = _new_states(session, user_id=user_id, docs=states)
        yield new


def _batches(items: Iterable[Item]) -> Iterator[list[Item]]:
    iterator = iter(items)
    while batch := list(islice(iterator, LOOKUP_ROWS)):
        yield batch


def _new_attempts(session: Session, *, user_id: int, docs: list[AttemptDoc]) -> int:
    keys = {(d.card_id, d.tier, d.kind, d.follow_up, d.created_at) for d in docs}
    found = session.execute(
        select(Attempt.card_id, Attempt.tier, Attempt.kind, Attempt.follow_up, Attempt.created_at)
        .where(Attempt.user_id == user_id)
        .where(tuple_(Attempt.card_id, Attempt.created_at).in_({(k[0], k[-1]) for k in keys}))
    )
    return len(keys - {tuple(row) for row in found})


def _new_logs(session: Session, *, user_id: int, docs: list[ReviewLogDoc]) -> int:
    keys = {(d.card_id, d.tier, d.review_datetime) for d in docs}
    found = session.execute(
        select(ReviewLog.card_id, ReviewLog.tier, ReviewLog.review_datetime)
        .where(ReviewLog.user_id == user_id)
        .where(tuple_(ReviewLog.card_id, ReviewLog.tier, ReviewLog.review_datetime).in_(keys))
    )
    return len(keys - {tuple(row) for row in found})


def _new_states(session: Session, *, user_id: int, docs: list[ReviewStateDoc]) -> int:
    keys = {(d.card_id, d.tier) for d in docs}
    found = session.execute(
        select(ReviewState.card_id, ReviewState.tier)
        .where(ReviewState.user_id == user_id)
        .where(tuple_(ReviewState.card_id, ReviewState.tier).in_(keys))
    )
    return len(keys - {tuple(row) for row in found})
