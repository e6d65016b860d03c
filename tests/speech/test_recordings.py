"""The workers' rules for recordings, on a real database: a recording is claimed once, its audio
goes when it ends (or is kept with KEEP_RECORDINGS), and one left behind by a dead worker is retried
once, then fails with a sentence and no audio."""

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from app.demos import claims
from app.jobs.queue import JobQueue
from app.practice.models import Attempt
from app.speech import recordings
from app.speech.models import Recording
from app.storage.base import utcnow
from app.storage.database import Database
from tests.factories import make_attempt
from tests.helpers.demos import beat_row, demo_settings_for
from tests.helpers.recordings import audio_rows, recording, store_recording

AUDIO = b"OggS" + bytes(range(256)) * 8
RESULT = {
    "transcript": "Prefetch goes last.",
    "words": [{"word": "Prefetch", "start": 0.0, "end": 0.4}],
    "duration_s": 1.5,
    "delivery": {"words": 3},
    "model": "tiny.en",
    "real_time_factor": 0.1,
}


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Database, JobQueue]]:
    settings = demo_settings_for(tmp_path)
    db, queue = Database(settings), JobQueue(settings.queue_url)
    yield db, queue
    queue.close()
    db.dispose()


@pytest.fixture
def taken(setup: tuple[Database, JobQueue]) -> tuple[Database, str]:
    """A recording claimed by worker host:1."""
    db, _ = setup
    recording_id = store_recording(db, audio=AUDIO)
    claim(db, recording_id, "host:1")
    return db, recording_id


def claim(db: Database, recording_id: str, worker: str) -> recordings.Claimed | None:
    with db.write_sessions() as session:
        return recordings.claim(session, recording_id=recording_id, worker=worker)


def left_behind(db: Database, **judge: object) -> list[recordings.Requeue]:
    with db.write_sessions() as session:
        again = recordings.retry_left_behind(session, gpu_alive=False, **judge)  # type: ignore[arg-type]
        session.commit()
    return again


def test_a_recording_is_claimed_by_one_worker_with_its_audio(setup: tuple[Database, JobQueue]) -> None:
    db, _ = setup
    recording_id = store_recording(db, audio=AUDIO, declared_seconds=12.0)
    claimed = claim(db, recording_id, "host:1")
    assert claimed is not None and claimed.audio == AUDIO
    assert claim(db, recording_id, "host:2") is None
    stored = recording(db, recording_id)
    assert (stored.status, stored.worker, stored.tries) == ("running", "host:1", 1)
    assert stored.started_at is not None


def test_a_transcript_stored_deletes_the_audio(taken: tuple[Database, str]) -> None:
    db, recording_id = taken
    with db.write_sessions() as session:
        recordings.store_transcript(
            session, recording_id=recording_id, worker="host:1", result=RESULT, keep_days=None
        )
    stored = recording(db, recording_id)
    assert (stored.status, stored.transcript, stored.duration_s) == ("done", "Prefetch goes last.", 1.5)
    assert stored.finished_at is not None and stored.keep_audio_until is None
    assert audio_rows(db, recording_id) == 0


def test_with_keep_recordings_the_audio_is_kept_its_days_then_deleted(taken: tuple[Database, str]) -> None:
    db, recording_id = taken
    with db.write_sessions() as session:
        recordings.store_transcript(
            session, recording_id=recording_id, worker="host:1", result=RESULT, keep_days=7
        )
    kept = recording(db, recording_id)
    assert kept.keep_audio_until is not None
    assert kept.keep_audio_until - utcnow() == pytest.approx(timedelta(days=7), abs=timedelta(minutes=1))
    with db.write_sessions() as session:
        assert recordings.delete_kept_audio(session, keeping=True) == 0
        session.commit()
    assert audio_rows(db, recording_id) == 1
    with db.write_sessions() as session:
        session.execute(
            update(Recording)
            .values(keep_audio_until=utcnow() - timedelta(seconds=1))
            .where(Recording.id == recording_id)
        )
        assert recordings.delete_kept_audio(session, keeping=True) == 1
        session.commit()
    assert audio_rows(db, recording_id) == 0 and recording(db, recording_id).keep_audio_until is None


def test_with_keep_recordings_off_kept_audio_goes_and_audio_waiting_to_be_transcribed_stays(
    taken: tuple[Database, str],
) -> None:
    db, kept_id = taken
    with db.write_sessions() as session:
        recordings.store_transcript(
            session, recording_id=kept_id, worker="host:1", result=RESULT, keep_days=7
        )
    waiting_id = store_recording(db, audio=AUDIO)
    with db.write_sessions() as session:
        assert recordings.delete_kept_audio(session, keeping=False) == 1
        session.commit()
    assert audio_rows(db, kept_id) == 0 and recording(db, kept_id).keep_audio_until is None
    assert audio_rows(db, waiting_id) == 1


def test_a_failure_is_stored_with_its_sentence_and_no_audio(taken: tuple[Database, str]) -> None:
    db, recording_id = taken
    with db.write_sessions() as session:
        recordings.store_failure(
            session, recording_id=recording_id, worker="host:1", error="The recording is empty."
        )
    stored = recording(db, recording_id)
    assert (stored.status, stored.error) == ("failed", "The recording is empty.")
    assert audio_rows(db, recording_id) == 0


def test_a_recording_left_by_a_dead_worker_is_retried_once_then_fails(taken: tuple[Database, str]) -> None:
    db, recording_id = taken
    assert left_behind(db, alive={"host:1"}) == []
    assert left_behind(db, alive=set()) == [(recording_id, "speech")]
    again = recording(db, recording_id)
    assert (again.status, again.worker, again.tries) == ("queued", None, 1)
    claim(db, recording_id, "host:2")
    assert left_behind(db, alive=set()) == []
    failed = recording(db, recording_id)
    assert (failed.status, failed.error, failed.tries) == ("failed", recordings.STOPPED_TWICE, 2)
    assert audio_rows(db, recording_id) == 0


def test_a_worker_gone_from_this_host_is_dead_before_its_row_goes_stale(taken: tuple[Database, str]) -> None:
    db, recording_id = taken
    judge = {"alive": {"host:1"}, "host": "host"}
    assert left_behind(db, **judge, pid_alive=lambda pid: True) == []
    assert left_behind(db, **judge, pid_alive=lambda pid: pid != 1) == [(recording_id, "speech")]


def test_the_upkeep_retries_what_a_stale_worker_left_and_queues_it_again(
    setup: tuple[Database, JobQueue], taken: tuple[Database, str]
) -> None:
    (db, queue), (_, recording_id) = setup, taken
    beat_row(db, "host:1", ["cpu"])
    upkeep = {
        "queue": queue,
        "retention_days": 30,
        "recording_retention_days": 7,
        "session_idle": timedelta(hours=1),
        "audit_retention_days": 365,
    }
    assert claims.upkeep(db, timeout_seconds=60, **upkeep)["recordings requeued"] == 0  # type: ignore[arg-type]
    assert recording(db, recording_id).status == "running"
    assert claims.upkeep(db, timeout_seconds=0.001, **upkeep)["recordings requeued"] == 1  # type: ignore[arg-type]
    assert recording(db, recording_id).status == "queued"
    assert queue.run_ids("speech") == {recording_id}


@pytest.mark.parametrize(
    ("capabilities", "lane"),
    [(["gpu", "cpu", "speech-gpu", "speech"], "speech-gpu"), (["gpu", "cpu"], "speech")],
    ids=["transcribes", "model-not-loaded"],
)
def test_a_recording_waits_on_the_gpu_lane_only_while_a_live_worker_reads_it(
    setup: tuple[Database, JobQueue], capabilities: list[str], lane: str
) -> None:
    db, _ = setup
    recording_id = store_recording(db, audio=AUDIO, lane="speech-gpu")
    beat_row(db, "gpuhost:1", capabilities, "GPU:0")
    with db.write_sessions() as session:
        claims.retry_recordings(session, timeout_seconds=30)
        session.commit()
    assert recording(db, recording_id).lane == lane


def test_without_a_gpu_worker_a_recording_moves_off_the_gpu_lane(setup: tuple[Database, JobQueue]) -> None:
    db, _ = setup
    recording_id = store_recording(db, audio=AUDIO, lane="speech-gpu")
    with db.write_sessions() as session:
        moved = claims.retry_recordings(session, timeout_seconds=30)
        session.commit()
    assert moved == [(recording_id, "speech")]
    assert recording(db, recording_id).lane == "speech"


def test_a_queued_recording_missing_from_the_queue_is_found(setup: tuple[Database, JobQueue]) -> None:
    db, queue = setup
    recording_id = store_recording(db, audio=AUDIO)
    with db.read_sessions() as session:
        assert recordings.lost(session, queue=queue) == []  # just sent: its job may be on its way
        assert recordings.lost(session, queue=queue, grace_seconds=-1) == [(recording_id, "speech")]
    recordings.enqueue_all(queue, [(recording_id, "speech")])
    with db.read_sessions() as session:
        assert recordings.lost(session, queue=queue, grace_seconds=-1) == []


def test_recordings_finished_past_their_retention_are_deleted_and_their_answers_stay(
    setup: tuple[Database, JobQueue],
) -> None:
    db, queue = setup
    days = 7
    ages = {
        "old-done": ("done", 8),
        "old-failed": ("failed", 8),
        "recent": ("done", 6),
        "waiting": ("queued", 30),
    }
    ids = {name: store_recording(db, audio=AUDIO) for name in ages}
    with db.write_sessions() as session:
        for name, (status, age) in ages.items():
            session.execute(
                update(Recording)
                .where(Recording.id == ids[name])
                .values(
                    status=status,
                    finished_at=utcnow() - timedelta(days=age),
                    transcript="Prefetch goes last.",
                )
            )
        answer = make_attempt(
            text="Prefetch goes last.", recording_id=ids["old-done"], words_per_minute=150.0
        )
        session.add(answer)
        session.commit()
        answer_id = answer.id
    done = claims.upkeep(
        db,
        queue=queue,
        timeout_seconds=60,
        retention_days=30,
        recording_retention_days=days,
        session_idle=timedelta(hours=1),
        audit_retention_days=365,
    )
    assert done["recordings deleted"] == 2
    with db.read_sessions() as session:
        left = set(session.scalars(select(Recording.id)))
        kept = session.get(Attempt, answer_id)
    assert left == {ids["recent"], ids["waiting"]}
    assert kept is not None and kept.recording_id is None
    assert (kept.text, kept.words_per_minute) == ("Prefetch goes last.", 150.0)
    assert audio_rows(db) == 2
