"""Everything a page shows is computed from one "now", so its due texts agree with each other.

The clock is fixed by overriding the dependency every practice route reads it from.
"""

from datetime import datetime, timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.practice.dependencies import get_now
from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.practice import T0, review

TITLE = "Why does tf.data.Dataset.prefetch(tf.data.AUTOTUNE) go last in a pipeline?"


def at(app: FastAPI, moment: datetime) -> None:
    app.dependency_overrides[get_now] = lambda: moment


def settings(client: TestClient, new_per_day: int) -> None:
    body = {"target_tier": "middle", "desired_retention": 0.9, "new_per_day": new_per_day}
    assert client.put("/api/settings", json=body).status_code == 200


def test_a_card_due_in_under_a_minute_is_never_called_due_now(app: FastAPI, client: TestClient) -> None:
    at(app, T0)
    settings(client, new_per_day=0)
    review(app, "again", T0 - timedelta(seconds=30))  # "again" brings a new card back a minute later
    soup = soup_of(client.get("/practice"))
    assert soup.select_one("#practice-card-heading").get_text() == "Nothing due right now"
    assert soup.select_one(".next-due strong").get_text() == "in 30 s"
    assert "0 due" in soup.select_one("#queue-summary").get_text(" ", strip=True)
    assert client.get("/api/practice/due").json()["now"] == "2026-03-02T09:30:00Z"


@pytest.mark.parametrize(("rating", "again_in"), [("again", "in 20 s"), ("good", "in 9 min")])
def test_after_rating_every_due_text_on_the_page_agrees(
    app: FastAPI, client: TestClient, rating: str, again_in: str
) -> None:
    settings(client, new_per_day=1)
    at(app, T0)
    shown = soup_of(client.post("/practice/reveal", headers=HTMX, data=_answer("typed at T0")))
    form = {i["name"]: i.get("value", "") for i in shown.select(".practice-rate input[type=hidden]")}
    assert form["attempt_id"]
    at(app, T0 + timedelta(seconds=40))  # rated 40 s after the answer, which is when it was reviewed
    soup = soup_of(client.post("/practice/rate", headers=HTMX, data=form | {"rating": rating}))
    flash = soup.select_one(".flash").get_text(" ", strip=True)
    assert flash.startswith(f"Rated {rating}. “{TITLE}”: Next review {again_in}, on Mon 2 Mar at ")
    assert soup.select_one("#practice-card-heading").get_text() == "Nothing due right now"
    assert soup.select_one(".next-due strong").get_text() == again_in
    progress = soup_of(client.get("/progress"))
    row = progress.select_one(f'.card-progress[data-card-id="{OWNER_CARD}"][data-tier="middle"] time')
    assert row is not None and row.get_text() == again_in
    assert progress.select_one(".history-table .attempt time").get_text() == "40 s ago"


def test_an_attempt_is_stored_at_the_time_the_page_was_computed(app: FastAPI, client: TestClient) -> None:
    at(app, T0)
    client.post("/practice/reveal", headers=HTMX, data=_answer("stored at T0"))
    (attempt,) = client.get("/api/attempts").json()
    assert attempt["created_at"] == "2026-03-02T09:30:00Z"


def _answer(text: str) -> dict[str, str]:
    return {"card_id": OWNER_CARD, "tier": "middle", "seconds": "12", "text": text}
