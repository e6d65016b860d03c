"""What the recording routes are handed: the upload, read whole before any session is taken."""

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session
from starlette.datastructures import UploadFile

from app.accounts.dependencies import UserIdDep
from app.content.cards import Card
from app.jobs.dependencies import QueueDep
from app.jobs.queue import JobQueue
from app.settings import Settings
from app.speech import service
from app.speech.models import Recording
from app.speech.service import Upload
from app.speech.voicing import Asker
from app.storage.dependencies import WriteSessionDep
from app.web.dependencies import SettingsDep, read_form

AUDIO_FIELD = "audio"
# A recording's id in a path: 32 hex digits; a longer one names none.
RecordingPath = Annotated[str, Path(max_length=32)]


async def read_upload(request: Request) -> Upload:
    """The form's fields and the audio's bytes. The request guard caps the body (a little over
    MAX_RECORDING_SECONDS' worth of bytes), so reading the spooled part whole is bounded."""
    form = await read_form(request)
    fields = {key: value for key, value in form.multi_items() if isinstance(value, str) and value != ""}
    part = form.get(AUDIO_FIELD)
    if not isinstance(part, UploadFile):
        return Upload(fields=fields, audio=None)
    # The type the client names is not read: the audio's own bytes say what it is.
    return Upload(fields=fields, audio=await part.read())


UploadDep = Annotated[Upload, Depends(read_upload)]


@dataclass(frozen=True)
class Recorder:
    """What storing and queueing an upload needs of the request: the person, a write session,
    the queue and the settings."""

    session: Session
    queue: JobQueue
    user_id: int
    settings: Settings

    def submit(self, *, card: Card, upload: Upload) -> Recording:
        return service.submit(
            self.session,
            queue=self.queue,
            card=card,
            user_id=self.user_id,
            upload=upload,
            settings=self.settings,
        )


async def get_recorder(
    session: WriteSessionDep, queue: QueueDep, user_id: UserIdDep, settings: SettingsDep
) -> Recorder:
    return Recorder(session=session, queue=queue, user_id=user_id, settings=settings)


# Declared after UploadDep in a route, so the body is read before the session is taken.
RecorderDep = Annotated[Recorder, Depends(get_recorder)]


async def get_asker(settings: SettingsDep, queue: QueueDep) -> Asker:
    """Where a question's sound is asked for: the app's queue, how recently a worker must have
    beat to say it (its heartbeat timeout), and the deployment's voice."""
    return Asker(queue, settings.demo_heartbeat_timeout_seconds, settings.question_voice)


AskerDep = Annotated[Asker, Depends(get_asker)]
VoiceKey = Annotated[str, Path(pattern=r"^[0-9a-f]{64}$")]
