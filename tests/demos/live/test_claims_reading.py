"""The entailment model's reading of an answer, by a real `tiercards worker`: the worker reads the
claims lane once its model loaded, takes the reading, and the page's suggestion becomes the
model's; a worker killed with -9 while it holds a reading leaves it to the next worker, and the
answer, acknowledged before, stays."""

import os
import signal
from collections.abc import Iterator

import pytest
from bs4 import Tag
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.demos.models import WorkerBeat
from app.jobs.queue import JobQueue, claims_lanes_for
from app.practice.models import Attempt, AttemptCoverage
from tests.factories import DECK, OWNER_CARD
from tests.helpers.demos import WorkerProcess, wait_for
from tests.helpers.html import HTMX, one, soup_of
from tests.helpers.suggestions import ANSWER

pytestmark = [pytest.mark.load, pytest.mark.claims_model]

# As long as an answer may be: the model is asked about each of its sentences, so a worker holds
# this reading long enough to be killed while it does.
LONG = " ".join(f"{sentence} ({n})" for n in range(30) for sentence in ANSWER.split(". "))


@pytest.fixture
def reading_worker(worker: WorkerProcess, demo_app: FastAPI) -> Iterator[WorkerProcess]:
    """The session's worker, once its claims process is ready (it lists the claims lane)."""

    def reads_claims() -> bool:
        with worker.db.read_sessions() as session:
            beat = session.get(WorkerBeat, worker.name)
            return beat is not None and claims_lanes_for(False)[0] in (beat.capabilities or [])

    wait_for(reads_claims, timeout=120, what=f"worker reading claims:\n{worker.log_tail()}")
    yield worker


def answer(client: TestClient, worker: WorkerProcess, text: str) -> int:
    data = {"tier": "middle", "kind": "solid", "text": text, "seconds": "30"}
    assert client.post(f"/cards/{OWNER_CARD}/answers", data=data, headers=HTMX).status_code == 200
    with worker.db.read_sessions() as session:
        return int(session.scalars(select(Attempt.id).order_by(Attempt.id.desc())).first() or 0)


def suggestion(client: TestClient, attempt_id: int) -> Tag:
    response = client.get(f"/attempts/{attempt_id}/suggestion", headers=HTMX)
    assert response.status_code == 200
    return one(soup_of(response), ".suggestion")


def test_a_worker_reads_the_answer_and_the_page_swaps_in_the_model_s_suggestion(
    demo_client: TestClient, reading_worker: WorkerProcess
) -> None:
    attempt_id = answer(demo_client, reading_worker, ANSWER)
    assert suggestion(demo_client, attempt_id)["data-reading"] in ("waiting", "done")
    shown = wait_for(
        lambda: (s := suggestion(demo_client, attempt_id))["data-reading"] == "done" and s,
        timeout=20,
        what=f"the model's reading:\n{reading_worker.log_tail()}",
    )
    assert not shown.has_attr("hx-get")
    assert "entailment model" in one(shown, ".read-by").get_text()
    with reading_worker.db.read_sessions() as session:
        row = session.get(AttemptCoverage, attempt_id)
        assert row is not None and (row.method, row.reading) == ("claims", "done")
        assert [p["id"] for p in row.points] == list(DECK[OWNER_CARD].point_ids)


def test_a_reading_held_by_a_killed_worker_is_done_by_the_next(
    demo_client: TestClient, reading_worker: WorkerProcess
) -> None:
    queue = JobQueue(reading_worker.settings.queue_url)
    try:
        attempt_id = answer(demo_client, reading_worker, LONG)
        # Taken off the queue: the worker holds it now.
        wait_for(lambda: str(attempt_id) not in queue.run_ids("claims"), timeout=10, interval=0.01)
        os.kill(reading_worker.pid, signal.SIGKILL)
        assert reading_worker.process is not None
        reading_worker.process.wait(timeout=10)
        reading_worker.start()
        wait_for(
            lambda: suggestion(demo_client, attempt_id)["data-reading"] == "done",
            timeout=60,
            what=f"the reading after the kill:\n{reading_worker.log_tail()}",
        )
    finally:
        queue.close()
    with reading_worker.db.read_sessions() as session:
        attempt = session.get(Attempt, attempt_id)
        assert attempt is not None and attempt.text == LONG  # acknowledged before the kill, kept
