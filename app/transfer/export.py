"""Exporting a person's attempts, schedule, review log and settings: the audit line each export
leaves, the rows in the order an export lists them, and the JSON document.

An export is written as it is read: rows come from the database a batch at a time (`yield_per`)
and go as text, a chunk at a time, into a file on disk (`spooled`), so a history of any length
costs the server a batch of rows and a chunk of text, not the whole document. All of it is read
in one transaction, one snapshot of the person's data, that ends when the file is written: the
client then reads the file, however slowly, holding no connection and no read transaction (on
SQLite, one would keep the checkpoint that erases deleted recordings' sound waiting).
"""

import tempfile
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO

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
