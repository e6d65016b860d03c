"""The recordings' JSON API: 202 with the id and where to read it, DESIGN.md's fields once a
worker has transcribed it, refusals as JSON that name the problem, and the audio only while kept."""

import json
from typing import Any, get_args

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.content.tiers import TIERS
from app.speech.schemas import RecordingIn, SpokenKind
from tests.factories import OWNER_CARD
from tests.helpers.speech import DESIGN_FIELDS, audio_file, finish, recording_form, stored_counts, wav_bytes

URL = f"/api/cards/{OWNER_CARD}/recordings"


def post(client: TestClient, *, audio: dict[str, Any] | None = None, **fields: Any) -> Any:
    return client.post(URL, files=audio or audio_file(), data=recording_form(**fields))


def test_an_upload_answers_202_with_its_id_and_location(client: TestClient) -> None:
    response = post(client)
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"id", "status"} and body["status"] == "queued"
    assert response.headers["location"] == f"/api/recordings/{body['id']}"
    queued = client.get(response.headers["location"]).json()
    assert (queued["status"], queued["transcript"], queued["words"]) == ("queued", None, [])
    assert (queued["card_id"], queued["tier"], queued["kind"]) == (OWNER_CARD, "middle", "solid")


def test_seconds_are_optional_for_api_clients(client: TestClient) -> None:
    response = client.post(URL, files=audio_file(), data={"tier": "junior", "kind": "basics"})
    assert response.status_code == 202


def test_a_transcribed_recording_reads_with_the_design_fields(client: TestClient, app: FastAPI) -> None:
    recording_id = post(client).json()["id"]
    done = finish(app, recording_id)
    body = client.get(f"/api/recordings/{recording_id}").json()
    assert set(body) >= DESIGN_FIELDS
    delivery = done.delivery or {}
    assert body["status"] == "done" and body["transcript"] == done.transcript
    assert body["duration_s"] == done.duration_s and body["error"] is None
    assert body["words"] == done.words and all(set(w) == {"word", "start", "end"} for w in body["words"])
    assert body["words_per_minute"] == delivery["words_per_minute"]
    assert (
        body["fillers"] == delivery["fillers"] and sum(body["fillers"].values()) == delivery["filler_count"]
    )
    assert [(p["start"], p["end"]) for p in body["pauses"]] == [
        (p["start"], p["end"]) for p in delivery["pauses"]
    ]
    assert body["pace_band"] == [130, 175] and body["target_seconds"] == 50
    assert body["terms_used"] == ["prefetch"] and body["terms_missed"] == ["AUTOTUNE"]
    assert body["audio_kept"] is False
    assert client.get(f"/api/recordings/{recording_id}/audio").status_code == 404


@pytest.mark.parametrize(
    ("fields", "status", "field"),
    [
        ({"tier": "expert"}, 422, "tier"),
        ({"kind": "follow-up", "follow_up": "4"}, 422, "follow_up"),
        ({"seconds": "-1"}, 422, "seconds"),
        ({"audio": audio_file(b"RIFF\0\0\0\0AVI LIST")}, 415, None),
        # A 2 KB WAV stating 100 MHz: decoding it would cost the worker seconds and gigabytes.
        ({"audio": audio_file(wav_bytes(0.00001, rate=100_000_007))}, 422, "audio"),
        ({"audio": audio_file(wav_bytes(0.01, channels=12))}, 422, "audio"),
    ],
)
def test_refusals_are_json_that_names_the_problem(
    client: TestClient, app: FastAPI, fields: dict[str, Any], status: int, field: str | None
) -> None:
    response = post(client, **fields)
    assert response.status_code == status
    detail = response.json()["detail"]
    if field is None:
        assert "WebM, Ogg, WAV" in detail
    else:
        assert detail[0]["loc"] == ["body", field]
    assert stored_counts(app) == (0, 0)


def test_the_api_routes_are_in_the_openapi_schema(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    upload = paths["/api/cards/{card_id}/recordings"]["post"]
    assert set(upload["requestBody"]["content"]["multipart/form-data"]["schema"]["required"]) == {
        "audio",
        "tier",
        "kind",
    }
    assert "202" in upload["responses"] and "413" in upload["responses"] and "415" in upload["responses"]
    assert "get" in paths["/api/recordings/{recording_id}"]
    assert "get" in paths["/api/recordings/{recording_id}/audio"]


def test_kept_audio_is_served_as_the_audio_its_bytes_are_not_as_the_type_sent(
    client: TestClient, app: FastAPI
) -> None:
    app.state.settings = app.state.settings.model_copy(update={"keep_recordings": True})
    script = b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"alert(document.cookie)"
    response = post(client, audio={"audio": ("answer.js", script, "text/javascript")})
    assert response.status_code == 202, response.text
    recording_id = response.json()["id"]
    finish(app, recording_id, keep_days=7)
    audio = client.get(f"/api/recordings/{recording_id}/audio")
    assert audio.status_code == 200 and audio.content == script
    assert audio.headers["content-type"] == "audio/mpeg"
    assert audio.headers["content-disposition"] == f'inline; filename="recording-{recording_id}.mp3"'
    assert audio.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in audio.headers.get_list("content-security-policy")


def test_the_upload_body_in_the_openapi_schema_is_the_one_the_upload_validates(client: TestClient) -> None:
    body = client.get("/openapi.json").json()["paths"]["/api/cards/{card_id}/recordings"]["post"]
    properties = body["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert properties["tier"]["enum"] == list(TIERS)
    assert properties["kind"]["enum"] == list(get_args(SpokenKind))
    # The fields' descriptions are the validator's own, so the two cannot drift apart.
    for name in ("follow_up", "seconds"):
        assert RecordingIn.model_fields[name].description in json.dumps(properties[name])
