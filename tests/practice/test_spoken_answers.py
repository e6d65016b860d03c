"""Answers given aloud: saved from a transcribed recording, they take the recording's duration as
their time and keep how they were said; a recording that is not the person's own, not done, of
another question or already saved is refused, naming recording_id, and nothing is stored."""

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.speech.models import Recording
from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.payloads import attempt_payload
from tests.helpers.practice import attempts_of, counts
from tests.helpers.speech import audio_file, finish, recording_form

EDITED = "Prefetch overlaps the producer with the consumer, so the model never waits."


def recorded(client: TestClient, app: FastAPI, *, done: bool = True, **fields: Any) -> Recording:
    """A recording sent through the API, then (with `done`) transcribed as a worker stores it."""
    response = client.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form(**fields)
    )
    assert response.status_code == 202, response.text
    recording_id = response.json()["id"]
    if done:
        return finish(app, recording_id)
    with app.state.db.read_sessions() as session:
        recording = session.get(Recording, recording_id)
        assert recording is not None
        return recording


def spoken_payload(recording: Recording, **overrides: Any) -> dict[str, Any]:
    return attempt_payload(text=EDITED, seconds=140.0, recording_id=recording.id, **overrides)


def test_an_answer_saved_from_a_recording_takes_its_duration_and_delivery(
    client: TestClient, app: FastAPI
) -> None:
    recording = recorded(client, app)
    response = client.post(attempts_of(), json=spoken_payload(recording))
    assert response.status_code == 201, response.text
    (attempt,) = client.get("/api/attempts").json()
    delivery = recording.delivery or {}
    assert attempt["text"] == EDITED and attempt["seconds"] == recording.duration_s
    assert attempt["recording_id"] == recording.id
    assert attempt["words_per_minute"] == delivery["words_per_minute"]
    assert attempt["filler_count"] == delivery["filler_count"]
    assert attempt["long_pauses"] == len(delivery["pauses"]) == 1


def test_the_card_page_form_saves_the_edited_transcript_and_history_says_how_it_was_said(
    client: TestClient, app: FastAPI
) -> None:
    recording = recorded(client, app)
    form = {"tier": "middle", "kind": "solid", "text": EDITED, "seconds": "133", "recording_id": recording.id}
    response = client.post(f"/cards/{OWNER_CARD}/answers", data=form, headers=HTMX)
    assert response.status_code == 200, response.text
    (attempt,) = client.get("/api/attempts").json()
    assert (attempt["text"], attempt["seconds"]) == (EDITED, recording.duration_s)
    row = soup_of(client.get(f"/cards/{OWNER_CARD}/history", headers=HTMX)).select_one("tr.attempt")
    delivery = recording.delivery or {}
    fillers = delivery["filler_count"]
    said = f"said aloud · {round(delivery['words_per_minute'])} wpm · {fillers} filler{'' if fillers == 1 else 's'} · 1 long pause"
    assert row.select_one(".said-aloud").get_text(strip=True) == said


def test_after_submit_the_answer_panel_keeps_how_it_was_said_beside_the_suggestion(
    client: TestClient, app: FastAPI
) -> None:
    recording = recorded(client, app)
    form = {"tier": "middle", "kind": "solid", "text": EDITED, "seconds": "133", "recording_id": recording.id}
    panel = soup_of(client.post(f"/cards/{OWNER_CARD}/answers", data=form, headers=HTMX))
    delivery = recording.delivery or {}
    shown = panel.select_one("#answer-panel .delivery")
    assert shown is not None and panel.select_one("#answer-panel .suggestions") is not None
    pace = shown.select_one(".delivery-pace").get_text(" ", strip=True)
    assert f"{round(delivery['words_per_minute'])} words a minute" in pace
    assert len(shown.select(".delivery-pauses li")) == len(delivery["pauses"]) == 1
    typed = {"tier": "middle", "kind": "solid", "text": EDITED, "seconds": "133"}
    assert (
        soup_of(client.post(f"/cards/{OWNER_CARD}/answers", data=typed, headers=HTMX)).select_one(".delivery")
        is None
    )


def test_a_typed_answer_shows_no_delivery_in_history(client: TestClient) -> None:
    assert client.post(attempts_of(), json=attempt_payload()).status_code == 201
    row = soup_of(client.get(f"/cards/{OWNER_CARD}/history", headers=HTMX)).select_one("tr.attempt")
    assert row.select_one(".said-aloud") is None
    assert client.get("/api/attempts").json()[0]["words_per_minute"] is None


def test_practice_reveal_saves_an_answer_given_aloud(client: TestClient, app: FastAPI) -> None:
    client.put("/api/settings", json={"target_tier": "junior", "desired_retention": 0.9, "new_per_day": 10})
    recording = recorded(client, app, tier="junior", kind="basics")
    form = {
        "card_id": OWNER_CARD,
        "tier": "junior",
        "seconds": "30",
        "text": EDITED,
        "recording_id": recording.id,
    }
    response = client.post("/practice/reveal", headers=HTMX, data=form)
    assert response.status_code == 200, response.text
    (attempt,) = client.get("/api/attempts").json()
    assert (attempt["kind"], attempt["seconds"], attempt["recording_id"]) == (
        "basics",
        recording.duration_s,
        recording.id,
    )
    # How it was said stays beside the answer while it is rated.
    shown = soup_of(response).select_one("#practice-card .delivery")
    assert shown is not None and "words a minute" in shown.select_one(".delivery-pace").get_text()


@pytest.mark.parametrize(
    ("recording_fields", "payload", "says"),
    [
        pytest.param({}, {"kind": "basics"}, "another question", id="other-kind"),
        pytest.param({}, {"tier": "senior"}, "another question or depth", id="other-tier"),
        pytest.param(
            {"kind": "follow-up", "follow_up": "1"},
            {"kind": "follow-up", "follow_up": 2},
            "another",
            id="other-follow-up",
        ),
    ],
)
def test_a_recording_of_another_question_is_refused(
    client: TestClient, app: FastAPI, recording_fields: dict[str, Any], payload: dict[str, Any], says: str
) -> None:
    recording = recorded(client, app, **recording_fields)
    body = spoken_payload(recording, **payload)
    if body["kind"] == "follow-up":
        body.pop("rating"), body.pop("points")
    response = client.post(attempts_of(), json=body)
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "recording_id"] and says in problem["msg"]
    assert counts(app)["attempts"] == 0


def test_a_recording_of_another_card_is_refused(client: TestClient, app: FastAPI) -> None:
    recording = recorded(client, app)
    other = next(c["id"] for c in client.get("/api/cards").json()["cards"] if c["id"] != OWNER_CARD)
    response = client.post(attempts_of(other), json=spoken_payload(recording))
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "recording_id"]
    assert counts(app)["attempts"] == 0


def test_a_recording_not_yet_transcribed_is_refused(client: TestClient, app: FastAPI) -> None:
    recording = recorded(client, app, done=False)
    response = client.post(attempts_of(), json=spoken_payload(recording))
    assert response.status_code == 422
    assert "not transcribed yet" in response.json()["detail"][0]["msg"]
    assert counts(app)["attempts"] == 0


def test_a_recording_makes_at_most_one_answer(client: TestClient, app: FastAPI) -> None:
    recording = recorded(client, app)
    assert client.post(attempts_of(), json=spoken_payload(recording)).status_code == 201
    again = client.post(attempts_of(), json=spoken_payload(recording))
    assert again.status_code == 422 and "already saved" in again.json()["detail"][0]["msg"]
    assert counts(app)["attempts"] == 1


def test_a_refused_recording_on_the_card_page_keeps_the_typing(client: TestClient, app: FastAPI) -> None:
    recording = recorded(client, app, done=False)
    form = {"tier": "middle", "kind": "solid", "text": EDITED, "seconds": "40", "recording_id": recording.id}
    response = client.post(f"/cards/{OWNER_CARD}/answers", data=form, headers=HTMX)
    assert response.status_code == 422
    soup = soup_of(response.text)
    assert "not transcribed yet" in soup.select_one("[role=alert]").get_text()
    assert soup.select_one("textarea[name=text]").get_text() == EDITED
    assert counts(app)["attempts"] == 0


@pytest.mark.parametrize("payload", [{"kind": "quiz", "text": None, "choices": []}, {"revealed": True}])
def test_only_spoken_answers_take_a_recording_id(
    client: TestClient, app: FastAPI, payload: dict[str, Any]
) -> None:
    body = attempt_payload(recording_id="a" * 32) | payload
    if payload.get("revealed"):
        body = {k: v for k, v in body.items() if k not in ("text", "rating", "points")}
    if payload.get("kind") == "quiz":
        body = {k: v for k, v in body.items() if k not in ("text", "points")}
    response = client.post(attempts_of(), json=body)
    assert response.status_code == 422
    assert counts(app)["attempts"] == 0


def test_someone_elses_recording_is_refused_and_unreadable(
    signed_in: Callable[[str], TestClient], team_app: FastAPI
) -> None:
    alice, bob, root = signed_in("alice"), signed_in("bob"), signed_in("root")
    recording = recorded(alice, team_app)
    response = bob.post(attempts_of(), json=spoken_payload(recording))
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "recording_id"]
    for other in (bob, root):  # a member, and an admin: neither reads alice's recording or its audio
        assert other.get(f"/api/recordings/{recording.id}").status_code == 404
        assert other.get(f"/api/recordings/{recording.id}/audio").status_code == 404
        assert other.get(f"/recordings/{recording.id}", headers=HTMX).status_code == 404
    assert alice.get(f"/api/recordings/{recording.id}").status_code == 200


def test_two_saves_of_one_recording_at_once_make_one_answer_and_a_sentence(
    client: TestClient, app: FastAPI
) -> None:
    for round_number in range(3):
        recording = recorded(client, app)
        start = threading.Barrier(2)

        def save(_: int, recording: Recording = recording, start: threading.Barrier = start) -> Any:
            start.wait()  # both requests leave together, as a double click sends them
            return client.post(attempts_of(), json=spoken_payload(recording))

        with ThreadPoolExecutor(2) as pool:
            answers = sorted(pool.map(save, range(2)), key=lambda r: r.status_code)
        assert [a.status_code for a in answers] == [201, 422], [a.text for a in answers]
        assert "already saved" in answers[1].json()["detail"][0]["msg"]
        assert counts(app)["attempts"] == round_number + 1
