"""Recorded answers on the web's side: what an upload must be before it is stored and queued,
who may read a recording, and which recording an attempt may be saved from.

Every refusal is raised before anything is written (too large, not audio, fields that do not fit
the card, too many in flight); an accepted recording and its audio are committed, then its id goes
on a speech lane. The worker (app/speech/recordings.py) does the rest.
"""

import logging
import uuid
from dataclasses import dataclass

from pydantic import ValidationError
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.accounts.service import lock_person
from app.content.cards import Card
from app.exceptions import Invalid, NotFound, NotThisFormat, TooLarge, TooMany, Unavailable, field_messages
from app.jobs.beats import live_capabilities
from app.jobs.queue import JobQueue, speech_lane_now
from app.settings import Settings
from app.speech.limits import LENGTH_SLACK_SECONDS, wav_format_refusal
from app.speech.models import Recording, RecordingAudio
from app.speech.schemas import RecordingIn, RecordingOut, delivery_fields
from app.storage.base import utcnow
from app.storage.database import erase_deleted

log = logging.getLogger("tiercards.speech")

# Recordings one person may have waiting or being transcribed at once.
MAX_IN_FLIGHT = 2
IN_FLIGHT = ("queued", "running")
# The first bytes of each container decode.py reads; anything else is not a recording.
_MAGIC = (
    (0, b"\x1a\x45\xdf\xa3", "webm"),
    (0, b"OggS", "ogg"),
    (0, b"fLaC", "flac"),
    (0, b"ID3", "mp3"),
    (4, b"ftyp", "mp4"),
)
ACCEPTED_TYPES = "WebM, Ogg, WAV, FLAC, MP3 or MP4 audio"
# The type kept audio is stored and served as: its container's, never what the client named.
AUDIO_TYPES = {
    "wav": "audio/wav",
    "mp3": "audio/mpeg",
    "webm": "audio/webm",
    "ogg": "audio/ogg",
    "flac": "audio/flac",
    "mp4": "audio/mp4",
}


@dataclass(frozen=True)
class Upload:
    """A recording as sent: the form's text fields and the audio's bytes."""

    fields: dict[str, str]
    audio: bytes | None


@dataclass(frozen=True)
class CheckedUpload:
    """An upload that may be stored: what it says, its audio, and the type its bytes are."""

    data: RecordingIn
    audio: bytes
    content_type: str


def container_of(data: bytes) -> str:
    """The container `data` starts like, by its magic bytes; NotThisFormat for anything else."""
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav"
    if data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "mp3"
    for offset, magic, name in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return name
    raise NotThisFormat(f"the recording must be {ACCEPTED_TYPES}; this file is none of them")


def check_upload(upload: Upload, *, card: Card, max_seconds: int, max_bytes: int) -> CheckedUpload:
    """What the upload says, once its size, type and fields fit the card; refused otherwise
    (TooLarge, NotThisFormat, Invalid), before anything is stored."""
    if not upload.audio:
        raise Invalid("audio", "send the recording as the 'audio' file of the form")
    if len(upload.audio) > max_bytes:
        raise TooLarge(
            f"the recording is larger than {max_bytes // 1024} KB, more than {max_seconds} seconds of speech"
        )
    container = container_of(upload.audio)
    # The one container whose format is read without an audio library; the others the worker checks.
    refusal = wav_format_refusal(upload.audio) if container == "wav" else None
    if refusal is not None:
        raise Invalid("audio", refusal)
    content_type = AUDIO_TYPES[container]
    try:
        data = RecordingIn.model_validate(upload.fields, strict=False)
    except ValidationError as error:
        first = error.errors()[0]
        # The one rule across fields is follow_up's (it goes with kind follow-up, and only there).
        raise Invalid(".".join(map(str, first["loc"])) or "follow_up", field_messages([first])[0]) from None
    # The same slack as decoding: a take the browser stopped at the limit runs a frame past it.
    if data.seconds is not None and data.seconds > max_seconds + LENGTH_SLACK_SECONDS:
        raise Invalid("seconds", f"a recording may be at most {max_seconds} seconds long")
    if data.follow_up is not None and data.follow_up >= len(card.follow_ups):
        raise Invalid("follow_up", f"this card has follow-ups 0 to {len(card.follow_ups) - 1}")
    return CheckedUpload(data=data, audio=upload.audio, content_type=content_type)


def lane_now(session: Session, *, timeout_seconds: float) -> str:
    """The speech lane for a recording sent now (`speech_lane_now`), from the workers that beat
    within the timeout."""
    return speech_lane_now(live_capabilities(session, timeout_seconds=timeout_seconds))


def submit(
    session: Session, *, queue: JobQueue, card: Card, user_id: int, upload: Upload, settings: Settings
) -> Recording:
    """Check a recording (`check_upload`), store it and its audio, then queue it; TooMany while
    the person already has MAX_IN_FLIGHT in flight, Unavailable (the recording stored failed)
    when the queue is down."""
    checked = check_upload(
        upload, card=card, max_seconds=settings.max_recording_seconds, max_bytes=settings.max_recording_bytes
    )
    data = checked.data
    lock_person(session, user_id)  # two uploads at once must not both find room
    in_flight = session.scalar(
        select(func.count())
        .select_from(Recording)
        .where(Recording.user_id == user_id, Recording.status.in_(IN_FLIGHT))
    )
    if (in_flight or 0) >= MAX_IN_FLIGHT:
        raise TooMany(
            f"you already have {in_flight} recordings being transcribed (at most {MAX_IN_FLIGHT}): "
            "wait for one to finish",
            retry_after=5,
        )
    recording = Recording(
        id=uuid.uuid4().hex,
        user_id=user_id,
        card_id=card.id,
        tier=data.tier,
        kind=data.kind,
        follow_up=data.follow_up,
        status="queued",
        lane=lane_now(session, timeout_seconds=settings.demo_heartbeat_timeout_seconds),
        # 0: the client did not say (the API's seconds is optional); the worker measures it.
        declared_seconds=round(data.seconds or 0.0, 2),
    )
    session.add(recording)
    session.add(
        RecordingAudio(recording_id=recording.id, content_type=checked.content_type, data=checked.audio)
    )
    session.commit()
    try:
        queue.enqueue(recording.id, lane=recording.lane)
    except Exception as error:
        log.exception("could not enqueue recording %s", recording.id)
        recording.status = "failed"
        recording.error = (
            f"Could not reach the job queue ({type(error).__name__}); nothing was transcribed. Try again."
        )
        recording.finished_at = utcnow()
        session.execute(delete(RecordingAudio).where(RecordingAudio.recording_id == recording.id))
        session.commit()
        erase_deleted(session.get_bind().engine)
        raise Unavailable(recording.error) from error
    return recording


def own_recording(session: Session, *, user_id: int, recording_id: str) -> Recording:
    """A person's recording; someone else's reads as missing, like one that never existed."""
    recording = session.get(Recording, recording_id)
    if recording is None or recording.user_id != user_id:
        raise NotFound(f"no recording with id '{recording_id}'")
    return recording


def kept_audio(session: Session, *, user_id: int, recording_id: str) -> RecordingAudio:
    """The audio of a person's transcribed recording, while KEEP_RECORDINGS keeps it."""
    now = utcnow()
    recording = own_recording(session, user_id=user_id, recording_id=recording_id)
    audio = session.get(RecordingAudio, recording_id)
    if audio is None or recording.keep_audio_until is None or recording.keep_audio_until <= now:
        raise NotFound(f"the audio of recording '{recording_id}' is not kept")
    return audio


def spoken(
    session: Session,
    *,
    user_id: int,
    recording_id: str,
    card_id: str,
    tier: str,
    kind: str,
    follow_up: int | None,
) -> Recording:
    """The transcribed recording an attempt is saved from: the person's own, done, and of the
    same card, depth, answer kind and follow-up; Invalid naming `recording_id` otherwise."""
    recording = session.get(Recording, recording_id)
    if recording is None or recording.user_id != user_id:
        raise Invalid("recording_id", "no recording of yours has this recording_id")
    if recording.status != "done" or recording.duration_s is None:
        raise Invalid("recording_id", "this recording_id is not transcribed yet: wait for its transcript")
    if (recording.card_id, recording.tier, recording.kind, recording.follow_up) != (
        card_id,
        tier,
        kind,
        follow_up,
    ):
        raise Invalid("recording_id", "this recording_id was recorded for another question or depth")
    return recording


def as_out(recording: Recording) -> RecordingOut:
    """How the API shows a recording: its status and transcript first, then the rest of the delivery."""
    return RecordingOut(
        id=recording.id,
        status=recording.status,
        card_id=recording.card_id,
        tier=recording.tier,
        kind=recording.kind,
        follow_up=recording.follow_up,
        transcript=recording.transcript,
        duration_s=recording.duration_s,
        words=recording.words or [],
        error=recording.error,
        model=recording.model,
        real_time_factor=recording.real_time_factor,
        audio_kept=recording.keep_audio_until is not None,
        created_at=recording.created_at,
        **delivery_fields(recording.delivery),
    )
