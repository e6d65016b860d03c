"""The recordings' JSON API: send a recorded answer, read its transcript and how it was said, and
(with KEEP_RECORDINGS) its audio, for its owner only."""

from typing import Any

from fastapi import APIRouter, status
from fastapi.responses import JSONResponse
from starlette.responses import Response

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep
from app.speech import service, voicing
from app.speech.dependencies import AUDIO_FIELD, RecorderDep, RecordingPath, UploadDep, VoiceKey
from app.speech.schemas import RecordingAccepted, RecordingIn, RecordingOut
from app.storage.dependencies import DatabaseDep, SessionDep

router = APIRouter(prefix="/api", tags=["speech"])

# The multipart body as OpenAPI shows it: the audio file, then the fields RecordingIn validates.
_FIELDS = RecordingIn.model_json_schema()
_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": [AUDIO_FIELD, *_FIELDS["required"]],
                    "properties": {AUDIO_FIELD: {"type": "string", "format": "binary"}}
                    | _FIELDS["properties"],
                }
            }
        },
    }
}


@router.post(
    "/cards/{card_id}/recordings",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RecordingAccepted,
    responses={
        413: {"description": "The audio is larger than MAX_RECORDING_SECONDS of speech"},
        415: {"description": "The audio is not WebM, Ogg, WAV, FLAC, MP3 or MP4"},
        422: {"description": "A field does not fit the card, or the recording is too long or empty"},
        429: {"description": "Two recordings of yours are already being transcribed"},
        503: {"description": "The job queue could not be reached"},
    },
    openapi_extra=_UPLOAD_BODY,
)
def create_recording(
    *,
    upload: UploadDep,
    card: CardDep,
    recorder: RecorderDep,
) -> JSONResponse:
    """Queue a recorded answer for transcription (multipart: audio, tier, kind, follow_up, seconds)."""
    recording = recorder.submit(card=card, upload=upload)
    body = RecordingAccepted(id=recording.id, status=recording.status)
    return JSONResponse(
        body.model_dump(),
        status_code=status.HTTP_202_ACCEPTED,
        headers={"Location": f"/api/recordings/{recording.id}"},
    )


@router.get("/recordings/{recording_id}")
def read_recording(*, recording_id: RecordingPath, session: SessionDep, user_id: UserIdDep) -> RecordingOut:
    """The transcript, word timings and delivery figures once `status` is done; `error` once failed."""
    return service.as_out(service.own_recording(session, user_id=user_id, recording_id=recording_id))


@router.get(
    "/recordings/{recording_id}/audio",
    response_class=Response,
    responses={
        200: {"content": {"audio/*": {}}},
        404: {"description": "Not yours, or its audio is not kept"},
    },
)
def recording_audio(*, recording_id: RecordingPath, session: SessionDep, user_id: UserIdDep) -> Response:
    """The audio as sent, while KEEP_RECORDINGS keeps it; only its owner ever gets it."""
    audio = service.kept_audio(session, user_id=user_id, recording_id=recording_id)
    # Typed by its bytes, as it was stored, and never run as a page: sent as a script, it stays audio.
    container = service.container_of(audio.data)
    return Response(
        audio.data,
        media_type=service.AUDIO_TYPES[container],
        headers={
            "Content-Disposition": f'inline; filename="recording-{recording_id}.{container}"',
            "Content-Security-Policy": "sandbox",
        },
    )


@router.get(
    "/voice/{key}",
    response_class=Response,
    responses={
        200: {"content": {"audio/wav": {}}},
        404: {"description": "No question is said with that key, or saying it failed"},
        503: {"description": "No worker has said it within a few seconds; ask again"},
    },
)
def question_voice(*, key: VoiceKey, db: DatabaseDep, user_id: UserIdDep) -> Response:
    """A mock interview's question said aloud (its `audio_url`), waiting a few seconds for a worker
    to say it the first time."""
    audio = voicing.sound(db, wanted=key)
    return Response(audio, media_type="audio/wav", headers={"Content-Security-Policy": "sandbox"})
