"""Leads never get a member's recordings: not their audio (even kept), not their transcript page
or JSON; the team pages show a spoken answer as they show any answer, with no way to its sound."""

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.speech import audio_file, finish, recording_form

SAID = " Prefetch overlaps the producer with the consumer, alice-spoken-words."


def test_a_lead_reaches_no_recording_of_a_member(
    signed_in: Callable[[str], TestClient], team_app: FastAPI, lena: TestClient
) -> None:
    team_app.state.settings = team_app.state.settings.model_copy(update={"keep_recordings": True})
    alice = signed_in("alice")
    recording_id = alice.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form()
    ).json()["id"]
    finish(team_app, recording_id, text=SAID, keep_days=7)
    saved = alice.post(
        f"/api/cards/{OWNER_CARD}/attempts",
        json={
            "tier": "middle",
            "kind": "solid",
            "text": SAID.strip(),
            "seconds": 1,
            "rating": "good",
            "recording_id": recording_id,
        },
    )
    assert saved.status_code == 201, saved.text
    assert alice.get(f"/api/recordings/{recording_id}/audio").status_code == 200
    for url in (
        f"/api/recordings/{recording_id}",
        f"/api/recordings/{recording_id}/audio",
        f"/recordings/{recording_id}",
    ):
        assert lena.get(url, headers=HTMX).status_code == 404, url
    member = lena.get("/team/members/alice")
    assert member.status_code == 200
    page = soup_of(member.text)
    assert page.select("audio") == [] and recording_id not in member.text
    assert not page.select('[href*="/recordings/"], [src*="/recordings/"]')
