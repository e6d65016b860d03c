"""The mock interview's JSON API, as a script drives it: start on named cards, answer, get the
follow-up chosen from the answer, pass over a question, read the session back; every refusal a
4xx that stores nothing."""

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.content.cards import pitfall_id
from app.interview.models import InterviewQuestion, InterviewSession
from app.practice.models import Attempt
from tests.factories import DECK, OWNER_CARD
from tests.helpers.interview import MISSES_THE_FIFTH
from tests.helpers.speech import audio_file, finish, recording_form

CARD = DECK[OWNER_CARD]
OTHER = next(card_id for card_id in DECK if card_id != OWNER_CARD and DECK[card_id].level == "middle")


def stored(app: FastAPI, model: type) -> int:
    with app.state.db.read_sessions() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def begin(client: TestClient, cards: list[str], tier: str = "middle") -> dict[str, Any]:
    response = client.post("/api/interviews", json={"cards": cards, "tier": tier})
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_an_answer_that_misses_a_point_is_followed_by_the_follow_up_that_probes_it(
    client: TestClient,
) -> None:
    started = begin(client, [OWNER_CARD, OTHER])
    first = started["question"]
    assert first | {"target_seconds": 0} == {
        "card_id": OWNER_CARD,
        "kind": "main",
        "follow_up": None,
        "text": CARD.title.plain,
        "why": None,
        "probes": None,
        "target_seconds": 0,
        "audio_url": None,
        "position": 0,
    }
    assert first["target_seconds"] == CARD.timings.solid
    url = f"/api/interviews/{started['id']}/answers"
    answered = client.post(url, json={"text": MISSES_THE_FIFTH, "seconds": 41.5})
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert [p["id"] for p in body["coverage"]["points"]] == [p.key for p in CARD.points]
    assert [p["covered"] for p in body["coverage"]["points"]] == [True, True, True, True, False]
    follow_up = body["next"]
    assert (follow_up["kind"], follow_up["follow_up"], follow_up["text"]) == (
        "follow-up",
        0,
        CARD.follow_ups[0].title.plain,
    )
    assert follow_up["why"] == f"missed point 5: {CARD.points[4].plain}"
    assert follow_up["probes"] == {"point": CARD.points[4].key}
    # The follow-up answered, the next card; its main question passed over: the session is over.
    after = client.post(url, json={"text": "Add parallelism where the time is spent.", "seconds": 12}).json()
    assert after["coverage"] is None and after["next"]["card_id"] == OTHER
    assert client.post(url, json={"outcome": "dont-know", "seconds": 3}).json() == {
        "coverage": None,
        "next": None,
    }
    summary = client.get(f"/api/interviews/{started['id']}").json()
    assert summary["finished_at"] is not None and summary["next"] is None
    asked = summary["questions"]
    assert [(q["question"]["card_id"], q["question"]["kind"]) for q in asked] == [
        (OWNER_CARD, "main"),
        (OWNER_CARD, "follow-up"),
        (OTHER, "main"),
    ]
    assert asked[0]["answer"] == MISSES_THE_FIFTH and asked[0]["seconds"] == 41.5
    assert asked[0]["covered"] == [p.key for p in CARD.points[:4]] and asked[0]["pitfalls"] == []
    assert asked[1]["question"]["why"].startswith("missed point 5")
    assert (asked[2]["outcome"], asked[2]["answer"]) == ("dont-know", None)
    # "I don't know" counts on the card's schedule as a miss, as revealing the answer does.
    (revealed,) = [a for a in client.get("/api/attempts").json() if a["card_id"] == OTHER]
    assert revealed["revealed"] is True


def test_a_sure_pitfall_is_named_by_the_card_apis_id(client: TestClient) -> None:
    started = begin(client, [OWNER_CARD])
    # Every point covered: the interviewer goes deeper, with the follow-up tied to no point.
    complete = (
        "It overlaps producing with consuming: while the GPU trains on one batch the next is prepared, so step "
        "time becomes max(input, compute). It goes last so the buffer holds batches. It is one background thread, "
        "not a pool of workers. A buffer hides variance, not a throughput deficit."
    )
    body = client.post(
        f"/api/interviews/{started['id']}/answers", json={"text": complete, "seconds": 40}
    ).json()
    assert all(p["covered"] for p in body["coverage"]["points"])
    assert (body["next"]["why"], body["next"]["follow_up"], body["next"]["probes"]) == ("deeper", 1, None)
    assert pitfall_id(CARD.pitfalls[0].key) == f"p-{CARD.pitfalls[0].key}"


def test_an_answer_given_aloud_is_read_from_its_recordings_transcript(
    app: FastAPI, client: TestClient
) -> None:
    started = begin(client, [OWNER_CARD])
    sent = client.post(
        f"/api/cards/{OWNER_CARD}/recordings", files=audio_file(), data=recording_form(tier="middle")
    )
    assert sent.status_code == 202, sent.text
    recording = finish(app, sent.json()["id"])
    body = client.post(f"/api/interviews/{started['id']}/answers", json={"recording_id": recording.id}).json()
    assert body["next"]["kind"] == "follow-up"
    (asked, _) = client.get(f"/api/interviews/{started['id']}").json()["questions"]
    assert asked["answer"] == recording.transcript and asked["seconds"] == recording.duration_s
    assert asked["delivery"]["words_per_minute"] == (recording.delivery or {})["words_per_minute"]


def test_a_junior_session_asks_no_follow_up(client: TestClient) -> None:
    started = begin(client, [OWNER_CARD], tier="junior")
    assert started["question"]["target_seconds"] == CARD.timings.basics
    body = client.post(
        f"/api/interviews/{started['id']}/answers", json={"text": "No idea.", "seconds": 5}
    ).json()
    assert body["next"] is None


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"cards": []}, 422, "at least 1"),
        ({"cards": ["no-such-card"]}, 404, "no card with id"),
        ({"cards": [OWNER_CARD] * 11}, 422, "at most 10"),
        ({"cards": [OWNER_CARD], "tier": "expert"}, 422, "junior"),
        ({"cards": [OWNER_CARD], "source": "random"}, 422, "Extra inputs"),
        ({"cards": "tf-data-prefetch-last"}, 422, "list"),
    ],
)
def test_a_refused_start_says_why_and_stores_nothing(
    app: FastAPI, client: TestClient, body: dict[str, Any], status: int, says: str
) -> None:
    response = client.post("/api/interviews", json=body)
    assert response.status_code == status and says in response.text
    assert stored(app, InterviewSession) == 0


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "an answer sends 'text'"),
        ({"text": "", "seconds": 1}, "at least 1 character"),
        ({"text": "x", "seconds": -1}, "greater than or equal to 0"),
        ({"text": "x", "outcome": "skipped"}, "sends no 'text'"),
        ({"outcome": "maybe"}, "skipped"),
        ({"recording_id": "no-such-recording"}, "pattern"),
        ({"recording_id": "0" * 32}, "no recording"),
    ],
)
def test_a_refused_answer_says_why_and_stores_nothing(
    app: FastAPI, client: TestClient, body: dict[str, Any], says: str
) -> None:
    started = begin(client, [OWNER_CARD])
    response = client.post(f"/api/interviews/{started['id']}/answers", json=body)
    assert 400 <= response.status_code < 500 and says in response.text, response.text
    assert stored(app, Attempt) == 0 and stored(app, InterviewQuestion) == 1


def test_someone_elses_or_a_finished_session_is_refused(client: TestClient) -> None:
    assert client.get("/api/interviews/999").status_code == 404
    assert client.post("/api/interviews/999/answers", json={"outcome": "skipped"}).status_code == 404
    started = begin(client, [OWNER_CARD], tier="junior")
    url = f"/api/interviews/{started['id']}/answers"
    assert client.post(url, json={"outcome": "skipped"}).json() == {"coverage": None, "next": None}
    late = client.post(url, json={"text": "Too late.", "seconds": 1})
    assert late.status_code == 409 and "finished" in late.json()["detail"]
