"""Recordings stored the way the web stores a sent one (a queued row and its audio), for the tests
of the workers that transcribe them, and the reads those tests make."""

import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, select

from app.accounts.models import LOCAL_USER_ID
from app.jobs.executors import Context
from app.jobs.queue import JobQueue, speech_lane
from app.settings import Settings
from app.speech.models import Recording, RecordingAudio
from app.speech.transcription import TranscriptionExecutor
from app.storage.database import Database
from tests.helpers.demos import wait_for

# The owner's card: what the recordings answer, and whose terms prime the decoder.
CARD = "tf-data-prefetch-last"


def store_recording(
    db: Database,
    *,
    audio: bytes,
    declared_seconds: float = 20.0,
    kind: str = "basics",
    lane: str | None = None,
) -> str:
    """A queued recording of `audio` (not yet on the queue), as the web commits it."""
    recording_id = uuid.uuid4().hex
    with db.write_sessions() as session:
        session.add(
            Recording(
                id=recording_id,
                user_id=LOCAL_USER_ID,
                card_id=CARD,
                tier="basics",
                kind=kind,
                status="queued",
                lane=lane or speech_lane(False),
                declared_seconds=declared_seconds,
            )
        )
        session.flush()
        session.add(RecordingAudio(recording_id=recording_id, content_type="audio/ogg", data=audio))
        session.commit()
    return recording_id


def send_recording(db: Database, queue: JobQueue, *, audio: bytes, declared_seconds: float = 20.0) -> str:
    """A recording stored and put on the speech lane, as the web's POST does."""
    recording_id = store_recording(db, audio=audio, declared_seconds=declared_seconds)
    queue.enqueue(recording_id, lane=speech_lane(False))
    return recording_id


def recording(db: Database, recording_id: str) -> Recording:
    with db.read_sessions() as session:
        found = session.get(Recording, recording_id)
        assert found is not None
        return found


def wait_recording(
    db: Database, recording_id: str, statuses: tuple[str, ...], timeout: float = 120.0
) -> Recording:
    last: list[Recording] = []

    def check() -> bool:
        last[:] = [recording(db, recording_id)]
        return last[0].status in statuses

    wait_for(check, timeout, 0.2, f"recording {recording_id} to be {' or '.join(statuses)}")
    return last[0]


def audio_rows(db: Database, recording_id: str | None = None) -> int:
    with db.read_sessions() as session:
        query = select(func.count()).select_from(RecordingAudio)
        if recording_id is not None:
            query = query.where(RecordingAudio.recording_id == recording_id)
        return int(session.scalar(query) or 0)


_SEARCH = """
import sys
from pathlib import Path
from typing import Any
pieces = sys.stdin.buffer.read().split(b"\\n--piece--\\n")
for path in Path(sys.argv[1]).rglob("*"):
    if path.is_file() and any(piece in path.read_bytes() for piece in pieces):
        print(path)
"""


def files_holding(folder: Path, data: bytes) -> list[Path]:
    """The files under `folder` that hold any telling piece of `data`: 200-byte runs from its
    middle, short enough to fit in one database page whatever the page breaks.

    Read by another process: closing a file this process opened on the database drops every
    SQLite lock this process holds on it (POSIX locks are per process), and a worker closing its
    last connection would then delete the write-ahead log under this process's connections."""
    middle = len(data) // 2
    pieces = [data[start : start + 200] for start in range(middle - 1000, middle + 1000, 200)]
    found = subprocess.run(
        [sys.executable, "-c", _SEARCH, str(folder)],
        input=b"\n--piece--\n".join(pieces),
        capture_output=True,
        check=True,
        timeout=60,
    )
    return [Path(line) for line in found.stdout.decode().splitlines()]


def stored_sound(settings: Settings, data: bytes) -> list[Path]:
    """The files where the app's database keeps its data that hold any telling piece of `data`
    (`files_holding`): SQLite's data folder, or on PostgreSQL the database's own folder and the
    server's write-ahead log, once a checkpoint has written out what the log holds."""
    if settings.is_sqlite:
        return files_holding(settings.data_dir, data)
    engine = create_engine(settings.database_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("CHECKPOINT")
            folder, oid = connection.exec_driver_sql(
                "SELECT current_setting('data_directory'), oid FROM pg_database WHERE datname = current_database()"
            ).one()
    finally:
        engine.dispose()
    return [
        *files_holding(Path(folder) / "base" / str(oid), data),
        *files_holding(Path(folder) / "pg_wal", data),
    ]


def transcription_executor(
    settings: Settings, db: Database, *, runner: Any, queue: JobQueue | None = None
) -> TranscriptionExecutor:
    """A worker's transcription executor around `runner`, a stand-in for its speech process."""
    return TranscriptionExecutor(
        Context(
            name="host:1",
            settings=settings,
            db=db,
            queue=queue,  # type: ignore[arg-type]
            runner=runner,
            heartbeat=None,  # type: ignore[arg-type]  # a transcription reports no progress
            stopping=threading.Event(),
        )
    )
