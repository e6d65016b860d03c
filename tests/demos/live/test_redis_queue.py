"""The Redis queue path (QUEUE_URL=redis://…, for workers on other hosts) against a real
redis-server, and a worker stopped with SIGTERM mid-job: the run ends interrupted, not stuck,
and the worker's TensorFlow child goes with it."""

import signal
from collections.abc import Iterator

import psutil
import pytest
from fastapi.testclient import TestClient

from app.factory import create_app
from app.presets import PRESETS
from app.settings import Settings
from tests.helpers.clients import csrf_client
from tests.helpers.demos import (
    LONG,
    SMALL,
    WorkerProcess,
    demo_lanes,
    demo_settings_for,
    get_run,
    redis_database,
    running_worker,
    submit,
    wait_for,
    wait_status,
)

pytestmark = pytest.mark.load


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture(scope="module")
def redis_settings(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Settings:
    return demo_settings_for(tmp_path_factory.mktemp("redis-data"), queue_url=redis_database(redis_url, 1))


@pytest.fixture(scope="module")
def redis_worker(redis_settings: Settings) -> Iterator[WorkerProcess]:
    yield from running_worker(redis_settings)


@pytest.fixture
def redis_client(redis_settings: Settings, redis_worker: WorkerProcess) -> Iterator[TestClient]:
    app = create_app(redis_settings)
    with csrf_client(app) as client:
        yield client
    app.state.db.dispose()


def test_a_demo_runs_end_to_end_through_redis(redis_client: TestClient, redis_settings: Settings) -> None:
    workers = redis_client.get("/api/workers").json()
    assert workers["queue"] == "redis" and demo_lanes(workers["workers"][0]) == ["cpu"]
    run_id = submit(redis_client, params=SMALL)
    doc = wait_status(redis_client, run_id, ("done", "failed"), timeout=60)
    assert doc["status"] == "done", doc["error"]
    assert len(doc["variants"]) == len(PRESETS["placement"].variants)
    assert all(v["model_step_ms"] for v in doc["variants"])
    # The message went through Redis, not a SQLite queue file.
    assert not (redis_settings.data_dir / "queue.db").exists()


def test_sigterm_mid_job_interrupts_the_run_and_stops_the_runner_child(
    redis_client: TestClient, redis_worker: WorkerProcess
) -> None:
    run_id = submit(redis_client, params=LONG)
    wait_for(
        lambda: (
            get_run(redis_client, run_id)["progress"].get("steps_done", 0) >= 2
            and get_run(redis_client, run_id)["status"] == "running"
        ),
        60,
        0.05,
        "the run to be under way",
    )
    children = redis_worker.runner_child_pids()
    assert children
    redis_worker.signal(signal.SIGTERM)
    assert redis_worker.process is not None
    assert redis_worker.process.wait(timeout=60) == 0
    assert all(gone(pid) for pid in children)

    doc = get_run(redis_client, run_id)  # no waiting for a heartbeat: the worker said so itself
    assert doc["status"] == "interrupted"
    assert "stopped" in doc["error"]
    assert redis_client.get("/api/workers").json()["workers"] == []  # it removed its beat
