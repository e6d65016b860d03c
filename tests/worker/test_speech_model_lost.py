"""A speech process that cannot load its model again (after a crash, the model's files changed or
went) makes its worker give the recording back to the queue for another worker, and stop reading
the speech lanes, instead of failing every recording that comes after."""

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.demos.runs import alive_workers
from app.jobs.child_process import ChildUnavailable
from app.jobs.queue import JobQueue, speech_lane, speech_lanes_for
from app.settings import Settings
from app.speech.child import Job
from app.storage.database import Database
from app.worker.capabilities import decide
from app.worker.consumer import Worker
from tests.helpers.demos import demo_settings_for
from tests.helpers.recordings import recording, store_recording, transcription_executor


class ModelGone:
    """A speech runner whose child could not load the model again."""

    def __init__(self) -> None:
        self.calls = 0

    def run(self, job: Job, *, timeout_s: float, should_cancel: Callable[[], bool]) -> dict[str, Any]:
        self.calls += 1
        raise ChildUnavailable("The speech model file model.bin has changed")


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Settings, Database, JobQueue]]:
    settings = demo_settings_for(tmp_path)
    db, queue = Database(settings), JobQueue(settings.queue_url)
    yield settings, db, queue
    queue.close()
    db.dispose()


def test_the_recording_goes_back_to_the_queue_and_later_ones_are_left_to_others(
    setup: tuple[Settings, Database, JobQueue], caplog: pytest.LogCaptureFixture
) -> None:
    settings, db, queue = setup
    runner = ModelGone()
    executor = transcription_executor(settings, db, runner=runner, queue=queue)
    lane = speech_lane(False)
    first, second = store_recording(db, audio=b"OggS"), store_recording(db, audio=b"OggS")
    with caplog.at_level(logging.WARNING, logger="tiercards.worker"):
        executor.execute(first, lane)
        executor.execute(second, lane)
    for recording_id in (first, second):
        back = recording(db, recording_id)
        assert (back.status, back.tries, back.worker, back.error) == ("queued", 0, None, None)
    assert queue.run_ids("speech") == {first, second}
    assert runner.calls == 1
    assert executor.lost
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "model.bin" in warnings[0].getMessage()


def test_a_worker_whose_model_is_lost_reads_only_its_demo_lanes(
    setup: tuple[Settings, Database, JobQueue],
) -> None:
    settings, _, _ = setup
    worker = Worker(settings)
    try:
        assert "speech" in worker.executors  # faster-whisper is installed here
        # As once its model loaded at start, on a GPU worker.
        worker.heartbeat.capabilities = decide(True, None)
        worker.reading.add("speech")
        worker.heartbeat.beat()
        assert set(speech_lanes_for(True)) <= set(worker.lanes)
        worker.executors["speech"].lost = "The speech model file model.bin has changed"
        assert worker.drop_lost()
        assert "speech" not in worker.executors and "speech" not in worker.runners
        assert worker.lanes == worker.heartbeat.capabilities.lanes
        # The web no longer sends recordings its way.
        with worker.db.read_sessions() as session:
            (beat,) = alive_workers(session, timeout_seconds=60)
        assert not set(beat.capabilities) & set(speech_lanes_for(True))
    finally:
        worker.queue.close()
        worker.db.dispose()
