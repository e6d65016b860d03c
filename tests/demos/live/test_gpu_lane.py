"""Workers advertise what they can take, and demos that need a GPU go only to GPU workers.

A GPU preset submitted while only workers without a GPU run is accepted and waits, its page and
API saying so, while those workers go on with the other demos; once a GPU worker starts it takes
the run. This machine has no GPU, so the GPU worker here is declared with `tiercards worker --gpu`
and the run ends with the honest failure that TensorFlow found no GPU: that shows the routing.
Such a worker also runs every other preset, one demo at a time.
"""

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import service as accounts
from app.demos.models import DemoRun
from app.demos.runs import ACTIVE, Submitter
from app.factory import create_app
from app.jobs.queue import JobQueue
from app.settings import Settings
from app.storage.database import Database
from tests.helpers.clients import csrf_client
from tests.helpers.demos import (
    SMALL,
    WorkerProcess,
    demo_lanes,
    demo_settings_for,
    get_run,
    running_worker,
    settle,
    submit,
    tiercards,
    wait_for,
    wait_status,
)

pytestmark = pytest.mark.load

TO_DEVICE = {"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_mb": 1}


@pytest.fixture(scope="module")
def lane_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # The default queue, a SQLite file: what one host running `tiercards serve` uses.
    return demo_settings_for(tmp_path_factory.mktemp("lane-data"))


@pytest.fixture(scope="module")
def cpu_worker(lane_settings: Settings) -> Iterator[WorkerProcess]:
    yield from running_worker(lane_settings)


@pytest.fixture(scope="module")
def gpu_worker(lane_settings: Settings) -> Iterator[WorkerProcess]:
    """Declared with --gpu; started by the first test that needs it."""
    worker = WorkerProcess(lane_settings, Path(lane_settings.data_dir) / "gpu-worker.log", args=("--gpu",))
    yield worker
    worker.close()


@pytest.fixture
def client(lane_settings: Settings) -> Iterator[TestClient]:
    app = create_app(lane_settings)
    with csrf_client(app) as client:
        yield client
    settle(app.state.db)
    app.state.db.dispose()


def workers_listed(settings: Settings) -> dict[str, dict[str, object]]:
    result = tiercards(settings, "demo", "workers", "--json")
    assert result.returncode == 0, result.stderr
    return {w["name"]: w for w in json.loads(result.stdout)["workers"]}


def test_a_gpu_demo_waits_for_a_gpu_worker_and_only_a_gpu_worker_takes_it(
    client: TestClient, lane_settings: Settings, cpu_worker: WorkerProcess, gpu_worker: WorkerProcess
) -> None:
    gpu_run = submit(client, "to-device", params=TO_DEVICE)
    cpu_run = submit(client, params=SMALL)
    # The worker without a GPU runs the demo queued after the GPU one, and leaves that one alone.
    assert wait_status(client, cpu_run, ("done", "failed"), timeout=60)["status"] == "done"
    assert get_run(client, cpu_run)["worker"] == cpu_worker.name
    doc = get_run(client, gpu_run)
    assert doc["status"] == "queued" and doc["worker"] is None
    assert doc["waiting"]["needs_gpu"] is True and doc["waiting"]["workers"] == []
    assert "No GPU worker is running" in doc["waiting"]["message"]
    assert gpu_run not in cpu_worker.log_text()
    page = BeautifulSoup(client.get(f"/demos/{gpu_run}").text, "html.parser")
    warning = page.select_one("#demo-status .no-worker")
    assert warning is not None and warning["data-lane"] == "gpu"
    assert "this demo needs a GPU" in warning.text and "have no GPU" in warning.text

    listed = workers_listed(lane_settings)
    assert list(listed) == [cpu_worker.name]
    assert demo_lanes(listed[cpu_worker.name]) == ["cpu"] and listed[cpu_worker.name]["gpu_setting"] == "auto"
    assert listed[cpu_worker.name]["compute"] == "simulated" and listed[cpu_worker.name]["tensorflow_version"]

    gpu_worker.start()
    listed = workers_listed(lane_settings)
    assert demo_lanes(listed[gpu_worker.name]) == ["gpu", "cpu"]
    assert listed[gpu_worker.name]["gpu_setting"] == "on"
    assert "declared a GPU worker (--gpu) but TensorFlow lists no GPU here" in gpu_worker.log_text()
    table = tiercards(lane_settings, "demo", "workers").stdout.splitlines()
    row = next(line for line in table if line.startswith(gpu_worker.name))
    assert "gpu, cpu" in row and "yes (--gpu)" in row
    assert tiercards(lane_settings, "demo", "workers", "--here").returncode == 0

    doc = wait_status(client, gpu_run, ("done", "failed", "interrupted"), timeout=60)
    assert doc["status"] == "failed" and doc["worker"] == gpu_worker.name
    assert "needs a GPU" in doc["error"] and "TensorFlow found no GPU on this worker" in doc["error"]
    assert doc["waiting"] is None
    assert gpu_run not in cpu_worker.log_text()


def test_a_gpu_worker_alone_runs_every_preset_one_demo_at_a_time(
    lane_settings: Settings, cpu_worker: WorkerProcess, gpu_worker: WorkerProcess
) -> None:
    cpu_worker.stop()  # a single GPU host: its one worker must run everything
    gpu_worker.ensure_running()
    db = Database(lane_settings)
    queue = JobQueue(lane_settings.queue_url)
    submitter = Submitter(queue, per_minute=10_000)
    wanted = [("placement", SMALL), ("synthetic", SMALL), ("to-device", TO_DEVICE), ("placement", SMALL)]
    # A person each, so the rule of one running demo per person leaves them free to overlap: only
    # the worker's own rule (one demo at a time) keeps them apart.
    run_ids = []
    with db.write_sessions() as session:
        people = [
            accounts.ensure_user(session, name=f"gpu-host-user-{i}", role=None, how="test").id
            for i in range(len(wanted))
        ]
        session.commit()
    for person, (preset, params) in zip(people, wanted, strict=True):
        with db.write_sessions() as session:
            run_ids.append(submitter.submit(session, user_id=person, preset=preset, params=params).run.id)

    def runs() -> list[DemoRun]:
        with db.read_sessions() as session:
            return list(session.scalars(select(DemoRun).where(DemoRun.id.in_(run_ids))))

    wait_for(lambda: all(r.status not in ACTIVE for r in runs()), 120, 0.2, "every run to finish")
    finished = sorted(runs(), key=lambda r: r.started_at or r.created_at)
    assert {r.worker for r in finished} == {gpu_worker.name}
    expected = [(preset, "failed" if preset == "to-device" else "done") for preset, _ in wanted]
    assert sorted((r.preset, r.status) for r in finished) == sorted(expected)
    for earlier, later in itertools.pairwise(finished):
        assert earlier.finished_at is not None and later.started_at is not None
        assert earlier.finished_at <= later.started_at, "two demos ran at once on one worker"
    queue.close()
    db.dispose()
