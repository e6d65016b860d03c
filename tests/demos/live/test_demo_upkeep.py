"""Keeping the demo queue healthy: reading never writes, the workers' upkeep stores what reads
show, puts lost runs back on the queue and forgets old runs; a person cannot flood the queue;
lists never load per-step data; `serve` restarts a worker that died."""

import os
import signal
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.demos import claims
from app.demos.models import DemoRun
from app.factory import create_app
from app.jobs.queue import JobQueue
from app.storage.base import utcnow
from tests.helpers.clients import csrf_client
from tests.helpers.demos import HEARTBEAT_TIMEOUT_S, SMALL, demo_settings_for, submit, wait_for
from tests.helpers.payloads import demo_run_payload
from tests.servers import running_server

pytestmark = pytest.mark.load

CARD = "tf-data-prefetch-last"


def _status(app: FastAPI, run_id: str) -> str | None:
    with app.state.db.read_sessions() as session:
        return session.scalar(select(DemoRun.status).where(DemoRun.id == run_id))


def _flush(queue: JobQueue) -> None:
    for huey in queue.hueys.values():
        huey.storage.flush_queue()


def _set(app: FastAPI, run_id: str, **values: object) -> None:
    with app.state.db.write_sessions() as session:
        session.execute(update(DemoRun).where(DemoRun.id == run_id).values(**values))
        session.commit()


def _upkeep(app: FastAPI, queue: JobQueue) -> dict[str, int]:
    """The workers' upkeep with 30 days' retention for runs, the settings' for the rest."""
    settings = app.state.settings
    return claims.upkeep(
        app.state.db,
        queue=queue,
        timeout_seconds=HEARTBEAT_TIMEOUT_S,
        retention_days=30,
        recording_retention_days=settings.recording_retention_days,
        session_idle=timedelta(hours=settings.session_idle_hours),
        audit_retention_days=settings.audit_retention_days,
    )


def test_reading_a_run_whose_worker_died_shows_it_interrupted_without_writing(
    idle_client: TestClient, idle_app: FastAPI
) -> None:
    run_id = submit(idle_client, params=SMALL, card_id=CARD)
    old = utcnow() - timedelta(seconds=HEARTBEAT_TIMEOUT_S + 1)
    _set(idle_app, run_id, status="running", worker="gone-host:1", started_at=old, heartbeat_at=old)
    for url in (f"/api/demos/{run_id}", f"/demos/{run_id}", f"/cards/{CARD}/demo-runs", "/api/demos"):
        response = idle_client.get(url)
        assert response.status_code == 200, url
        assert "interrupted" in response.text.lower(), url
    assert _status(idle_app, run_id) == "running"
    settings = idle_app.state.settings
    done = _upkeep(idle_app, JobQueue(settings.queue_url))
    assert done["interrupted"] == 1
    assert _status(idle_app, run_id) == "interrupted"


def test_upkeep_puts_a_lost_run_back_on_its_lane_once(idle_client: TestClient, idle_app: FastAPI) -> None:
    queue = JobQueue(idle_app.state.settings.queue_url)
    _flush(queue)
    lost = submit(idle_client, params=SMALL)
    lost_gpu = submit(idle_client, "to-device", params={"steps": 6, "batch_mb": 1})
    waiting = submit(idle_client, params=SMALL)
    _flush(queue)  # a worker took the jobs and died before claiming them
    queue.enqueue(waiting, lane="cpu")  # ... but one was put back already
    long_ago = utcnow() - timedelta(seconds=claims.LOST_AFTER_S + 5)
    for run_id in (lost, lost_gpu, waiting):
        _set(idle_app, run_id, created_at=long_ago)
    done = _upkeep(idle_app, queue)
    assert done["requeued"] == 2
    assert queue.run_ids() == {lost, lost_gpu, waiting}
    assert _upkeep(idle_app, queue)["requeued"] == 0
    assert queue.hueys["gpu"].dequeue().args == (lost_gpu,)  # back on the lane GPU workers read
    _flush(queue)


def test_upkeep_forgets_finished_runs_past_their_retention(
    idle_client: TestClient, idle_app: FastAPI
) -> None:
    old_done = submit(idle_client, params=SMALL)
    old_queued = submit(idle_client, params=SMALL)
    recent_done = submit(idle_client, params=SMALL)
    long_ago = utcnow() - timedelta(days=31)
    _set(idle_app, old_done, status="done", created_at=long_ago)
    _set(idle_app, old_queued, created_at=long_ago)
    _set(idle_app, recent_done, status="done")
    queue = JobQueue(idle_app.state.settings.queue_url)
    assert _upkeep(idle_app, queue)["deleted"] == 1
    assert _status(idle_app, old_done) is None
    assert _status(idle_app, old_queued) == "queued" and _status(idle_app, recent_done) == "done"
    _flush(queue)


def test_starting_too_many_runs_a_minute_is_refused_with_retry_after(tmp_path: Path) -> None:
    settings = demo_settings_for(tmp_path).model_copy(update={"demo_submits_per_minute": 20})
    app = create_app(settings)
    with csrf_client(app) as client:
        started = 0
        for _ in range(20):
            run_id = submit(client, params=SMALL)
            started += 1
            assert client.post(f"/api/demos/{run_id}/cancel").status_code == 200
        response = client.post("/api/demos", json=demo_run_payload())
        assert response.status_code == 429
        assert response.headers["retry-after"] == "60"
        assert "in the last minute" in response.json()["detail"]
        assert len(client.get("/api/demos?limit=200").json()["runs"]) >= started
    app.state.db.dispose()


def test_lists_read_summaries_and_never_the_steps(idle_client: TestClient, idle_app: FastAPI) -> None:
    run_id = submit(idle_client, params=SMALL)
    variant = {"name": "no-prefetch", "label": "No prefetch", "median_step_ms": 61.0, "p90_step_ms": 62.0}
    result = {
        "variants": [
            {
                **variant,
                "model_step_ms": 60.0,
                "steps": [{"start_ms": 0.0, "input_ms": 1.0, "compute_ms": 1.0}] * 2500,
            }
        ]
    }
    _set(idle_app, run_id, status="done", result=result, summary=claims.summary_of(result))
    listed = idle_client.get(f"/api/demos?card_id={CARD}").json()["runs"]
    assert listed == [] or all("steps" not in v for run in listed for v in run["variants"])
    mine = next(run for run in idle_client.get("/api/demos").json()["runs"] if run["run_id"] == run_id)
    assert mine["variants"][0]["median_step_ms"] == 61.0 and "steps" not in mine["variants"][0]
    assert len(idle_client.get(f"/api/demos/{run_id}").json()["variants"][0]["steps"]) == 2500


def test_serve_restarts_its_worker_when_it_dies(tmp_path: Path) -> None:
    with running_server(tmp_path, env={"DEMO_HEARTBEAT_TIMEOUT_SECONDS": "5"}) as url:

        def worker_pids() -> list[int]:
            workers = httpx.get(f"{url}/api/workers", timeout=5).json()["workers"]
            return [int(w["name"].rpartition(":")[2]) for w in workers]

        first = wait_for(worker_pids, 180, 0.5, "the first worker to beat")[0]
        os.kill(first, signal.SIGKILL)
        again = wait_for(lambda: [p for p in worker_pids() if p != first], 180, 0.5, "a new worker")
        assert again and first not in again
