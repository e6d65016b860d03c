"""What the speech child process runs: the model loaded once, then one recording at a time
decoded, transcribed primed with its card's terms, and measured.

The worker's runner (app/worker/runner.py) starts this in a process of its own, under the
demo memory limit and a time limit, and kills it when a job goes wrong: a hostile file costs that
child, never the worker. A file decoding refuses is a result (`refused`, the sentence), not an
error. Nothing here imports TensorFlow.
"""

import time
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypedDict

from app.exceptions import Invalid
from app.jobs.child_process import Child, Message, answer, failure
from app.settings import Settings
from app.speech.decode import decode_recording
from app.speech.delivery import measure
from app.speech.recogniser import SpeechModel, load

# The longest model name a recording stores (Recording.model).
MODEL_NAME_CHARS = 120


class Job(TypedDict):
    audio: bytes
    terms: Sequence[str]
    target_seconds: int
    max_seconds: int


def time_limit_seconds(max_seconds: float) -> float:
    """How long a transcription may take before its child is killed: the model's start-up slack
    and twice the longest recording (`max_seconds`), far above the real-time factor measured here."""
    return 30.0 + 2 * max(max_seconds, 0.0)


def transcribe(model: SpeechModel, job: Mapping[str, Any]) -> dict[str, Any]:
    """The result document of one job: the transcript, its words, how it was said and how fast
    the model was, or `refused` with the sentence decoding gave."""
    started = time.perf_counter()
    try:
        recording = decode_recording(job["audio"], max_seconds=int(job["max_seconds"]))
    except Invalid as refused:
        return {"refused": refused.message}
    terms = list(job["terms"])
    transcript = model.transcribe(recording.samples, terms=terms)
    elapsed = time.perf_counter() - started
    delivery = measure(
        transcript.words,
        seconds=recording.seconds,
        terms=terms,
        target_seconds=int(job["target_seconds"]),
        voice=transcript.voice,
        sounds=transcript.sounds,
    )
    return {
        "transcript": transcript.text,
        "words": [
            {"word": word.text.strip(), "start": round(word.start, 2), "end": round(word.end, 2)}
            for word in transcript.words
        ],
        "duration_s": round(recording.seconds, 2),
        "delivery": delivery.to_doc(),
        "model": model.folder.name[:MODEL_NAME_CHARS],
        "real_time_factor": round(elapsed / recording.seconds, 4),
    }


def serve(conn: Connection, *, speech_model: str | None) -> None:
    """The child's loop (protocol in app/worker/runner.py): ready once the model is loaded and
    warmed up, then one ("job", Job) at a time."""
    try:
        model = load(speech_model)
    except Exception as error:
        conn.send(("error", {"kind": "unavailable", "message": str(error)}))
        return

    def run(job: Job) -> Message:
        try:
            return ("result", transcribe(model, job))
        except Exception as error:
            return failure(error)

    answer(conn, ready={"model": model.folder.name, "device": model.device}, run=run)


def _options(settings: Settings) -> dict[str, Any]:
    return {"speech_model": settings.speech_model}


CHILD = Child(
    serve=serve,
    library="faster_whisper",
    missing="faster-whisper is not installed here, so it transcribes no recordings (pip install -e '.[worker]')",
    without="transcribes no recordings",
    noun="the speech process",
    starting="loading the speech model",
    doing="transcribing the recording",
    options=_options,
)
