"""A recording's sound leaves no copy on the database server's disk once it is deleted: not in the
table's files, not in SQLite's write-ahead log, not in PostgreSQL's, searched byte for byte after a
checkpoint."""

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.jobs.queue import speech_lane
from app.settings import Settings
from app.speech.child import Job
from tests.factories import OWNER_CARD
from tests.helpers.recordings import recording, stored_sound, transcription_executor
from tests.helpers.speech import audio_file, recording_form, stored_counts


class Refusing:
    """A speech process that finds the file is no sound it reads: the recording fails."""

    def run(self, job: Job, *, timeout_s: float, should_cancel: Callable[[], bool]) -> dict[str, Any]:
        return {"refused": "The recording could not be read as audio."}


@pytest.fixture
def sound() -> Iterator[bytes]:
    # An MP3 by its first bytes (all the upload looks at), then sound no other file holds.
    yield b"ID3\x04\x00\x00\x00\x00\x00\x00" + secrets.token_bytes(64 * 1024)


def test_a_failed_recordings_sound_is_nowhere_on_disk(
    client: TestClient, app: FastAPI, settings: Settings, sound: bytes
) -> None:
    sent = client.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(sound, "audio/mpeg"), data=recording_form()
    )
    assert sent.status_code == 202, sent.text
    recording_id = sent.json()["id"]
    transcription_executor(settings, app.state.db, runner=Refusing()).execute(
        recording_id, speech_lane(False)
    )
    assert recording(app.state.db, recording_id).status == "failed"
    assert stored_counts(app) == (1, 0)
    assert stored_sound(settings, sound) == []
