"""The recorder's routes: send a recorded answer from an answer form, and the fragment that polls
until the worker has transcribed it."""

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep
from app.exceptions import DomainError
from app.speech import service
from app.speech.dependencies import RecorderDep, RecordingPath, UploadDep
from app.storage.dependencies import SessionDep
from app.web.errors import status_of
from app.web.templating import render

router = APIRouter(tags=["pages"])


# The upload is declared first: its body is read before a session is taken.
@router.post("/cards/{card_id}/recordings", response_class=HTMLResponse, status_code=202)
def send_recording(
    request: Request,
    *,
    upload: UploadDep,
    card: CardDep,
    recorder: RecorderDep,
) -> HTMLResponse:
    """From recorder.js: 202 and the fragment that polls; a refusal is the fragment with its sentence."""
    try:
        recording = recorder.submit(card=card, upload=upload)
    except DomainError as error:
        return render(request, "_recording.html", status_code=status_of(error), refusal=error.message)
    return render(request, "_recording.html", status_code=202, recording=recording)


@router.get("/recordings/{recording_id}", response_class=HTMLResponse)
def recording_page(
    request: Request,
    *,
    recording_id: RecordingPath,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
) -> HTMLResponse:
    recording = service.own_recording(session, user_id=user_id, recording_id=recording_id)
    return render(
        request,
        "recording.html",
        "_recording.html",
        recording=recording,
        card=catalogue.get(recording.card_id),
    )
