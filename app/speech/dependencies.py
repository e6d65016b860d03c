"""What the recording routes are handed: the upload, read whole before any session is taken."""

import re
from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import UploadFile

from app.speech.service import Upload
from app.web.dependencies import read_form

AUDIO_FIELD = "audio"
# A MIME type as a client may name it ("audio/webm;codecs=opus"); anything else is not kept.
_CONTENT_TYPE = re.compile(r"[\w.+-]+/[\w.+-]+(?:;\s*[\w.+-]+=[\w.+\"-]+)*")
UNKNOWN_TYPE = "application/octet-stream"


async def read_upload(request: Request) -> Upload:
    """The form's fields and the audio's bytes. The request guard caps the body (a little over
    MAX_RECORDING_SECONDS' worth of bytes), so reading the spooled part whole is bounded."""
    form = await read_form(request)
    fields = {key: value for key, value in form.multi_items() if isinstance(value, str) and value != ""}
    part = form.get(AUDIO_FIELD)
    if not isinstance(part, UploadFile):
        return Upload(fields=fields, audio=None, content_type=UNKNOWN_TYPE)
    named = (part.content_type or "").strip()
    content_type = named if len(named) <= 64 and _CONTENT_TYPE.fullmatch(named) else UNKNOWN_TYPE
    return Upload(fields=fields, audio=await part.read(), content_type=content_type)


UploadDep = Annotated[Upload, Depends(read_upload)]
