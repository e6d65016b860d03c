"""Faults under load on the scaled-out deployment (bench/_topology.py: two replicas behind nginx,
PostgreSQL, Redis, two demo workers), each measured, not assumed:

1. kill -9 one replica mid-load: errors before and after, and whether every acknowledged answer is
   stored; the other replica must keep serving (errors stop within a few seconds).
2. restart PostgreSQL mid-load (a fast shutdown drops every connection): errors while it is down,
   errors after it is back; the app must recover without a restart of its own.
3. kill -9 the worker running a demo: how long until the run shows as interrupted (the heartbeat
   timeout is 10 s here), and whether the next demo then runs on the surviving worker.

The load is bench/team_locustfile.py; the baseline for each error count is the same load's
first window, before the fault.

    .venv/bin/python -m bench.faults [--users 100] [--seconds 40]
"""

import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import httpx

from bench._servers import ROOT
from bench._topology import Deployment, postgres, scaled_out
from bench._verdict import run, verdict

FAULT_AT_S = 12.0
SETTLE_S = 5.0
PERSON = {"Remote-User": "fault-bench"}
LONG_DEMO = {
    "preset": "placement",
    "params": {"steps": 60, "input_ms": 20, "compute_ms": 20, "batch_size": 2},
}
SHORT_DEMO = {"preset": "placement", "params": {"steps": 6, "input_ms": 3, "compute_ms": 3}}


def _load(deployment: Deployment, users: int, seconds: int, name: str) -> subprocess.Popen[bytes]:
    args = [str(Path(sys.executable).with_name("locust")), "-f", str(ROOT / "bench" / "team_locustfile.py")]
    args += ["--headless", "--users", str(users), "--spawn-rate", str(users), "--run-time", f"{seconds}s"]
    args += ["--host", deployment.url, "--csv", str(deployment.folder / name), "--csv-full-history"]
    args += ["--only-summary", "--loglevel", "ERROR"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_ACKS": str(deployment.folder / f"{name}-acks.txt")}
    return subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _errors_by_window(deployment: Deployment, name: str, fault_at: float) -> tuple[int, int, int, int]:
    """Requests, and failures before the fault (wall clock `fault_at`), in the SETTLE_S after it,
    and later (locust's history has one row a second, stamped with the wall clock)."""
    with open(deployment.folder / f"{name}_stats_history.csv", newline="") as file:
        rows = [row for row in csv.DictReader(file) if row["Name"] == "Aggregated"]
    before = during = after = 0
    previous = 0
    for row in rows:
        failures = int(row["Total Failure Count"])
        new, previous = failures - previous, failures
        # A row counts what happened in the second before its stamp.
        stamp = int(row["Timestamp"]) - 1
        if stamp < fault_at - 1:
            before += new
        elif stamp < fault_at + SETTLE_S:
            during += new
        else:
            after += new
    return int(rows[-1]["Total Request Count"]), before, during, after


def _failure_kinds(deployment: Deployment, name: str) -> str:
    with open(deployment.folder / f"{name}_failures.csv", newline="") as file:
        kinds = [f"{row['Occurrences']}x {row['Name']}: {row['Error']}" for row in csv.DictReader(file)]
    return "; ".join(kinds) or "none"


def _under_load(
    deployment: Deployment, users: int, seconds: int, name: str, fault: Callable[[], str]
) -> bool:
    load = _load(deployment, users, seconds, name)
    time.sleep(FAULT_AT_S)
    fault_at = time.time()
    what = fault()
    load.wait()
    requests, before, during, after = _errors_by_window(deployment, name, fault_at)
    acknowledged = {int(line) for line in (deployment.folder / f"{name}-acks.txt").read_text().split()}
    missing = len(acknowledged - deployment.attempt_ids())
    ok = verdict(
        before == 0 and after == 0 and missing == 0,
        f"{name}: {what}; {requests} requests; errors before {before}, in the {SETTLE_S:.0f} s after "
        f"{during}, later {after}; acknowledged answers {len(acknowledged)}, missing {missing} "
        "(targets: 0 errors before and later, 0 missing)",
    )
    print(f"  failures: {_failure_kinds(deployment, name)}")
    return ok


def kill_a_replica(deployment: Deployment, users: int, seconds: int) -> bool:
    victim = deployment.replicas[0]

    def fault() -> str:
        victim.send_signal(signal.SIGKILL)
        return f"replica pid {victim.pid} killed with SIGKILL at {FAULT_AT_S:.0f} s"

    return _under_load(deployment, users, seconds, "kill-replica", fault)


def restart_postgres(deployment: Deployment, users: int, seconds: int) -> bool:
    def fault() -> str:
        began = time.monotonic()
        postgres("restart", deployment.folder / "postgres")
        return f"PostgreSQL restarted at {FAULT_AT_S:.0f} s (down and up in {time.monotonic() - began:.1f} s)"

    return _under_load(deployment, users, seconds, "restart-postgres", fault)


def _client(deployment: Deployment) -> httpx.Client:
    client = httpx.Client(base_url=deployment.url, headers=PERSON, timeout=30)
    client.get("/healthz")
    client.headers["X-CSRF-Token"] = client.cookies["tiercards_csrf"]
    return client


def _wait_status(client: httpx.Client, run_id: str, wanted: set[str], timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run: dict[str, str] = client.get(f"/api/demos/{run_id}").json()
        if run["status"] in wanted:
            return run
        time.sleep(0.1)
    raise RuntimeError(f"run {run_id} not {wanted} within {timeout:.0f} s")


def kill_a_worker(deployment: Deployment) -> bool:
    with closing(_client(deployment)) as client:
        # Both workers up, TensorFlow loaded: a first small run on each lane warms them.
        _wait_status(client, client.post("/api/demos", json=SHORT_DEMO).json()["run_id"], {"done"}, 180)
        run_id = client.post("/api/demos", json=LONG_DEMO).json()["run_id"]
        running = _wait_status(client, run_id, {"running"}, 60)
        pid = int(running["worker"].rsplit(":", 1)[1])
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        ended = _wait_status(client, run_id, {"interrupted", "failed", "done"}, 120)
        noticed = time.monotonic() - killed
        next_id = client.post("/api/demos", json=SHORT_DEMO).json()["run_id"]
        after = _wait_status(client, next_id, {"done", "failed", "interrupted"}, 120)
        ran_in = time.monotonic() - killed - noticed
    return verdict(
        ended["status"] == "interrupted" and after["status"] == "done" and noticed <= 10 + 5,
        f"kill-worker: worker pid {pid} killed with SIGKILL mid-run; the run read {ended['status']!r} "
        f"after {noticed:.1f} s (heartbeat timeout 10 s); the next demo was {after['status']!r} "
        f"{ran_in:.1f} s later, on {after['worker']}",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with scaled_out(Path(folder) / "one", workers=2) as deployment:
            kill_a_worker(deployment)
            restart_postgres(deployment, args.users, args.seconds)
        with scaled_out(Path(folder) / "two") as deployment:
            kill_a_replica(deployment, args.users, args.seconds)


if __name__ == "__main__":
    run(main)
