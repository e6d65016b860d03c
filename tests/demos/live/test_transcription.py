"""Recordings transcribed by real `tiercards worker` processes: the transcript stored and the audio
gone from the database and the data folder (or kept with KEEP_RECORDINGS), hostile files each
failing with a sentence while the worker goes on, and a worker or its speech process killed
mid-transcription: retried once, then failed with a sentence and no audio left."""

import io
import os
import signal
import time
import wave
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.content.parser import parse_card
from app.factory import create_app
from app.jobs.queue import JobQueue
from app.settings import Settings
from app.speech.accuracy import word_error_rate
from app.speech.recordings import STOPPED_TWICE
from app.storage.database import Database
from tests.helpers.clients import csrf_client
from tests.helpers.demos import SMALL, WorkerProcess, submit, wait_status
from tests.helpers.recordings import (
    CARD,
    audio_rows,
    files_holding,
    recording,
    send_recording,
    wait_recording,
)
from tests.speech.clips import WER_BOUND, encode, sentences, silence, speak, wav_seconds

pytestmark = pytest.mark.load

SENTENCE = "The prefetch transformation overlaps the producer with the consumer."


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clips")


@pytest.fixture(scope="module")
def short_clip(clips: Path) -> bytes:
    return encode(speak(SENTENCE, voice="rms", folder=clips), container="ogg")


@pytest.fixture(scope="module")
def long_clip(clips: Path) -> tuple[bytes, float]:
    """About 100 s of the owner's card read aloud: long enough to kill its worker mid-way."""
    from app import PROJECT_ROOT

    said = sentences(parse_card(PROJECT_ROOT / "content" / f"{CARD}.md"))
    text = " ".join(said * (1 + 900 // len(" ".join(said).split())))
    wav = speak(" ".join(text.split()[:270]), voice="slt", folder=clips)
    return encode(wav, container="ogg"), wav_seconds(wav)


@pytest.fixture
def settings(demo_settings: Settings) -> Settings:
    return demo_settings


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings)
    yield database
    database.dispose()


@pytest.fixture
def queue(settings: Settings) -> Iterator[JobQueue]:
    jobs = JobQueue(settings.queue_url)
    yield jobs
    jobs.close()


def speech_child(worker: WorkerProcess) -> int:
    """The worker's speech process: the child with CTranslate2 loaded."""

    def find() -> int | None:
        for child in psutil.Process(worker.pid).children():
            if any("ctranslate2" in mapping.path for mapping in child.memory_maps()):
                return child.pid
        return None

    deadline = time.monotonic() + 60
    while (pid := find()) is None:
        assert time.monotonic() < deadline, "the worker has no speech process"
        time.sleep(0.2)
    return pid


def zero_seconds() -> bytes:
    empty = io.BytesIO()
    with wave.open(empty, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(16000)
    return empty.getvalue()


def test_a_recording_is_transcribed_by_a_worker_and_its_audio_deleted(
    worker: WorkerProcess, db: Database, queue: JobQueue, settings: Settings, short_clip: bytes
) -> None:
    worker.ensure_running()
    recording_id = send_recording(db, queue, audio=short_clip, declared_seconds=5)
    done = wait_recording(db, recording_id, ("done", "failed"))
    assert done.status == "done", done.error
    assert done.transcript is not None and word_error_rate(SENTENCE, done.transcript) <= WER_BOUND
    assert done.words and {"word", "start", "end"} == set(done.words[0])
    assert done.delivery is not None and done.delivery["target_seconds"] == 20
    assert "prefetch" in done.delivery["terms_used"]
    assert done.duration_s and done.real_time_factor and done.model and done.finished_at
    assert (done.tries, done.worker, done.keep_audio_until) == (1, worker.name, None)
    assert audio_rows(db) == 0
    assert files_holding(settings.data_dir, short_clip) == []


def test_hostile_files_each_fail_with_a_sentence_and_the_worker_goes_on(
    worker: WorkerProcess, db: Database, queue: JobQueue, short_clip: bytes
) -> None:
    worker.ensure_running()
    pid = worker.pid
    hostile = {
        "truncated": (short_clip[: len(short_clip) * 2 // 3], "cut short"),
        "wrong type": (b"%PDF-1.7\n" + b"0" * 4000, "could not be read as audio"),
        "0 s": (zero_seconds(), "0 s long"),
        "3 hours": (silence(3 * 3600, container="ogg", codec="libopus", rate=48000), "longer than 180 s"),
        "bomb": (
            silence(3 * 3600, container="webm", codec="libopus", rate=48000, options={"live": "1"}),
            "longer than 180 s",
        ),
    }
    sent = {name: send_recording(db, queue, audio=audio) for name, (audio, _) in hostile.items()}
    good = send_recording(db, queue, audio=short_clip, declared_seconds=5)
    for name, recording_id in sent.items():
        failed = wait_recording(db, recording_id, ("done", "failed"))
        assert failed.status == "failed", name
        assert failed.error is not None and hostile[name][1] in failed.error, (name, failed.error)
    assert wait_recording(db, good, ("done", "failed")).status == "done"
    assert worker.alive() and worker.pid == pid
    assert audio_rows(db) == 0


def test_a_worker_killed_mid_transcription_has_it_retried_by_the_next_one(
    worker: WorkerProcess, db: Database, queue: JobQueue, long_clip: tuple[bytes, float]
) -> None:
    worker.ensure_running()
    audio, seconds = long_clip
    recording_id = send_recording(db, queue, audio=audio, declared_seconds=seconds)
    first = wait_recording(db, recording_id, ("running",))
    time.sleep(2)
    worker.process.kill()  # type: ignore[union-attr]
    worker.process.wait()  # type: ignore[union-attr]
    worker.start()
    done = wait_recording(db, recording_id, ("done", "failed"), timeout=240)
    assert (done.status, done.tries) == ("done", 2), done.error
    assert done.worker == worker.name != first.worker
    assert audio_rows(db, recording_id) == 0


def test_a_second_death_fails_it_with_a_sentence_and_no_audio(
    worker: WorkerProcess, db: Database, queue: JobQueue, long_clip: tuple[bytes, float]
) -> None:
    audio, seconds = long_clip
    worker.ensure_running()
    recording_id = send_recording(db, queue, audio=audio, declared_seconds=seconds)
    for tries in (1, 2):
        taken = wait_recording(db, recording_id, ("running",))
        assert taken.tries == tries
        time.sleep(2)
        worker.process.kill()  # type: ignore[union-attr]
        worker.process.wait()  # type: ignore[union-attr]
        worker.start()
    failed = wait_recording(db, recording_id, ("done", "failed"))
    assert (failed.status, failed.error) == ("failed", STOPPED_TWICE)
    assert audio_rows(db, recording_id) == 0


def test_a_killed_speech_process_is_retried_and_the_worker_lives(
    worker: WorkerProcess, db: Database, queue: JobQueue, long_clip: tuple[bytes, float]
) -> None:
    worker.ensure_running()
    pid = worker.pid
    audio, seconds = long_clip
    recording_id = send_recording(db, queue, audio=audio, declared_seconds=seconds)
    wait_recording(db, recording_id, ("running",))
    time.sleep(2)
    os.kill(speech_child(worker), signal.SIGKILL)
    done = wait_recording(db, recording_id, ("done", "failed"), timeout=240)
    assert (done.status, done.tries) == ("done", 2), done.error
    assert worker.alive() and worker.pid == pid
    assert "the speech process died while transcribing" in worker.log_text()


def test_with_keep_recordings_the_audio_stays_until_its_day(
    settings: Settings, worker: WorkerProcess, short_clip: bytes
) -> None:
    worker.close()  # one worker at a time on this queue: the next one keeps recordings
    keeping = settings.model_copy(update={"keep_recordings": True, "recording_retention_days": 3})
    kept_worker = WorkerProcess(keeping, keeping.data_dir / "keeping-worker.log")
    database, jobs = Database(keeping), JobQueue(keeping.queue_url)
    try:
        kept_worker.start()
        recording_id = send_recording(database, jobs, audio=short_clip, declared_seconds=5)
        done = wait_recording(database, recording_id, ("done", "failed"))
        assert done.status == "done" and done.keep_audio_until is not None
        assert done.finished_at is not None
        assert (done.keep_audio_until - done.finished_at).days == 3
        assert audio_rows(database, recording_id) == 1
        if keeping.is_sqlite:  # the database is in the data folder: what the other tests look for is findable
            assert files_holding(keeping.data_dir, short_clip) != []
    finally:
        kept_worker.close()
        jobs.close()
        database.dispose()
        worker.ensure_running()


def test_a_worker_whose_speech_model_does_not_load_still_runs_demos(
    settings: Settings, worker: WorkerProcess, short_clip: bytes, tmp_path: Path
) -> None:
    worker.close()  # one worker at a time on this queue: the next one cannot transcribe
    broken = settings.model_copy(update={"speech_model": str(tmp_path / "no-such-model")})
    deaf = WorkerProcess(broken, tmp_path / "deaf-worker.log")
    database, jobs = Database(broken), JobQueue(broken.queue_url)
    try:
        deaf.start()
        recording_id = send_recording(database, jobs, audio=short_clip, declared_seconds=5)
        with csrf_client(create_app(broken)) as client:
            run_id = submit(client, params=SMALL)
            assert wait_status(client, run_id, ("done", "failed"))["status"] == "done"
        assert recording(database, recording_id).status == "queued"  # left for a worker that can
        warnings = [line for line in deaf.log_text().splitlines() if "transcribes no recordings" in line]
        assert len(warnings) == 1 and "no-such-model" in warnings[0]
    finally:
        deaf.close()
        jobs.close()
        database.dispose()
        worker.ensure_running()
