"""Exporting a person's attempts, schedule, review log and settings: the audit line each export
leaves, the rows in the order an export lists them, and the JSON document.

An export is written as it is read: rows come from the database a batch at a time (`yield_per`)
and go as text, a chunk at a time, into a file on disk (`spooled`), so a history of any length
costs the server a batch of rows and a chunk of text, not the whole document. All of it is read
in one transaction, one snapshot of the person's data, that ends when the file is written: the
client then reads the file, however slowly, holding no connection and no read transaction (on
SQLite, one would keep the checkpoint that erases deleted recordings' sound waiting).

The file is held on disk until its client has read it, so the files held are bounded too (`Holds`):
a few a person and a few in all, each until a deadline, past which it is closed, read or not.
"""

import math
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO, NamedTuple

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.accounts import audit
from app.exceptions import TooMany
from app.interview.models import InterviewQuestion, InterviewSession
from app.practice import preferences, scheduling
from app.practice.models import Attempt, ReviewLog
from app.transfer.schemas import (
    MAX_DELIVERY_COUNT,
    MAX_WORDS_PER_MINUTE,
    AttemptDoc,
    CoverageDoc,
    ExportDoc,
    InterviewDoc,
    InterviewQuestionDoc,
    ReviewLogDoc,
    ReviewStateDoc,
)

# Rows read from the database at a time, and about how much text is written at a time.
BATCH_ROWS = 500
CHUNK_CHARS = 64 * 1024
# Exports written at once in this process: each holds a connection while it is written, so a
# person opening many downloads cannot take the pool every other request needs.
EXPORTS_AT_ONCE = 4
RETRY_AFTER_S = 5
_writing = threading.BoundedSemaphore(EXPORTS_AT_ONCE)


@contextmanager
def writing_turn() -> Iterator[None]:
    """One of the EXPORTS_AT_ONCE turns to write an export, held for the block; TooMany when
    all are taken (waiting would hold a thread of the pool meanwhile)."""
    if not _writing.acquire(blocking=False):
        raise TooMany(
            f"{EXPORTS_AT_ONCE} exports are being written right now: try again in a few seconds",
            retry_after=RETRY_AFTER_S,
        )
    try:
        yield
    finally:
        _writing.release()


def spooled(chunks: Generator[str], *, folder: Path) -> IO[bytes]:
    """`chunks` written to a file in `folder`, which is rewound and handed back to be read; the
    generator is closed once written (or failed), so its transaction ends here. The file has no
    name: closing it, or the process ending, frees its space."""
    folder.mkdir(parents=True, exist_ok=True)
    file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 - handed to the caller, who closes it
    try:
        with closing(chunks):
            for chunk in chunks:
                file.write(chunk.encode())
        file.seek(0)
    except BaseException:
        file.close()
        raise
    return file


class HoldLimits(NamedTuple):
    """Export files held on disk at once for one person and in all (this process), and how many
    seconds each may be held once written."""

    per_person: int
    at_once: int
    seconds: float


# A refused export is asked to wait at most this long: most downloads end well before their deadline.
HELD_RETRY_AFTER_S = 30


class CutOff(Exception):
    """The held file was closed at its deadline while its download still read it."""


class Held:
    """One export file on disk, from before it is written until its download has read it, is
    closed, or its deadline passes. Its lock keeps a close at the deadline (by another request's
    thread) from meeting a read of the download's."""

    def __init__(self, holds: "Holds", *, user_id: int, seconds: float) -> None:
        self.user_id = user_id
        self._holds = holds
        self._seconds = seconds
        self._deadline = time.monotonic() + seconds
        self._file: IO[bytes] | None = None
        self._closed = False
        self._lock = threading.Lock()

    def write(self, chunks: Generator[str], *, folder: Path) -> None:
        """`chunks` spooled to the held file; its deadline counts from now, so a long history's
        writing does not eat into the time its client has to read it."""
        file = spooled(chunks, folder=folder)
        with self._lock:
            if self._closed:  # given up meanwhile: the file must not outlive its hold
                file.close()
                raise CutOff
            self._file = file
            self._deadline = time.monotonic() + self._seconds

    def read(self, size: int) -> bytes:
        """Up to `size` more bytes of the file; CutOff once it was closed."""
        with self._lock:
            if self._closed or self._file is None:
                raise CutOff
            return self._file.read(size)

    def close(self) -> None:
        """Close the file, which deletes it, and give up the hold; again does nothing."""
        with self._lock:
            self._closed = True
            if self._file is not None:
                self._file.close()
        self._holds.forget(self)

    def seconds_left(self) -> float:
        return max(0.0, self._deadline - time.monotonic())

    def expired(self) -> bool:
        # A file still being written is not: the writing turns bound those, and it ends.
        return self._file is not None and self.seconds_left() == 0


class Holds:
    """The export files this process holds on disk for their downloads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: set[Held] = set()

    def take(self, *, user_id: int, limits: HoldLimits) -> Held:
        """A hold for one more of `user_id`'s exports; TooMany when they, or this process, hold as
        many as `limits` allow. Holds past their deadline are closed first, so one whose download
        never ran (nothing will close it) frees its place and its disk all the same."""
        with self._lock:
            stale = {held for held in self._held if held.expired()}
            self._held -= stale
        for held in stale:
            held.close()
        with self._lock:
            _check_room(self._held, user_id=user_id, limits=limits)
            held = Held(self, user_id=user_id, seconds=limits.seconds)
            self._held.add(held)
        return held

    def forget(self, held: Held) -> None:
        with self._lock:
            self._held.discard(held)


def _check_room(held: set[Held], *, user_id: int, limits: HoldLimits) -> None:
    """TooMany, naming the limit, when the person or the process holds as many as it allows."""
    theirs = [h for h in held if h.user_id == user_id]
    if len(theirs) >= limits.per_person:
        raise TooMany(
            f"you have {len(theirs)} exports still downloading, as many as one person may have at once"
            " (EXPORTS_HELD_PER_PERSON): let one finish, or cancel it, and try again",
            retry_after=_retry_after(theirs),
        )
    if len(held) >= limits.at_once:
        raise TooMany(
            f"{len(held)} exports are still downloading from this server, as many as it holds at once"
            " (EXPORTS_HELD_AT_ONCE): try again in a little while",
            retry_after=_retry_after(held),
        )


def _retry_after(held: Iterable[Held]) -> int:
    """Seconds until the first of `held` must be gone, held to HELD_RETRY_AFTER_S."""
    first = min((h.seconds_left() for h in held), default=0.0)
    return max(1, min(HELD_RETRY_AFTER_S, math.ceil(first)))


# One a process: each web process (`serve --workers N`) has its own, and its own limits.
HELD = Holds()


@contextmanager
def hold(*, user_id: int, limits: HoldLimits) -> Iterator[Held]:
    """A hold on one more export file of `user_id`'s (see `Holds.take`), given up if the block
    fails: refused, unwritten or failed, it holds nothing."""
    held = HELD.take(user_id=user_id, limits=limits)
    try:
        yield held
    except BaseException:
        held.close()
        raise


def record(session: Session, *, user_id: int, address: str | None, format: str) -> None:
    """Record the export in the audit log before it is read: a read session may then write
    without meeting another writer's newer snapshot."""
    audit.record(session, kind="export", user_id=user_id, actor_id=user_id, address=address, format=format)
    session.commit()


def one_snapshot(session: Session) -> None:
    """Make the session's transaction read one snapshot throughout. SQLite's read transaction
    (WAL) already does from its first read; PostgreSQL's default gives each statement its own,
    so the export's statements could see an answer's review without the answer.
    Part of the caller's unit of work."""
    if session.get_bind().dialect.name == "postgresql":
        session.connection(
            execution_options={"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
        )


def attempts_of(session: Session, user_id: int) -> Iterator[Attempt]:
    """The person's attempts, oldest first, read a batch at a time."""
    query = (
        select(Attempt)
        .where(Attempt.user_id == user_id)
        .order_by(Attempt.created_at, Attempt.id)
        .options(selectinload(Attempt.coverage))
        .execution_options(yield_per=BATCH_ROWS)
    )
    return iter(session.scalars(query))


def review_logs_of(session: Session, user_id: int) -> Iterator[ReviewLog]:
    """The person's reviews, oldest first, read a batch at a time."""
    query = (
        select(ReviewLog)
        .where(ReviewLog.user_id == user_id)
        .order_by(ReviewLog.review_datetime, ReviewLog.id)
        .execution_options(yield_per=BATCH_ROWS)
    )
    return iter(session.scalars(query))


def interviews_of(session: Session, user_id: int) -> Iterator[InterviewDoc]:
    """The person's mock interviews, oldest first, each with its questions in order."""
    query = (
        select(InterviewSession)
        .where(InterviewSession.user_id == user_id)
        .order_by(InterviewSession.created_at, InterviewSession.id)
        # The file names each question's attempt by id; the attempts themselves are listed once.
        .options(selectinload(InterviewSession.questions).raiseload(InterviewQuestion.attempt))
        .execution_options(yield_per=BATCH_ROWS)
    )
    for interview in session.scalars(query):
        yield InterviewDoc.model_validate(
            _fields(interview, InterviewDoc)
            | {"questions": [_fields(question, InterviewQuestionDoc) for question in interview.questions]}
        )


def _fields(row: object, doc: type[BaseModel]) -> dict[str, object]:
    """The row's value of each of the document's fields (they share their names)."""
    return {name: getattr(row, name) for name in doc.model_fields}


# Each delivery figure and the top of the range an import accepts for it.
_FIGURE_BOUNDS = (
    ("words_per_minute", MAX_WORDS_PER_MINUTE),
    ("filler_count", MAX_DELIVERY_COUNT),
    ("long_pauses", MAX_DELIVERY_COUNT),
)


def _attempt_doc(attempt: Attempt) -> AttemptDoc:
    """The attempt as the file lists it. A figure stored out of range (before figures were
    bounded, or by hand) is held to the range an import accepts: the export still answers, and
    the file it writes still imports."""
    fields = _fields(attempt, AttemptDoc)
    fields["coverage"] = _coverage_doc(attempt)
    for name, top in _FIGURE_BOUNDS:
        value = fields[name]
        if isinstance(value, int | float):
            fields[name] = min(max(value, 0), top)
    return AttemptDoc.model_validate(fields)


def _coverage_doc(attempt: Attempt) -> CoverageDoc | None:
    """The attempt's suggestion as the file lists it; one that would not import back (written by
    hand, or its text edited since) is left out rather than failing the export."""
    if attempt.coverage is None:
        return None
    try:
        doc = CoverageDoc.model_validate(_fields(attempt.coverage, CoverageDoc))
    except ValidationError:
        return None
    return doc if attempt.text and doc.furthest() <= len(attempt.text) else None


def _lists(session: Session, user_id: int) -> Iterator[tuple[str, Iterable[BaseModel]]]:
    """Each list of the document, in the document's order; a list's statement runs when the list
    before it has been written, so one cursor is open at a time."""
    yield "attempts", (_attempt_doc(a) for a in attempts_of(session, user_id))
    # One state a card and tier: as many as there are cards, not answers.
    yield (
        "review_states",
        (
            ReviewStateDoc.model_validate(_fields(s, ReviewStateDoc) | {"state": scheduling.state_name(s)})
            for s in scheduling.states_for(session, user_id=user_id)
        ),
    )
    yield (
        "review_logs",
        (ReviewLogDoc.model_validate(_fields(log, ReviewLogDoc)) for log in review_logs_of(session, user_id)),
    )
    yield "interviews", interviews_of(session, user_id)


def _listed(docs: Iterable[BaseModel]) -> Iterator[str]:
    """A list of the document as the whole document's `model_dump_json(indent=1)` writes it: each
    row at depth 2. A row's own JSON holds no raw line break (strings escape theirs), so each of
    its lines can be indented."""
    separator = "[\n  "
    for doc in docs:
        yield separator + doc.model_dump_json(indent=1).replace("\n", "\n  ")
        separator = ",\n  "
    yield "[]" if separator == "[\n  " else "\n ]"


def chunked(pieces: Iterable[str]) -> Iterator[str]:
    """`pieces` joined into chunks of about CHUNK_CHARS: one encoding and write a chunk, not a row."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= CHUNK_CHARS:
            yield "".join(held)
            held, size = [], 0
    if held:
        yield "".join(held)


def document(sessions: Callable[[], Session], *, user_id: int, now: datetime) -> Generator[str]:
    """The JSON document a chunk at a time, read in one snapshot by a session of its own. Byte
    for byte what `ExportDoc(...).model_dump_json(indent=1)` of the whole document would be: the
    document with its lists empty is the frame, each `"name": []` in it the place where that list is written out.
    Reads only: its transaction ends, rolled back, when the generator does."""
    with sessions() as session:
        one_snapshot(session)
        lists = _lists(session, user_id)
        frame = ExportDoc(
            exported_at=now,
            settings=preferences.load(session, user_id),
            attempts=[],
            review_states=[],
            review_logs=[],
        ).model_dump_json(indent=1)
        yield from chunked(_framed(frame, lists))


def _framed(frame: str, lists: Iterator[tuple[str, Iterable[BaseModel]]]) -> Iterator[str]:
    # A key is the only place `"name": []` can stand in JSON: in a string its quotes are escaped.
    rest = frame
    for name, docs in lists:
        before, rest = rest.split(f'"{name}": []', 1)
        yield before + f'"{name}": '
        yield from _listed(docs)
    yield rest
