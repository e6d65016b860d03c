"""Scaled out: two `tiercards worker` processes on one Redis queue and one database.

Every job runs exactly once, even when it is queued twice, and both workers take some (a worker
busy with a demo takes nothing else, so the idle one takes the next job). A worker killed with
SIGKILL mid-run leaves its run interrupted within the heartbeat timeout, saying so, and the job
queued behind it runs on the surviving worker.

The evidence is each worker's own log (which runs it started, finished, skipped) beside the claim
stored in the database (the run's `worker`), not just the runs' final status.
"""

import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts import service as accounts
from app.demos.models import DemoRun
from app.demos.runs import Submitter
from app.factory import create_app
from app.jobs.queue import JobQueue
from app.settings import Settings
from app.storage.database import Database
from tests.helpers.clients import csrf_client
from tests.helpers.demos import (
    HEARTBEAT_TIMEOUT_S,
    LONG,
    SMALL,
    WorkerProcess,
    demo_settings_for,
    get_run,
    redis_database,
    settle,
    submit,
    wait_for,
    wait_status,
)

pytestmark = pytest.mark.load

RUNS = 8


def started(worker: WorkerProcess) -> list[str]:
    """The runs this worker claimed and started, in order, from its log."""
    return re.findall(r"run ([0-9a-f]{32}): [a-z-]+ \{", worker.log_text())


def finished(worker: WorkerProcess, status: str = "done") -> list[str]:
    return re.findall(rf"run ([0-9a-f]{{32}}): {status}\b", worker.log_text())


def skipped(worker: WorkerProcess) -> list[str]:
    return re.findall(r"run ([0-9a-f]{32}) is no longer queued; skipped", worker.log_text())


@pytest.fixture(scope="module")
def scaled_settings(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Settings:
    return demo_settings_for(tmp_path_factory.mktemp("scaled-data"), queue_url=redis_database(redis_url, 2))


@pytest.fixture(scope="module")
def workers(scaled_settings: Settings) -> Iterator[list[WorkerProcess]]:
    data = Path(scaled_settings.data_dir)
    pair = [WorkerProcess(scaled_settings, data / f"worker-{name}.log") for name in ("a", "b")]
    try:
        for worker in pair:
            worker.launch()
        for worker in pair:
            worker.wait_ready(180)
        yield pair
    finally:
        for worker in pair:
            worker.close()


@pytest.fixture(scope="module")
def db(scaled_settings: Settings) -> Iterator[Database]:
    database = Database(scaled_settings)
    yield database
    database.dispose()


@pytest.fixture
def client(scaled_settings: Settings, workers: list[WorkerProcess], db: Database) -> Iterator[TestClient]:
    app = create_app(scaled_settings)
    with csrf_client(app) as client:
        yield client
    settle(db)
    app.state.db.dispose()


def test_two_workers_on_one_redis_queue_run_each_job_exactly_once(
    scaled_settings: Settings, workers: list[WorkerProcess], db: Database
) -> None:
    assert len({w.name for w in workers}) == 2
    queue = JobQueue(scaled_settings.queue_url)
    submitter = Submitter(queue, per_minute=10_000)
    # One run per person: a person's runs take turns, and these should be free to run at once.
    with db.write_sessions() as session:
        people = [
            accounts.ensure_user(session, name=f"learner-{i}", role=None, how="test").id for i in range(RUNS)
        ]
        session.commit()
    run_ids = []
    for person in people:
        with db.write_sessions() as session:
            run_ids.append(submitter.submit(session, user_id=person, preset="placement", params=SMALL).run.id)
    # Each job a second time, as the upkeep does for a job it takes for lost: still one run each.
    for run_id in run_ids:
        queue.enqueue(run_id, lane="cpu")

    def statuses() -> dict[str, tuple[str, str | None]]:
        with db.read_sessions() as session:
            rows = session.execute(
                select(DemoRun.id, DemoRun.status, DemoRun.worker).where(DemoRun.id.in_(run_ids))
            )
            return {run_id: (status, worker) for run_id, status, worker in rows}

    wait_for(
        lambda: all(s != "queued" and s != "running" for s, _ in statuses().values()), 120, 0.2, "every run"
    )
    wait_for(
        lambda: sum(len(skipped(w)) for w in workers) == RUNS, 30, 0.2, "every second copy to be skipped"
    )
    stored = statuses()
    assert {status for status, _ in stored.values()} == {"done"}

    by_log = {w.name: started(w) for w in workers}
    every_start = [run_id for runs in by_log.values() for run_id in runs]
    assert sorted(every_start) == sorted(run_ids)  # each started once, by one worker, in all
    for name, runs in by_log.items():
        worker = next(w for w in workers if w.name == name)
        assert sorted(finished(worker)) == sorted(runs)  # ... and finished by the worker that started it
        assert all(stored[run_id][1] == name for run_id in runs)  # the stored claim names it too
    # While one worker runs a demo it takes nothing else, so the other takes the next job.
    assert all(by_log.values()), by_log
    assert queue.run_ids() == set()  # nothing left behind on the queue
    queue.close()


def test_a_worker_killed_mid_run_interrupts_it_and_the_survivor_runs_the_next_job(
    client: TestClient, workers: list[WorkerProcess], db: Database
) -> None:
    run_id = submit(client, params=LONG)

    def running() -> bool:
        doc = get_run(client, run_id)
        return doc["status"] == "running" and doc["progress"]["steps_done"] >= 2

    wait_for(running, 60, 0.05, "the first run to be under way")
    # Queued behind it: a person's demos run one at a time, so this one waits for the first
    # (the idle worker takes it, finds its owner busy, and puts it back for a little later).
    behind = submit(client, params=SMALL)
    victim_name = get_run(client, run_id)["worker"]
    victim = next(w for w in workers if w.name == victim_name)
    survivor = next(w for w in workers if w is not victim)
    wait_for(lambda: f"run {behind} waits" in survivor.log_text(), 10, 0.1, "the survivor to find it waiting")
    assert get_run(client, behind)["status"] == "queued"
    victim.signal(signal.SIGKILL)
    assert victim.process is not None
    victim.process.wait(timeout=10)

    # How soon after the heartbeat timeout it reads interrupted is bench/faults.py's figure.
    doc = wait_status(client, run_id, ("interrupted",), timeout=HEARTBEAT_TIMEOUT_S + 60)
    assert "stopped sending heartbeats" in doc["error"] and "killed" in doc["error"]
    page = BeautifulSoup(client.get(f"/demos/{run_id}").text, "html.parser")
    assert page.select_one("#demo-status")["data-status"] == "interrupted"
    assert "stopped sending heartbeats" in page.select_one(".run-error").text

    after = wait_status(client, behind, ("done", "failed", "interrupted"), timeout=60)
    assert after["status"] == "done", after["error"]
    assert after["worker"] == survivor.name
    assert behind in started(survivor) and behind not in started(victim)
    with db.read_sessions() as session:  # stored, not only shown: the survivor's upkeep wrote it
        assert session.scalar(select(DemoRun.status).where(DemoRun.id == run_id)) == "interrupted"

    # The dead worker drops out of the list once its last beat is older than the timeout.
    def alive() -> list[str]:
        return [w["name"] for w in client.get("/api/workers").json()["workers"]]

    assert wait_for(
        lambda: alive() == [survivor.name], HEARTBEAT_TIMEOUT_S + 60, 0.2, "only the survivor listed"
    )
