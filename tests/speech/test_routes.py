"""Sending a recorded answer from an answer form and the fragment that follows it: refusals store
and queue nothing, an accepted one is queued on a speech lane, and the fragment polls until the
worker's transcript and delivery figures are there."""

import secrets
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.demos.models import WorkerBeat
from app.jobs.dependencies import app_job_queue
from app.jobs.queue import speech_lanes_for
from app.speech.models import Recording
from app.speech.stated_figures import FILLERS, HEARING
from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.practice import write_session
from tests.helpers.queues import queue_on_own_redis
from tests.helpers.recordings import stored_sound
from tests.helpers.speech import audio_file, fail, finish, recording_form, stored_counts, wav_bytes

URL = f"/cards/{OWNER_CARD}/recordings"


def send(client: TestClient, *, audio: dict[str, Any] | None = None, **fields: Any) -> Any:
    return client.post(URL, files=audio or audio_file(), data=recording_form(**fields), headers=HTMX)


def section_of(response: Any) -> Any:
    section = soup_of(response.text).select_one("section.recording")
    assert section is not None, response.text
    return section


def queued_ids(app: FastAPI) -> set[str]:
    return app_job_queue(app.state).run_ids("speech")


def test_an_accepted_recording_is_stored_queued_and_polls_until_transcribed(
    client: TestClient, app: FastAPI
) -> None:
    response = send(client)
    assert response.status_code == 202
    section = section_of(response)
    recording_id = section["data-recording"]
    assert section["data-status"] == "queued" and section["id"] == f"recording-{recording_id}"
    assert section["hx-get"] == f"/recordings/{recording_id}"
    assert section["hx-trigger"] == "load delay:1s" and section["hx-swap"] == "outerHTML"
    assert section.select_one("[role=status]").get_text(strip=True) == "Waiting for a worker…"
    assert recording_id in queued_ids(app)
    assert stored_counts(app) == (1, 1)
    with app.state.db.read_sessions() as session:
        stored = session.get(Recording, recording_id)
        assert stored is not None
        assert (stored.lane, stored.tier, stored.kind, stored.declared_seconds) == (
            "speech",
            "middle",
            "solid",
            21.5,
        )


def test_a_recording_goes_to_the_gpu_lane_while_a_gpu_worker_is_alive(
    client: TestClient, app: FastAPI
) -> None:
    with write_session(app) as session:
        session.add(
            WorkerBeat(
                name="gpuhost:1",
                device="GPU:0",
                compute="real",
                capabilities=["gpu", "cpu", *speech_lanes_for(True)],
            )
        )
    try:
        recording_id = section_of(send(client))["data-recording"]
        with app.state.db.read_sessions() as session:
            assert session.get(Recording, recording_id).lane == "speech-gpu"  # type: ignore[union-attr]
        assert recording_id in queued_ids(app)
    finally:
        with write_session(app) as session:
            session.query(WorkerBeat).delete()


def test_a_gpu_worker_whose_speech_model_did_not_load_gets_no_recordings(
    client: TestClient, app: FastAPI
) -> None:
    # It reads the GPU demo lanes but lists no speech lane: a recording queued for it would wait.
    with write_session(app) as session:
        session.add(WorkerBeat(name="gpuhost:1", device="GPU:0", compute="real", capabilities=["gpu", "cpu"]))
    try:
        recording_id = section_of(send(client))["data-recording"]
        with app.state.db.read_sessions() as session:
            assert session.get(Recording, recording_id).lane == "speech"  # type: ignore[union-attr]
    finally:
        with write_session(app) as session:
            session.query(WorkerBeat).delete()


REFUSALS = [
    pytest.param(
        {"audio": audio_file(b"<html>not sound</html>", "audio/webm")}, 415, "WebM", id="wrong-magic"
    ),
    pytest.param({"audio": audio_file(b"")}, 422, "audio", id="empty-file"),
    pytest.param({"seconds": "181"}, 422, "at most 180 seconds", id="too-long"),
    pytest.param({"seconds": "0"}, 422, "seconds", id="zero-seconds"),
    pytest.param({"tier": "expert"}, 422, "tier", id="unknown-tier"),
    pytest.param({"kind": "quiz"}, 422, "kind", id="unknown-kind"),
    pytest.param({"kind": "follow-up", "follow_up": "9"}, 422, "follow-ups 0 to 3", id="unknown-follow-up"),
    pytest.param({"kind": "follow-up"}, 422, "follow_up", id="follow-up-unnamed"),
]


@pytest.mark.parametrize(("fields", "status", "says"), REFUSALS)
def test_each_refusal_says_why_and_stores_and_queues_nothing(
    client: TestClient, app: FastAPI, fields: dict[str, Any], status: int, says: str
) -> None:
    before = queued_ids(app)
    response = send(client, **fields)
    assert response.status_code == status
    section = section_of(response)
    assert section["data-status"] == "refused"
    assert says in section.select_one("[role=alert]").get_text()
    assert stored_counts(app) == (0, 0)
    assert queued_ids(app) == before


def test_a_take_stopped_by_the_limit_may_run_a_frame_past_it(client: TestClient, app: FastAPI) -> None:
    limit = app.state.settings.max_recording_seconds
    assert send(client, seconds=str(limit + 0.3)).status_code == 202
    refused = send(client, seconds=str(limit + 1))
    assert refused.status_code == 422
    assert f"at most {limit} seconds" in section_of(refused).select_one("[role=alert]").get_text()
    assert stored_counts(app) == (1, 1)


def test_audio_past_the_byte_cap_is_refused_with_413(client: TestClient, app: FastAPI) -> None:
    limit = app.state.settings.max_recording_bytes
    response = send(client, audio=audio_file(wav_bytes()[:44] + b"\0" * limit))
    assert response.status_code == 413
    alert = section_of(response).select_one("[role=alert]").get_text()
    assert f"larger than {limit // 1024} KB" in alert and "180 seconds" in alert
    assert stored_counts(app) == (0, 0)


def test_a_recording_larger_than_other_bodies_may_be_is_taken(client: TestClient, app: FastAPI) -> None:
    assert app.state.settings.max_body_bytes < 1_600_000 < app.state.settings.max_recording_bytes
    response = send(client, audio=audio_file(wav_bytes(seconds=50)))  # 1.6 MB of 16 kHz WAV
    assert response.status_code == 202, response.text
    assert stored_counts(app) == (1, 1)


def test_a_recording_as_long_as_allowed_is_taken_in_any_format_a_browser_sends(
    client: TestClient, app: FastAPI
) -> None:
    # The largest a browser or a person sends: 16-bit 48 kHz stereo WAV, just under the limit.
    seconds = app.state.settings.max_recording_seconds - 1
    response = send(client, audio=audio_file(wav_bytes(seconds=seconds, rate=48_000, channels=2)))
    assert response.status_code == 202, response.text
    assert stored_counts(app) == (1, 1)


def test_a_body_past_the_recording_cap_is_refused_before_it_is_read(client: TestClient, app: FastAPI) -> None:
    size = app.state.settings.max_recording_bytes + 2 * 1024 * 1024
    response = send(client, audio=audio_file(b"\0" * size))
    assert response.status_code == 413
    assert "larger than" in response.json()["detail"]
    assert stored_counts(app) == (0, 0)


def test_a_card_not_served_takes_no_recording(client: TestClient, app: FastAPI) -> None:
    response = client.post(
        "/cards/no-such-card/recordings", files=audio_file(), data=recording_form(), headers=HTMX
    )
    assert response.status_code == 404
    assert stored_counts(app) == (0, 0)


def test_a_third_recording_in_flight_is_refused(client: TestClient, app: FastAPI) -> None:
    assert [send(client).status_code for _ in range(2)] == [202, 202]
    before = queued_ids(app)
    response = send(client)
    assert response.status_code == 429
    assert "at most 2" in section_of(response).select_one("[role=alert]").get_text()
    assert stored_counts(app) == (2, 2)
    assert queued_ids(app) == before


def test_without_the_csrf_token_nothing_is_stored(anonymous_client: TestClient, app: FastAPI) -> None:
    response = anonymous_client.post(URL, files=audio_file(), data=recording_form(), headers=HTMX)
    assert response.status_code == 403
    assert stored_counts(app) == (0, 0)


def test_a_queue_that_is_down_fails_the_recording_keeps_no_audio_and_works_once_back(
    client: TestClient, app: FastAPI, tmp_path: Path
) -> None:
    sound = secrets.token_bytes(32_000)
    header = wav_bytes(seconds=0)
    wav = (
        header[:4] + (36 + len(sound)).to_bytes(4, "little") + header[8:40] + len(sound).to_bytes(4, "little")
    )
    with queue_on_own_redis(app, tmp_path) as redis:
        redis.stop()
        response = send(client, audio=audio_file(wav + sound))
        assert response.status_code == 503
        assert "Could not reach the job queue" in section_of(response).select_one("[role=alert]").get_text()
        assert stored_counts(app) == (1, 0)
        # Nor any copy of the sound where the database keeps its data.
        assert stored_sound(app.state.settings, sound) == []
        redis.start()
        assert send(client).status_code == 202
        assert len(queued_ids(app)) == 1


def test_a_transcribed_recording_shows_its_transcript_hook_and_how_it_was_said(
    client: TestClient, app: FastAPI
) -> None:
    recording_id = section_of(send(client))["data-recording"]
    done = finish(app, recording_id)
    section = section_of(client.get(f"/recordings/{recording_id}", headers=HTMX))
    assert section["data-status"] == "done" and not section.has_attr("hx-get")
    assert section["data-transcript"] == done.transcript
    assert float(section["data-duration"]) == done.duration_s
    stated = f"word error rate {HEARING.word_error_rate} on {HEARING.clips} test clips of voices it was not tuned on"
    assert stated in section.select_one(".model-accuracy").get_text()
    delivery = done.delivery or {}
    panel = section.select_one(".delivery")
    assert f"of ~{delivery['target_seconds']} s" in panel.select_one(".delivery-duration").get_text()
    pace = panel.select_one(".delivery-pace")
    assert f"{round(delivery['words_per_minute'])} words a minute" in pace.get_text()
    assert (pace.meter["low"], pace.meter["high"]) == ("130", "175")
    pauses = panel.select(".delivery-pauses li")
    assert len(pauses) == len(delivery["pauses"]) == 1
    fillers = panel.select_one(".delivery-fillers").get_text()
    assert all(f"{word} \u00d7{count}" in fillers for word, count in delivery["fillers"].items())
    # Beside them, how often fillers are heard, as measured.
    assert f"counted in {FILLERS.found} of {FILLERS.clips}" in fillers
    terms = panel.select_one(".delivery-terms").get_text()
    assert "used: prefetch" in terms and "not said: AUTOTUNE" in terms
    assert section.select_one("audio") is None  # audio is not kept by default
    assert stored_counts(app) == (1, 0)


def test_the_recording_reads_as_a_whole_page_outside_htmx(client: TestClient, app: FastAPI) -> None:
    recording_id = section_of(send(client))["data-recording"]
    page = soup_of(client.get(f"/recordings/{recording_id}").text)
    assert page.h1.get_text(strip=True) == "Recorded answer"
    assert page.select_one(f"#recording-{recording_id}")["data-status"] == "queued"


def test_a_failed_recording_says_why_and_invites_another_try(client: TestClient, app: FastAPI) -> None:
    recording_id = section_of(send(client))["data-recording"]
    fail(app, recording_id, "The recording is cut short: its last part is missing.")
    section = section_of(client.get(f"/recordings/{recording_id}", headers=HTMX))
    assert section["data-status"] == "failed" and not section.has_attr("hx-get")
    assert (
        section.select_one("[role=alert]").get_text(strip=True)
        == "The recording is cut short: its last part is missing."
    )
    assert "Record again" in section.get_text()


def test_a_kept_recording_is_playable_by_its_owner(client: TestClient, app: FastAPI) -> None:
    app.state.settings = app.state.settings.model_copy(update={"keep_recordings": True})
    recording_id = section_of(send(client))["data-recording"]
    finish(app, recording_id, keep_days=7)
    section = section_of(client.get(f"/recordings/{recording_id}", headers=HTMX))
    assert section.select_one("audio")["src"] == f"/api/recordings/{recording_id}/audio"
    audio = client.get(f"/api/recordings/{recording_id}/audio")
    assert audio.status_code == 200 and audio.content == wav_bytes()
    assert audio.headers["content-type"] == "audio/wav"


def test_an_unknown_recording_is_not_found(client: TestClient) -> None:
    assert client.get(f"/recordings/{'0' * 32}", headers=HTMX).status_code == 404


def test_the_transcript_hook_carries_quotes_and_markup_as_text(client: TestClient, app: FastAPI) -> None:
    recording_id = section_of(send(client))["data-recording"]
    said = ' It said "prefetch" <b>first</b> & then AUTOTUNE.'
    finish(app, recording_id, text=said)
    response = client.get(f"/recordings/{recording_id}", headers=HTMX)
    assert "<b>first</b>" not in response.text
    assert section_of(response)["data-transcript"] == said.strip()
