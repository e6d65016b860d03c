"""Recorded answers: what was sent, where its transcription is, and what it found."""

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.storage.base import ERASED, Base, utcnow

STATUSES = ("queued", "running", "done", "failed")


class Recording(Base):
    """One answer a person recorded and sent: queued for a worker, transcribed, or failed.

    The sound itself is a `RecordingAudio` row, deleted once transcribed (unless KEEP_RECORDINGS);
    this row keeps the transcript, its word timings and the delivery figures.
    """

    __tablename__ = "recordings"
    __table_args__ = (
        Index("ix_recordings_user_created", "user_id", "created_at"),
        Index("ix_recordings_status_created", "status", "created_at"),
        # The newest transcribed ones, for /metrics.
        Index("ix_recordings_status_finished", "status", "finished_at"),
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status_known"),
    )

    # uuid4 hex: the recording_id in URLs and the API.
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(120))
    tier: Mapped[str] = mapped_column(String(16))
    # basics, solid or follow-up: what the answer was to, as for an attempt.
    kind: Mapped[str] = mapped_column(String(16))
    follow_up: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    # The queue lane it was put on (app/jobs/queue.py).
    lane: Mapped[str] = mapped_column(String(16))
    # How long the browser's clock says it is: checked against MAX_RECORDING_SECONDS before it
    # is queued; the worker measures the real length by decoding.
    declared_seconds: Mapped[float]
    duration_s: Mapped[float | None]
    transcript: Mapped[str | None] = mapped_column(Text)
    # [{"word", "start", "end"}], seconds from the start.
    words: Mapped[list[Any] | None]
    # What app/speech/delivery.py measured: pace, pauses, fillers, most-used words, terms said.
    delivery: Mapped[dict[str, Any] | None]
    # The sentence a failed transcription is shown with.
    error: Mapped[str | None] = mapped_column(Text)
    # Times a worker took it: one that died mid-transcription gets it retried once.
    tries: Mapped[int] = mapped_column(default=0)
    worker: Mapped[str | None] = mapped_column(String(255))
    # The model that transcribed it, and how long that took against the sound's length.
    model: Mapped[str | None] = mapped_column(String(120))
    real_time_factor: Mapped[float | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # With KEEP_RECORDINGS, when its audio is deleted; None while there is no audio to keep.
    keep_audio_until: Mapped[datetime | None]


class RecordingAudio(Base):
    """The sound of a recording, as sent: kept only until it is transcribed, or for
    RECORDING_RETENTION_DAYS with KEEP_RECORDINGS. In the database, so a worker on another host
    reads it, and deleting it leaves no file behind."""

    __tablename__ = "recording_audio"
    # Unlogged on PostgreSQL (migration 0029) and rewritten after deletions.
    __table_args__ = {"info": {ERASED: True}}

    recording_id: Mapped[str] = mapped_column(
        ForeignKey("recordings.id", ondelete="CASCADE"), primary_key=True
    )
    # The type the browser named; the worker trusts only what decoding finds.
    content_type: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)


class QuestionVoice(Base):
    """A question said aloud by the interviewer's voice, once per text and voice: asked by the web
    (`queued`), said by a worker (`done`, with the sound) or not (`failed`). In the database, so
    every web replica serves what any worker said. Its id is the hash of what it says."""

    __tablename__ = "question_voices"
    __table_args__ = (CheckConstraint("status IN ('queued', 'done', 'failed')", name="status_known"),)

    # sha256 hex of the voice and the words (app/speech/voicing.py `key`).
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    voice: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    audio: Mapped[bytes | None] = mapped_column(LargeBinary)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
