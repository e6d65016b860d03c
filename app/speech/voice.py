"""The interviewer's voice: a question's words as a person would say them, and the child process
that says them with flite (Debian's `flite` package), one question at a time, on a worker.

Chosen over espeak-ng, the other synthesiser Debian packages, by how well it is understood: the
app's own recogniser hears the deck's questions said by flite's slt voice with a word error of
0.16 (rms 0.17, awb 0.17), by espeak-ng's en-us 0.36 (`bench/question_voice.py --voices`, 23
questions). espeak-ng is faster (0.08 s against 0.3 s a question), and both are far inside a
second. Nothing
leaves the deployment: the audio is made on a worker and kept in the database, once per text and
voice (app/speech/voicing.py).
"""

import re
import shutil
import subprocess
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TypedDict

from app.jobs.child_process import Child, Message, answer, failure
from app.voices import VOICES

# The longest question said aloud: a card's title or follow-up, or a point put in other words.
MAX_CHARS = 600

_CODE = re.compile(r"`([^`]+)`")
# A dotted name is said by its last part, as an interviewer says "prefetch" for
# `tf.data.Dataset.prefetch`; an all-capitals one as a word ("autotune"), not letter by letter.
_DOTTED = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+([A-Za-z_][A-Za-z0-9_]*)")
_CAPITALS = re.compile(r"\b[A-Z][A-Z0-9_]{3,}\b")
_SPOKEN_MARKS = {"_": " ", "=": " equals ", "->": " to "}
_MARKS = re.compile("|".join(re.escape(mark) for mark in sorted(_SPOKEN_MARKS, key=len, reverse=True)))
_LEFT_OUT = re.compile(r"[()\[\]{}*#<>|\\^~/]+")


def _code_said(code: str) -> str:
    """A code span as a person reads it out: `tf.data.Dataset.prefetch(tf.data.AUTOTUNE)` is
    "prefetch autotune", `num_parallel_calls=8` is "num parallel calls equals 8"; brackets are
    not said."""
    words = _DOTTED.sub(lambda name: name.group(1), code)
    words = _CAPITALS.sub(lambda name: name.group(0).lower(), words)
    words = _MARKS.sub(lambda mark: _SPOKEN_MARKS[mark.group(0)], words)
    return " ".join(_LEFT_OUT.sub(" ", words).split())


def said(markdown: str) -> str:
    """The words a question is said in: its code spans read out, its other marks left unsaid."""
    text = _CODE.sub(lambda span: _code_said(span.group(1)), markdown)
    text = re.sub(r"[*_]{1,3}([^*_]+)[*_]{1,3}", r"\1", text)  # emphasis
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link says its words
    return " ".join(_LEFT_OUT.sub(" ", text).split())[:MAX_CHARS]


class Job(TypedDict):
    text: str
    voice: str


# flite says a 600-character question in well under a second here; a stuck one is killed.
TIME_LIMIT_S = 20.0


def speak(job: Job) -> dict[str, Any]:
    """The question said by flite: a 16 kHz mono WAV file's bytes."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tiercards-voice-") as folder:
        out = Path(folder) / "question.wav"
        subprocess.run(
            ["flite", "-voice", VOICES[job["voice"]].name, "-t", job["text"], "-o", str(out)],
            check=True,
            capture_output=True,
            timeout=TIME_LIMIT_S,
        )
        audio = out.read_bytes()
    return {"audio": audio, "seconds": round(time.perf_counter() - started, 3)}


def serve(conn: Connection) -> None:
    """The child's loop (protocol in app/worker/runner.py): ready once flite is found, then one
    ("job", Job) at a time. Without flite it says so and ends: the worker then reads no voice
    lanes, and the page shows the question's text alone."""
    if shutil.which("flite") is None:
        conn.send(("error", {"kind": "unavailable", "message": "flite is not installed here"}))
        return

    def run(job: Job) -> Message:
        try:
            return ("result", speak(job))
        except Exception as error:
            return failure(error)

    answer(conn, ready={"voice": "flite"}, run=run)


CHILD = Child(
    serve=serve,
    library="app.speech.voice",
    missing="flite is not installed here, so it reads no question aloud",
    without="reads no question aloud",
    noun="the voice process",
    starting="finding flite",
    doing="saying the question",
)
