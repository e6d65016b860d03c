"""Turning KEEP_RECORDINGS off deletes the audio kept while it was on, at the next upkeep: from the
database and from the files of either engine, however many days it had left."""

import secrets
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.jobs.queue import JobQueue
from app.settings import Settings
from app.worker import consumer
from tests.factories import OWNER_CARD
from tests.helpers.recordings import files_holding, stored_sound
from tests.helpers.speech import audio_file, finish, recording_form, stored_counts

# An MP3 by its first bytes (all the upload looks at), then sound no other file holds.
SOUND = b"ID3\x04\x00\x00\x00\x00\x00\x00" + secrets.token_bytes(8192)


@pytest.fixture
def queue(settings: Settings) -> Iterator[JobQueue]:
    queue = JobQueue(settings.queue_url)
    yield queue
    queue.close()


def kept_recording(client: TestClient, app: FastAPI) -> str:
    """A recording sent and transcribed while KEEP_RECORDINGS is on: its audio kept 7 days."""
    app.state.settings = app.state.settings.model_copy(update={"keep_recordings": True})
    sent = client.post(
        f"/api/cards/{OWNER_CARD}/recordings",
        files=audio_file(SOUND, "audio/mpeg"),
        data=recording_form(),
    )
    assert sent.status_code == 202, sent.text
    recording_id: str = sent.json()["id"]
    finish(app, recording_id, keep_days=7)
    return recording_id


def test_turning_keep_recordings_off_deletes_the_kept_audio_at_the_next_upkeep(
    client: TestClient, app: FastAPI, settings: Settings, queue: JobQueue
) -> None:
    recording_id = kept_recording(client, app)
    audio = client.get(f"/api/recordings/{recording_id}/audio")
    assert audio.status_code == 200 and audio.content == SOUND
    if settings.is_sqlite:  # the search below can find the sound where it is
        assert files_holding(settings.data_dir, SOUND) != []

    off = settings.model_copy(update={"keep_recordings": False})
    app.state.settings = off
    assert consumer.upkeep(app.state.db, queue=queue, settings=off)["recording audio deleted"] == 1

    assert client.get(f"/api/recordings/{recording_id}/audio").status_code == 404
    read = client.get(f"/api/recordings/{recording_id}").json()
    assert read["audio_kept"] is False and read["transcript"]
    assert stored_counts(app) == (1, 0)
    assert stored_sound(settings, SOUND) == []


def test_with_keep_recordings_on_the_upkeep_keeps_the_audio_its_days(
    client: TestClient, app: FastAPI, settings: Settings, queue: JobQueue
) -> None:
    recording_id = kept_recording(client, app)
    on = settings.model_copy(update={"keep_recordings": True})
    assert consumer.upkeep(app.state.db, queue=queue, settings=on)["recording audio deleted"] == 0
    assert client.get(f"/api/recordings/{recording_id}/audio").status_code == 200
