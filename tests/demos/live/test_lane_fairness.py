"""A worker takes the kinds of job in turn: recordings kept coming, as one person flooding them
would, hold another's demo back by one transcription at most, not until the flood stops."""

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update

from app.jobs.queue import JobQueue
from app.settings import Settings
from app.speech.models import Recording, RecordingAudio
from app.storage.database import Database
from tests.helpers.demos import SMALL, WorkerProcess, submit, wait_status
from tests.helpers.recordings import recording, send_recording, wait_recording
from tests.speech.clips import encode, speak

pytestmark = pytest.mark.load

# Recordings kept waiting at every moment: when the worker finishes one, others are always there.
IN_FLIGHT = 3
# The bound for a demo behind a flood; one short transcription takes a few seconds here.
START_WITHIN_S = 60.0


@pytest.fixture
def flood(demo_settings: Settings, worker: WorkerProcess, tmp_path: Path) -> Iterator[list[str]]:
    """Recordings sent without pause, IN_FLIGHT of them queued or being transcribed at all times,
    until the test ends; yields the ids sent so far."""
    worker.ensure_running()
    audio = encode(speak("The prefetch buffer holds batches.", voice="kal", folder=tmp_path), container="ogg")
    db, queue = Database(demo_settings), JobQueue(demo_settings.queue_url)
    sent: list[str] = []
    stop = threading.Event()

    def keep_sending() -> None:
        while not stop.is_set():
            waiting = [
                rid for rid in sent[-IN_FLIGHT * 2 :] if recording(db, rid).status in ("queued", "running")
            ]
            for _ in range(IN_FLIGHT - len(waiting)):
                sent.append(send_recording(db, queue, audio=audio, declared_seconds=3))
            time.sleep(0.05)

    sender = threading.Thread(target=keep_sending, daemon=True)
    sender.start()
    # The flood is under way: the worker has taken recordings and more are waiting behind them.
    deadline = time.monotonic() + 60
    while not any(recording(db, rid).status == "done" for rid in list(sent)):
        assert time.monotonic() < deadline, "no recording was transcribed"
        time.sleep(0.1)
    yield sent
    stop.set()
    sender.join(timeout=10)
    # The other tests of this worker count recordings and audio: leave none behind, and none
    # waiting for it (it skips a recording no longer queued).
    with db.write_sessions() as session:
        waiting = select(Recording.id).where(Recording.id.in_(sent), Recording.status == "queued")
        session.execute(delete(RecordingAudio).where(RecordingAudio.recording_id.in_(waiting)))
        session.execute(
            update(Recording)
            .where(Recording.id.in_(sent), Recording.status == "queued")
            .values(status="failed")
        )
        session.commit()
    for rid in sent:
        wait_recording(db, rid, ("done", "failed"))
    queue.close()
    db.dispose()


def test_a_demo_starts_within_a_minute_while_recordings_keep_coming(
    demo_client: TestClient, flood: list[str]
) -> None:
    run_id = submit(demo_client, params=SMALL)
    queued_at = time.monotonic()
    wait_status(demo_client, run_id, ("running", "done"), timeout=START_WITHIN_S)
    started_after = time.monotonic() - queued_at
    # And the recordings went on being transcribed around it.
    assert len(flood) > IN_FLIGHT, f"only {len(flood)} recordings were sent"
    assert started_after < START_WITHIN_S
