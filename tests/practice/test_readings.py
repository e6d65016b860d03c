"""The entailment model's reading of an answer, on the web's side: asked only while a live worker
reads the claims lanes, polled by the suggestion's fragment, swapped in when a worker stores it, and
the lexical suggestion kept, saying why, when no worker reads answers with the model, the reading
fails or does not arrive in time. The poll route is the person's own: anyone else's answer is a 404.
(A real worker taking the job: tests/demos/live/test_claims_reading.py.)"""

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update

from app.coverage import reading
from app.coverage.checker import check, point_verdict
from app.demos.models import WorkerBeat
from app.jobs.queue import JobQueue, claims_lanes_for
from app.practice import readings
from app.practice.models import Attempt, AttemptCoverage
from app.storage.base import utcnow
from tests.factories import DECK, OWNER_CARD
from tests.helpers import interview
from tests.helpers.demos import beat_row
from tests.helpers.html import HTMX, one, soup_of, text_of
from tests.helpers.practice import write_session
from tests.helpers.suggestions import ANSWER

CARD = DECK[OWNER_CARD]


def answer(client: TestClient, text: str = ANSWER) -> BeautifulSoup:
    data = {"tier": "middle", "kind": "solid", "text": text, "seconds": "12.5"}
    response = client.post(f"/cards/{OWNER_CARD}/answers", data=data, headers=HTMX)
    assert response.status_code == 200
    return soup_of(response)


def suggestion_of(soup: BeautifulSoup) -> Tag:
    return one(soup, ".suggestion")


def row_of(app: FastAPI) -> AttemptCoverage:
    with app.state.db.read_sessions() as session:
        row = session.scalars(select(AttemptCoverage).order_by(AttemptCoverage.attempt_id.desc())).first()
        assert row is not None
        session.expunge(row)
        return row


def model_reads(app: FastAPI, attempt_id: int, *, entail: float) -> bool:
    """Store what a worker stores: the model's reading of the answer, every pair at `entail`."""
    asked = reading.question(CARD, follow_up=None, text=ANSWER)
    probabilities = [[entail, 1 - entail, 0.0]] * len(asked.premises)
    coverage = reading.answer(CARD, follow_up=None, text=ANSWER, probabilities=probabilities)
    with write_session(app) as session:
        return readings.store(session, attempt_id=attempt_id, coverage=coverage)


@pytest.fixture
def queue(app: FastAPI) -> Iterator[JobQueue]:
    jobs = JobQueue(app.state.settings.queue_url)
    yield jobs
    for lane in claims_lanes_for(True):
        jobs.hueys[lane].flush()
    jobs.close()


@pytest.fixture
def reading_worker(app: FastAPI, queue: JobQueue) -> Iterator[str]:
    """A live worker's row that lists the claims lanes, as one whose model loaded writes it."""
    name = "reader:1"
    beat_row(app.state.db, name, ["speech", *claims_lanes_for(False)])
    yield name
    with write_session(app) as session:
        session.execute(delete(WorkerBeat).where(WorkerBeat.name == name))


def test_without_a_reading_worker_the_page_keeps_word_overlap_and_says_so(
    app: FastAPI, client: TestClient, queue: JobQueue
) -> None:
    shown = suggestion_of(answer(client))
    assert shown["data-reading"] == "unavailable" and not shown.has_attr("hx-get")
    said = text_of(shown, ".read-by")
    assert "word overlap" in said and "not available on this server" in said
    row = row_of(app)
    assert (row.method, row.reading) == ("lexical", "unavailable")
    assert queue.run_ids("claims") == set()


def test_an_answer_is_queued_for_the_model_and_the_page_swaps_in_its_reading(
    app: FastAPI, client: TestClient, queue: JobQueue, reading_worker: str
) -> None:
    shown = suggestion_of(answer(client))
    row = row_of(app)
    assert row.reading == "queued" and row.method == "lexical"
    assert queue.run_ids("claims") == {str(row.attempt_id)}
    poll = f"/attempts/{row.attempt_id}/suggestion"
    assert shown["hx-get"] == poll and "load" in str(shown["hx-trigger"])
    assert "reading it too" in text_of(shown, ".read-by")

    waiting = suggestion_of(soup_of(client.get(poll, headers=HTMX)))
    assert waiting["hx-get"] == poll and not waiting.has_attr("data-announce")

    assert model_reads(app, row.attempt_id, entail=0.99)
    arrived = suggestion_of(soup_of(client.get(poll, headers=HTMX)))
    assert arrived["data-reading"] == "done" and not arrived.has_attr("hx-get")
    assert "arrived" in str(arrived["data-announce"])
    assert text_of(arrived, ".read-by") == "Read by word overlap, checked by the entailment model."
    read = reading.answer(
        CARD,
        follow_up=None,
        text=ANSWER,
        probabilities=[[0.99, 0.01, 0.0]] * len(reading.question(CARD, follow_up=None, text=ANSWER).premises),
    )
    verdicts = [text_of(li, ".verdict") for li in arrived.select(".suggested-points li")]
    assert verdicts == [point_verdict(hit.covered, hit.sure) for hit in read.points]
    assert all(hit.covered for hit in read.points)
    assert row_of(app).method == "claims"
    # A job queued twice is stored once.
    assert not model_reads(app, row.attempt_id, entail=0.1)
    assert row_of(app).points[0]["covered"] is True


def test_a_reading_that_does_not_arrive_in_time_stops_the_polling_and_says_so(
    app: FastAPI, client: TestClient, reading_worker: str
) -> None:
    answer(client)
    row = row_of(app)
    with write_session(app) as session:
        session.execute(
            update(AttemptCoverage)
            .where(AttemptCoverage.attempt_id == row.attempt_id)
            .values(created_at=utcnow() - timedelta(seconds=readings.suggestions.READING_WAIT_S + 1))
        )
    late = suggestion_of(soup_of(client.get(f"/attempts/{row.attempt_id}/suggestion", headers=HTMX)))
    assert late["data-reading"] == "late" and not late.has_attr("hx-get")
    assert "did not arrive in time" in text_of(late, ".read-by")
    assert "did not come" in str(late["data-announce"])


def test_a_failed_reading_keeps_word_overlap(app: FastAPI, client: TestClient, reading_worker: str) -> None:
    answer(client)
    row = row_of(app)
    with write_session(app) as session:
        readings.fail(session, attempt_id=row.attempt_id)
    page = soup_of(client.get(f"/attempts/{row.attempt_id}/suggestion"))
    assert one(page, "h1").get_text() == "Suggestion on your answer"
    assert "could not read this answer" in text_of(suggestion_of(page), ".read-by")
    assert row_of(app).method == "lexical"


def test_a_reading_stored_after_the_assessment_is_compared_with_the_ticks(
    app: FastAPI, client: TestClient, reading_worker: str
) -> None:
    answer(client)
    row = row_of(app)
    ticked = [CARD.point_ids[0]]
    with write_session(app) as session:
        attempt = session.get(Attempt, row.attempt_id)
        assert attempt is not None
        attempt.points, attempt.rating = ticked, "good"
    assert model_reads(app, row.attempt_id, entail=0.0)
    stored = row_of(app)
    assert (stored.agreed, stored.compared) == (len(CARD.points) - 1, len(CARD.points))


def test_a_reading_a_dead_worker_took_is_queued_again(
    app: FastAPI, client: TestClient, queue: JobQueue, reading_worker: str
) -> None:
    answer(client)
    row = row_of(app)
    for lane in claims_lanes_for(True):
        queue.hueys[lane].flush()  # as a worker's take leaves it, before it died
    with app.state.db.read_sessions() as session:
        assert readings.requeue_left_behind(session, queue=queue) == 1
        assert readings.requeue_left_behind(session, queue=queue) == 0
    assert queue.run_ids("claims") == {str(row.attempt_id)}


def test_the_mock_interview_asks_for_the_reading_too(
    app: FastAPI, client: TestClient, queue: JobQueue, reading_worker: str
) -> None:
    url = interview.start(client, source="cards", card=[OWNER_CARD], tier="middle")
    shown = suggestion_of(interview.answer(client, url, ANSWER, headers=HTMX))
    row = row_of(app)
    assert row.reading == "queued" and shown["hx-get"] == f"/attempts/{row.attempt_id}/suggestion"
    assert queue.run_ids("claims") == {str(row.attempt_id)}


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/attempts/{id}/suggestion", 404),
        ("/attempts/999999/suggestion", 404),
        ("/attempts/x/suggestion", 422),
    ],
)
def test_the_poll_answers_only_the_person_s_own_answer(
    signed_in: Any, team_app: FastAPI, path: str, status: int
) -> None:
    alice, bob = signed_in("alice"), signed_in("bob")
    data = {"tier": "middle", "kind": "solid", "text": ANSWER, "seconds": "12.5"}
    assert alice.post(f"/cards/{OWNER_CARD}/answers", data=data, headers=HTMX).status_code == 200
    with team_app.state.db.read_sessions() as session:
        attempt_id = session.scalars(select(Attempt.id)).one()
    assert alice.get(f"/attempts/{attempt_id}/suggestion", headers=HTMX).status_code == 200
    assert bob.get(path.format(id=attempt_id), headers=HTMX).status_code == status


def test_an_answer_without_a_suggestion_is_a_404(app: FastAPI, client: TestClient) -> None:
    data = {"tier": "middle", "kind": "solid", "seconds": "3"}
    assert client.post(f"/cards/{OWNER_CARD}/reveal", data=data, headers=HTMX).status_code == 200
    with app.state.db.read_sessions() as session:
        attempt_id = session.scalars(select(Attempt.id)).one()
    assert client.get(f"/attempts/{attempt_id}/suggestion").status_code == 404


def test_the_lexical_suggestion_is_what_the_checker_says(app: FastAPI, client: TestClient) -> None:
    shown = suggestion_of(answer(client))
    covered = [li for li in shown.select(".suggested-points li") if li["class"] == ["covered"]]
    assert len(covered) == len(check(CARD, ANSWER).covered)
    assert text_of(shown, ".read-by").startswith("Read by word overlap with the card.")
