"""Demos through the real queue and a real `tiercards worker`: submit, progress, result, cancel,
a worker killed mid-job, re-run, and jobs that outlive the web process."""

import signal
from typing import Any

import psutil
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.factory import create_app
from app.presets import PRESETS
from app.settings import Settings
from tests.helpers.clients import csrf_client
from tests.helpers.demos import (
    HEARTBEAT_TIMEOUT_S,
    LONG,
    SMALL,
    WorkerProcess,
    get_run,
    settle,
    submit,
    wait_for,
    wait_status,
)
from tests.helpers.payloads import demo_run_payload

pytestmark = pytest.mark.load

CARD = "tf-data-prefetch-last"


def running_with_steps(client: TestClient, run_id: str, steps: int = 2) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def check() -> bool:
        found.update(get_run(client, run_id))
        assert found["status"] in ("queued", "running"), found
        return found["status"] == "running" and found["progress"].get("steps_done", 0) >= steps

    wait_for(check, 60, 0.05, f"run {run_id} to be running")
    return found


def test_submit_then_poll_until_the_result_document_is_complete(demo_client: TestClient) -> None:
    response = demo_client.post("/api/demos", json=demo_run_payload(card_id=CARD))
    assert response.status_code == 202
    accepted = response.json()
    assert accepted["status"] == "queued" and accepted["url"] == f"/demos/{accepted['run_id']}"

    doc = wait_status(demo_client, accepted["run_id"], ("done", "failed"), timeout=60)
    assert doc["status"] == "done", doc["error"]
    assert doc["preset"] == "placement" and doc["card_id"] == CARD
    assert doc["params"] == {"input_ms": 3, "compute_ms": 3, "batch_size": 2, "steps": 6}
    assert doc["progress"]["steps_done"] == doc["progress"]["steps_total"] == 6
    assert [v["name"] for v in doc["variants"]] == [
        "no-prefetch",
        "prefetch-before-batch",
        "prefetch-last-autotune",
        "prefetch-last-2",
        "no-prefetch-tf-defaults",
    ]
    for variant in doc["variants"]:
        assert variant["model_step_ms"] > 0
        assert variant["p90_step_ms"] >= variant["median_step_ms"] > 0
        assert len(variant["steps"]) == 6
        assert set(variant["steps"][0]) >= {"start_ms", "input_ms", "compute_ms"}
    env = doc["environment"]
    assert env["tensorflow_version"] and env["cpu_count"] >= 1
    assert env["compute"] in ("real", "simulated")
    assert env["tf_data_options"]["experimental_optimization.inject_prefetch"] is False
    assert doc["reading"] and doc["error"] is None
    assert doc["started_at"] and doc["finished_at"] and doc["worker"]

    listed = demo_client.get("/api/demos", params={"card_id": CARD}).json()["runs"]
    assert listed[0]["run_id"] == accepted["run_id"]
    assert "steps" not in listed[0]["variants"][0]

    workers = demo_client.get("/api/workers").json()
    assert len(workers["workers"]) == 1 and workers["workers"][0]["tensorflow_version"]
    assert workers["workers"][0]["compute"] == env["compute"]  # the worker learned it from the run


def test_progress_reaches_the_database_while_it_runs(demo_client: TestClient) -> None:
    run_id = submit(demo_client, params=LONG)
    seen: list[tuple[str, int]] = []

    def check() -> bool:
        doc = get_run(demo_client, run_id)
        p = doc["progress"]
        if doc["status"] == "running":
            seen.append((p["variant"], p["steps_done"]))
        return len({step for _, step in seen}) >= 4

    wait_for(check, 60, 0.1, "several progress updates")
    variant, steps_done = seen[-1]
    assert variant in PRESETS["placement"].variant_names and 0 < steps_done <= LONG["steps"]
    page = demo_client.get(f"/demos/{run_id}/status", headers={"HX-Request": "true"})
    soup = BeautifulSoup(page.text, "html.parser")
    status = soup.select_one("#demo-status")
    assert status is not None and status["hx-trigger"] == "every 1s"
    assert soup.select_one("progress.demo-progress") is not None
    assert "step" in soup.select_one(".progress-text").text


def test_cancel_stops_a_running_demo_and_the_worker_goes_on(
    demo_client: TestClient, worker: WorkerProcess
) -> None:
    run_id = submit(demo_client, params=LONG)
    running_with_steps(demo_client, run_id)
    children = worker.runner_child_pids()
    response = demo_client.post(f"/api/demos/{run_id}/cancel")
    assert response.status_code == 202
    assert response.json() == {"run_id": run_id, "status": "running", "cancel_requested": True}

    doc = wait_status(demo_client, run_id, ("cancelled", "done", "failed"), timeout=60)
    assert doc["status"] == "cancelled"
    assert "Cancelled" in doc["error"] and doc["finished_at"]
    # The child that ran it was killed and replaced.
    wait_for(lambda: not any(psutil.pid_exists(pid) for pid in children), 10, 0.1, "the old child to go")
    assert demo_client.post(f"/api/demos/{run_id}/cancel").status_code == 409

    again = submit(demo_client, params=SMALL)
    assert wait_status(demo_client, again, ("done", "failed"), timeout=60)["status"] == "done"


def test_a_finished_run_page_has_timelines_table_reading_and_environment(demo_client: TestClient) -> None:
    run_id = submit(demo_client, params=SMALL, card_id=CARD)
    wait_status(demo_client, run_id, ("done",), timeout=60)

    page = demo_client.get(f"/demos/{run_id}")
    assert page.status_code == 200
    soup = BeautifulSoup(page.text, "html.parser")
    assert soup.select_one("#demo-status")["data-status"] == "done"
    assert soup.select_one("#demo-status").get("hx-trigger") is None  # polling has stopped
    timelines = soup.select("figure.timeline svg.timeline-svg")
    assert len(timelines) == len(PRESETS["placement"].variants)
    first = soup.select_one('figure.timeline[data-variant="no-prefetch"]')
    assert len(first.select("g.bars-compute rect")) == 6
    assert first.select_one("desc").text.startswith("No prefetch: 6 steps")
    rows = soup.select("table.comparison tbody tr")
    assert [r["data-variant"] for r in rows] == PRESETS["placement"].variant_names
    assert all(r.select_one(".verdict").text.strip() for r in rows)
    assert soup.select_one(".legend") is not None and "Input wait" in soup.select_one(".legend").text
    assert soup.select_one(".reading").text.strip()
    env = soup.select_one("dl.environment").text
    assert "TensorFlow" in env and "CPUs" in env
    assert "What TensorFlow does by default" in page.text
    assert "inject_prefetch" in page.text
    history = soup.select("#demo-history .demo-history-row")
    assert history and history[0]["data-run-id"] == run_id

    card_history = demo_client.get(f"/cards/{CARD}/demo-runs", headers={"HX-Request": "true"})
    rows_on_card = BeautifulSoup(card_history.text, "html.parser").select(".demo-history-row")
    assert rows_on_card[0]["data-run-id"] == run_id
    assert "fastest:" in rows_on_card[0].text


def test_a_shuffle_run_page_shows_the_first_batch_and_the_memory_held(demo_client: TestClient) -> None:
    params = {"steps": 5, "input_ms": 4, "compute_ms": 2, "batch_size": 2, "example_kb": 64}
    sizes = {"small_buffer": 2, "medium_buffer": 8, "large_buffer": 32}
    run_id = submit(demo_client, preset="shuffle", params=params | sizes)
    wait_status(demo_client, run_id, ("done",), timeout=60)

    soup = BeautifulSoup(demo_client.get(f"/demos/{run_id}").text, "html.parser")
    first = soup.select("table.first-batch tbody tr")
    assert [r["data-variant"] for r in first] == PRESETS["shuffle"].variant_names
    for row in first:
        assert row.select_one('[data-label="Measured"]').text.strip().endswith(" ms")
        assert row.select_one('[data-label="Model"]').text.strip().endswith(" ms")
    held = [
        r.select_one('[data-label="Peak held"]').text.strip() for r in soup.select("table.memory tbody tr")
    ]
    # Between steps each buffer holds one example fewer than its size.
    assert held == ["1 examples", "7 examples", "31 examples"]
    caps = [
        r.select_one('[data-label="Model\'s cap"]').text.strip() for r in soup.select("table.memory tbody tr")
    ]
    assert caps == ["0.125 MB", "0.5 MB", "2 MB"]


def test_jobs_survive_a_restart_of_the_web_process(demo_settings: Settings, worker: WorkerProcess) -> None:
    first = create_app(demo_settings)
    with csrf_client(first) as client:
        run_id = submit(client, params=SMALL)
    first.state.db.dispose()  # the web process is gone; the run is in the database and the queue

    second = create_app(demo_settings)
    try:
        with csrf_client(second) as client:
            assert wait_status(client, run_id, ("done", "failed"), timeout=60)["status"] == "done"
    finally:
        settle(second.state.db)
        second.state.db.dispose()


def test_a_worker_killed_mid_job_leaves_the_run_interrupted_and_it_can_run_again(
    demo_client: TestClient, worker: WorkerProcess
) -> None:
    run_id = submit(demo_client, params=LONG)
    running_with_steps(demo_client, run_id)
    children = worker.runner_child_pids()
    worker.signal(signal.SIGKILL)
    worker.process.wait(timeout=10)  # type: ignore[union-attr]

    # How soon after the heartbeat timeout it reads interrupted is bench/faults.py's figure.
    doc = wait_status(demo_client, run_id, ("interrupted",), timeout=HEARTBEAT_TIMEOUT_S + 60)
    assert "heartbeat" in doc["error"]
    # The orphaned runner child notices its parent is gone and exits by itself.
    wait_for(
        lambda: not any(psutil.pid_exists(pid) for pid in children), 20, 0.2, "the orphaned child to exit"
    )
    page = demo_client.get(f"/demos/{run_id}")
    assert "Run it again" in page.text

    worker.start()
    response = demo_client.post(f"/api/demos/{run_id}/rerun")
    assert response.status_code == 202
    again = response.json()
    assert again["rerun_of"] == run_id and again["run_id"] != run_id
    doc = wait_status(demo_client, again["run_id"], ("done", "failed", "interrupted"), timeout=90)
    assert doc["status"] == "done", doc["error"]
    assert doc["params"] == get_run(demo_client, run_id)["params"]


def test_a_runner_child_killed_mid_run_fails_that_run_and_the_next_one_completes(
    demo_client: TestClient, worker: WorkerProcess
) -> None:
    run_id = submit(demo_client, params=LONG)
    behind = submit(demo_client, params=SMALL)
    running_with_steps(demo_client, run_id)
    [child] = worker.runner_child_pids()
    psutil.Process(child).kill()
    doc = wait_status(demo_client, run_id, ("failed", "interrupted"), timeout=HEARTBEAT_TIMEOUT_S + 60)
    assert "killed by signal 9" in doc["error"] and "run it again" in doc["error"]
    assert worker.alive()
    assert wait_status(demo_client, behind, ("done", "failed"), timeout=90)["status"] == "done"


def test_a_run_queued_behind_a_killed_worker_runs_on_the_next_worker(
    demo_client: TestClient, worker: WorkerProcess
) -> None:
    run_id = submit(demo_client, params=LONG)
    behind = submit(demo_client, params=SMALL)
    running_with_steps(demo_client, run_id)
    worker.signal(signal.SIGKILL)
    worker.process.wait(timeout=10)  # type: ignore[union-attr]
    wait_status(demo_client, run_id, ("interrupted",), timeout=HEARTBEAT_TIMEOUT_S + 10)
    worker.start()
    assert wait_status(demo_client, behind, ("done", "failed"), timeout=120)["status"] == "done"
