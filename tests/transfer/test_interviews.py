"""A mock interview in the JSON export: each session with its questions in order and the attempt
each was answered by; a file that carries the section imports."""

import re

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event

from tests.factories import DECK, OWNER_CARD
from tests.helpers.interview import answer, rate, start


def test_the_export_lists_each_interview_with_its_questions_and_their_attempts(client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="middle", minutes="30")
    answer(client, url, "The main answer.")
    rate(client, url, "good")
    answer(client, url, "The follow-up answer.")
    unfinished = start(client, source="topic", topic="tf.data", count="1")
    doc = client.get("/api/export.json").json()
    by_id = {a["id"]: a for a in doc["attempts"]}
    done, waiting = doc["interviews"]  # oldest first
    assert done["id"] == int(url.rsplit("/", 1)[1]) and waiting["id"] == int(unfinished.rsplit("/", 1)[1])
    assert (done["tier"], done["source"], done["topic"], done["finished_at"]) == (
        "middle",
        "cards",
        None,
        None,
    )
    assert waiting["source"] == "topic" and waiting["topic"] == "tf.data"
    main, follow_up = done["questions"]
    # The answer missed the card's first point, and the follow-up asked about it.
    assert (main["card_id"], main["follow_up"], main["why"]) == (OWNER_CARD, None, None)
    assert (follow_up["follow_up"], follow_up["why"]) == (None, f"point:{DECK[OWNER_CARD].points[0].key}")
    assert (done["rate_each"], done["minutes"], done["ran_out_at"]) == (True, 30, None)
    assert waiting["minutes"] is None
    assert by_id[main["attempt_id"]]["text"] == "The main answer."
    assert by_id[follow_up["attempt_id"]]["text"] == "The follow-up answer."
    assert len(DECK[OWNER_CARD].follow_ups) > 0
    # The rest rated: finished, with its time.
    rate(client, url, "easy")
    finished = client.get("/api/export.json").json()["interviews"][0]
    assert finished["finished_at"] is not None and finished["finished_at"] >= finished["created_at"]


def test_a_file_with_interviews_imports(client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior")
    answer(client, url, "An answer.")
    rate(client, url, "hard")
    doc = client.get("/api/export.json").json()
    assert len(doc["interviews"]) == 1
    response = client.post("/api/import", json=doc)
    assert response.status_code == 200, response.text


def test_a_file_with_a_broken_interview_is_refused_and_stores_nothing(client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior")
    answer(client, url, "An answer.")
    rate(client, url, "hard")
    doc = client.get("/api/export.json").json()
    doc["attempts"][0]["id"] += 1000  # would be a new attempt, if the file were taken
    doc["review_logs"] = []
    doc["interviews"][0].pop("questions")
    doc["interviews"].append(
        {"id": 2, "created_at": "2026-01-01T00:00:00Z", "tier": "expert", "source": "cards"}
    )
    response = client.post("/api/import", json=doc)
    assert response.status_code == 422
    where = [problem["loc"] for problem in response.json()["detail"]]
    assert ["interviews", 0, "questions"] in where and ["interviews", 1, "tier"] in where
    assert len(client.get("/api/attempts").json()) == 1


def test_the_export_reads_the_interviews_attempts_once(app: FastAPI, client: TestClient) -> None:
    url = start(client, source="cards", card=[OWNER_CARD], tier="junior")
    answer(client, url, "An answer.")
    rate(client, url, "good")
    reads: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if re.search(r"\bFROM attempts\b", statement):
            reads.append(statement)

    event.listen(app.state.db.engine, "before_cursor_execute", seen)
    try:
        assert client.get("/api/export.json").json()["interviews"][0]["questions"][0]["attempt_id"]
    finally:
        event.remove(app.state.db.engine, "before_cursor_execute", seen)
    assert len(reads) == 1, reads
