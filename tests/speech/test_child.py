"""The speech child process: the model loaded once and reused, a refused file a result with its
sentence (the child lives on), a kill or a time limit a crash after which a fresh child
transcribes, and neither the speech child nor the TensorFlow child loads the other's library."""

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from app.demos import child as demos_child
from app.jobs.child_process import ChildCrashed, ChildTimedOut
from app.speech.accuracy import word_error_rate
from app.speech.child import CHILD, Job
from app.worker.runner import ChildRunner
from tests.speech.clips import WER_BOUND, encode, speak

# A time limit no busy machine reaches (a fresh process loads the model within it): these tests are
# about what comes back, and bench/speech_rtf.py says how fast.
NO_LIMIT_S = 600

pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]

# The stored shape of how an answer was said (Recording.delivery), which the pages and the API read.
DELIVERY_FIELDS = {
    "seconds",
    "target_seconds",
    "words",
    "words_per_minute",
    "pace",
    "pace_band",
    "pauses",
    "fillers",
    "filler_count",
    "most_used",
    "terms_used",
    "terms_missed",
    "hedges",
    "hedges_per_minute",
    "unclear_sounds",
}
SENTENCE = "The prefetch transformation overlaps the producer with the consumer."


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return speak(SENTENCE, voice="rms", folder=tmp_path_factory.mktemp("clips"))


@pytest.fixture(scope="module")
def runner() -> Iterator[ChildRunner]:
    with ChildRunner(CHILD, 3072, options={"speech_model": None}) as started:
        started.warm()
        yield started


def job(audio: bytes) -> Job:
    return Job(audio=audio, terms=("prefetch", "tf.data"), target_seconds=20, max_seconds=180)


def loaded(pid: int, library: str) -> bool:
    return any(library in mapping.path for mapping in psutil.Process(pid).memory_maps())


def test_a_recording_is_transcribed_and_measured_in_the_child(runner: ChildRunner, clip: Path) -> None:
    result = runner.run(job(encode(clip, container="ogg")), timeout_s=NO_LIMIT_S)
    assert word_error_rate(SENTENCE, result["transcript"]) <= WER_BOUND, result["transcript"]
    assert [word["word"] for word in result["words"]][:2] == ["The", "prefetch"]
    assert all(word["word"] == word["word"].strip() for word in result["words"])
    assert set(result["delivery"]) == DELIVERY_FIELDS
    assert "prefetch" in result["delivery"]["terms_used"]
    assert result["duration_s"] == pytest.approx(result["delivery"]["seconds"])
    # Measured and reported; how it compares with real time is bench/speech_rtf.py's figure.
    assert result["real_time_factor"] > 0
    assert result["model"].startswith("Whisper tiny.en")


def test_a_refused_file_is_a_result_with_its_sentence_and_the_child_lives(
    runner: ChildRunner, clip: Path
) -> None:
    pid = runner.ping()
    refused = runner.run(job(b"%PDF-1.7\n" + b"0" * 4000), timeout_s=NO_LIMIT_S)
    assert "could not be read as audio" in refused["refused"]
    assert runner.ping() == pid


def test_a_killed_child_is_a_crash_and_a_fresh_one_transcribes(runner: ChildRunner, clip: Path) -> None:
    os.kill(runner.ping(), signal.SIGKILL)
    with pytest.raises(ChildCrashed, match="the speech process died"):
        runner.run(job(clip.read_bytes()), timeout_s=NO_LIMIT_S)
    assert "transcript" in runner.run(job(clip.read_bytes()), timeout_s=NO_LIMIT_S)


def test_a_transcription_past_its_time_limit_is_stopped(runner: ChildRunner, clip: Path) -> None:
    pid = runner.ping()
    with pytest.raises(ChildTimedOut, match="transcribing the recording"):
        runner.run(job(clip.read_bytes()), timeout_s=0.01)
    assert runner.ping() != pid


def test_the_speech_child_loads_no_tensorflow_and_the_demo_child_no_ctranslate2(runner: ChildRunner) -> None:
    speech = runner.ping()
    assert loaded(speech, "ctranslate2") and not loaded(speech, "tensorflow")
    with ChildRunner(demos_child.CHILD) as demos:
        tensorflow = demos.ping()
        assert loaded(tensorflow, "tensorflow") and not loaded(tensorflow, "ctranslate2")
