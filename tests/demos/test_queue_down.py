"""A demo asked for while the job queue is down (its real redis-server stopped) is refused with a
sentence, reads as failed with nothing run, and the same request works once the queue is back."""

from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.jobs.dependencies import app_job_queue
from tests.helpers.payloads import demo_run_payload
from tests.helpers.queues import queue_on_own_redis


def test_a_demo_asked_for_while_the_queue_is_down_is_refused_and_works_once_back(
    client: TestClient, app: FastAPI, tmp_path: Path
) -> None:
    headers = {"Idempotency-Key": "queue-down-then-back"}
    with queue_on_own_redis(app, tmp_path) as redis:
        redis.stop()
        earlier = {run["run_id"] for run in client.get("/api/demos").json()["runs"]}
        refused = client.post("/api/demos", json=demo_run_payload(), headers=headers)
        assert refused.status_code == 503
        assert "Could not reach the job queue" in refused.json()["detail"]
        [run] = [run for run in client.get("/api/demos").json()["runs"] if run["run_id"] not in earlier]
        assert run["status"] == "failed" and "nothing ran" in run["error"]

        redis.start()
        again = client.post("/api/demos", json=demo_run_payload(), headers=headers)
        assert again.status_code == 202, again.text
        assert again.json()["run_id"] != run["run_id"]
        assert app_job_queue(app.state).run_ids("demo") == {again.json()["run_id"]}
