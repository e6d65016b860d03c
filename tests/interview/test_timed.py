"""A session timed as a whole, and a summary set against the person's last session on the same
cards: what someone practising for a 20-minute slot sees."""

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.interview.models import InterviewSession
from app.practice.dependencies import get_now
from tests.factories import DECK, OWNER_CARD
from tests.helpers.html import one, soup_of, text_of
from tests.helpers.interview import MISSES_THE_FIFTH, answer, start, step
from tests.helpers.practice import T0

OTHER = next(card_id for card_id in DECK if card_id != OWNER_CARD and DECK[card_id].level == "middle")
WHOLE = (
    MISSES_THE_FIFTH + " Nothing stops the producer from running ahead of the consumer, "
    "up to the buffer's size, and AUTOTUNE sizes that buffer at run time."
)


def at(app: FastAPI, moment: datetime) -> None:
    app.dependency_overrides[get_now] = lambda: moment


def sessions(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        return int(session.scalar(select(func.count()).select_from(InterviewSession)) or 0)


def begin(client: TestClient, cards: list[str], **extra: Any) -> dict[str, Any]:
    response = client.post("/api/interviews", json={"cards": cards, "tier": "middle"} | extra)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_the_heading_counts_the_time_left_and_the_answer_given_when_it_runs_out_is_the_last(
    app: FastAPI, client: TestClient
) -> None:
    at(app, T0)
    setup = soup_of(client.get("/interview"))
    offered = [o["value"] for o in setup.select("select[name=minutes] option")]
    assert offered == ["", "10", "20", "30", "45"]
    url = start(client, source="cards", card=[OWNER_CARD, OTHER], tier="middle", minutes="20")
    at(app, T0 + timedelta(minutes=5))
    assert text_of(step(client, url), "[data-session-clock]") == "15:00 left of 20 min"

    # Time runs out while the first answer is being written: it is still taken.
    at(app, T0 + timedelta(minutes=21))
    sent = {"position": "0", "text": MISSES_THE_FIFTH, "seconds": "900"}
    soup = soup_of(client.post(f"{url}/answer", data=sent))
    # It waits to be rated, as any answer does in a typed session; then the summary.
    assert text_of(soup, "[data-session-clock]") == "Time is up: this answer is the last"
    assert soup.select(".interview-rate")
    soup = soup_of(client.post(f"{url}/assessment", data={"position": "0", "rating": "hard"}))
    assert one(soup, "#interview-step-heading").get_text(strip=True) == "Summary"
    assert text_of(soup, ".interview-ran-out") == "The 20 minutes ran out after 1 of 2 cards."
    (card,) = soup.select(".interview-card")  # the second card was never asked
    assert card["data-card-id"] == OWNER_CARD
    # The follow-up chosen from that answer was not asked either, and the session is listed as past.
    assert not soup.select(".interview-follow-up")
    past = soup_of(client.get("/interview"))
    assert [a["href"] for a in past.select("#past-heading ~ ul a")] == [url]


def test_a_page_left_open_past_the_time_ends_at_the_question_it_was_at(
    app: FastAPI, client: TestClient
) -> None:
    at(app, T0)
    started = begin(client, [OWNER_CARD, OTHER], minutes=10)
    url = f"/api/interviews/{started['id']}"
    at(app, T0 + timedelta(minutes=3))
    answered = client.post(f"{url}/answers", json={"text": MISSES_THE_FIFTH, "seconds": 40})
    assert answered.json()["next"]["kind"] == "follow-up"
    at(app, T0 + timedelta(minutes=11))
    body = client.get(url).json()
    assert (body["minutes"], body["ran_out"], body["next"]) == (10, True, None)
    # The follow-up chosen from that answer was never asked, so it is not listed.
    assert [q["question"]["kind"] for q in body["questions"]] == ["main"]
    assert body["finished_at"] is not None
    late = client.post(f"{url}/answers", json={"text": "too late", "seconds": 5})
    assert late.status_code == 409


def test_a_session_in_time_says_how_long_it_took(app: FastAPI, client: TestClient) -> None:
    at(app, T0)
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior", minutes="10")
    at(app, T0 + timedelta(minutes=4, seconds=30))
    soup = answer(client, url, WHOLE)
    soup = soup_of(client.post(f"{url}/assessment", data={"position": "0", "rating": "good", "points": []}))
    assert text_of(soup, ".interview-in-time") == "Done in 4:30 of the 10 minutes."
    assert not soup.select(".interview-ran-out")


@pytest.mark.parametrize("minutes", ["0", "121", "ten", "2.5"])
def test_a_time_out_of_range_is_refused_and_stores_nothing(
    app: FastAPI, client: TestClient, minutes: str
) -> None:
    response = client.post("/interview", data={"source": "random", "minutes": minutes})
    assert "Time for the whole interview" in text_of(soup_of(response, 422), ".errors")
    sent = int(minutes) if minutes.isdigit() else minutes
    assert client.post("/api/interviews", json={"cards": [OWNER_CARD], "minutes": sent}).status_code == 422
    assert sessions(app) == 0


def test_the_summary_sets_each_card_against_the_last_session_that_asked_it(
    app: FastAPI, client: TestClient
) -> None:
    at(app, T0)
    first = begin(client, [OWNER_CARD, OTHER])
    url = f"/api/interviews/{first['id']}/answers"
    client.post(url, json={"text": "It prefetches. It goes last.", "seconds": 30})
    client.post(url, json={"outcome": "skipped"})  # the follow-up
    client.post(url, json={"outcome": "dont-know"})  # the other card
    assert client.get(f"/api/interviews/{first['id']}").json()["previous"] is None

    at(app, T0 + timedelta(days=2))
    second = begin(client, [OWNER_CARD])
    url = f"/api/interviews/{second['id']}/answers"
    client.post(url, json={"text": WHOLE, "seconds": 55})
    client.post(url, json={"outcome": "skipped"})
    body = client.get(f"/api/interviews/{second['id']}").json()
    previous = body["previous"]
    assert previous["id"] == first["id"]
    (compared,) = previous["cards"]  # the other card was not asked this time
    points = len(DECK[OWNER_CARD].points)
    assert compared | {"covered_then": 0, "covered_now": 0} == {
        "card_id": OWNER_CARD,
        "points": points,
        "covered_then": 0,
        "covered_now": 0,
        "seconds_then": 30,
        "seconds_now": 55,
        "rating_then": None,
        "rating_now": None,
    }
    assert compared["covered_now"] > compared["covered_then"]

    soup = soup_of(client.get(f"/interview/{second['id']}"))
    (row,) = soup.select(".interview-compare tbody tr")
    assert row["data-card-id"] == OWNER_CARD
    then, now = (cell.get_text(" ", strip=True) for cell in row.select("td"))
    assert then == f"{compared['covered_then']} of {points} points · 30 s"
    assert now == f"{compared['covered_now']} of {points} points · 55 s"
    assert one(soup, ".interview-previous a")["href"] == f"/interview/{first['id']}"
