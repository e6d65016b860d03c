"""Submit to first progress through the whole path a person uses: POST /api/demos → queue →
`tiercards worker` (warm TensorFlow child) → progress in the database → GET /api/demos/{run_id}.

    .venv/bin/python -m bench.demo_queue [--runs 10] [--redis]

Reports, per run and as median / max: seconds until the run is claimed (status running), until
its first measured step is visible through the API, and until it is done; and, as the baseline
measured in the same run, the same demo on a warm demo ChildRunner called directly (no web, no queue,
no database). The issue's target for a warm worker: first progress under 2 s. Exit status 1 if
the median misses it.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.factory import create_app
from app.settings import Settings
from app.storage import migrations
from app.web.security import CSRF_COOKIE
from bench._servers import free_port, start_worker
from bench._verdict import run, verdict

SMALL = {"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_size": 2}
TARGET_S = 2.0


def _one(client: TestClient) -> dict[str, float]:
    started = time.perf_counter()
    response = client.post("/api/demos", json={"preset": "placement", "params": SMALL})
    assert response.status_code == 202, response.text
    run_id = response.json()["run_id"]
    times: dict[str, float] = {}
    while True:
        doc: dict[str, Any] = client.get(f"/api/demos/{run_id}").json()
        now = time.perf_counter() - started
        if doc["status"] != "queued":
            times.setdefault("claimed", now)
        if doc["progress"].get("steps_done", 0) >= 1 or doc["status"] == "done":
            times.setdefault("first_step", now)
        if doc["status"] in ("done", "failed", "cancelled", "interrupted"):
            assert doc["status"] == "done", doc["error"]
            times["done"] = now
            return times
        time.sleep(0.01)


def _direct(runs: int) -> list[float]:
    """Baseline: seconds from run() to the first measured step on a warm runner in this process."""
    from app.demos import child
    from app.worker.runner import ChildRunner

    runner = ChildRunner(child.CHILD)
    runner.warm()
    try:
        out = []
        for _ in range(runs):
            started = time.perf_counter()
            first: list[float] = []

            def note(progress: dict[str, Any], started: float = started, first: list[float] = first) -> None:
                if progress["steps_done"] >= 1 and not first:
                    first.append(time.perf_counter() - started)

            child.run("placement", runner=runner, params=SMALL, on_progress=note)
            out.append(first[0])
        return out
    finally:
        runner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--redis", action="store_true", help="queue through a redis-server started here")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="tiercards-bench-queue-"))
    redis = None
    queue_url = ""
    if args.redis:
        port = free_port()
        redis = subprocess.Popen(
            [
                shutil.which("redis-server") or "/usr/bin/redis-server",
                "--port",
                str(port),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        queue_url = f"redis://127.0.0.1:{port}/0"
        time.sleep(0.3)
    settings = Settings(
        data_dir=folder,
        secret_key="bench-secret-key-that-is-long-enough-xx",
        queue_url=queue_url,
        # The in-process client's own host name.
        allowed_hosts=["testserver"],
    )
    migrations.upgrade(settings)
    worker = start_worker(settings, folder / "worker.log", ready=lambda beat: bool(beat.tensorflow_version))
    app = create_app(settings)
    try:
        with TestClient(app) as client:
            client.get("/healthz")
            client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
            _one(client)  # the first job after start pays for nothing extra, but settle anyway
            results = [_one(client) for _ in range(args.runs)]
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=30)
        app.state.db.dispose()
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)

    baseline = statistics.median(_direct(args.runs))
    queue = "redis" if args.redis else "sqlite"
    print(f"demo queue latency, {queue} queue, warm worker, {args.runs} runs of placement {SMALL}")
    print(f"  {'':12s} {'median':>8s} {'max':>8s}")
    for key, label in (("claimed", "claimed"), ("first_step", "first step"), ("done", "done")):
        values = [r[key] for r in results]
        print(f"  {label:12s} {statistics.median(values):7.2f}s {max(values):7.2f}s")
    median_first = statistics.median(r["first_step"] for r in results)
    print(
        f"baseline, a warm demo ChildRunner called directly: first step after {baseline:.2f} s; "
        f"through web, queue and worker: {median_first:.2f} s ({median_first / baseline:.1f}x)"
    )
    verdict(
        median_first < TARGET_S, f"submit to first progress (median) {median_first:.2f} s < {TARGET_S:.0f} s"
    )


if __name__ == "__main__":
    run(main)
