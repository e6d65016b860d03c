"""Real demo workers for the tests: `tiercards worker` processes on temporary data and queues.

Nothing is mocked: a worker here is the same command `tiercards serve` starts, with TensorFlow in
its runner child. Starting one costs the TensorFlow import (seconds), so one worker serves the
whole session; tests that kill it start it again. The heartbeat timeout is 5 s so an abandoned
run turns `interrupted` quickly.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app import PROJECT_ROOT
from app.demos import claims
from app.demos.models import DemoRun, WorkerBeat
from app.jobs.queue import lanes_for
from app.settings import Settings
from app.storage import migrations
from app.storage.base import utcnow
from app.storage.database import Database
from tests.services import database_url

HEARTBEAT_TIMEOUT_S = 5.0
SECRET = "test-only-secret-key-that-is-long-enough"
# Finishes in about a second: 5 variants x 6 steps x ~6 ms, plus building each pipeline.
SMALL = {"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_size": 2}
# Runs long enough to be cancelled or killed mid-way (~10 s), short enough to re-run in a test.
LONG = {"steps": 60, "input_ms": 20, "compute_ms": 20, "batch_size": 2}


def demo_settings_for(data_dir: Path, queue_url: str | None = None) -> Settings:
    """Settings for a fresh data folder, its database migrated."""
    settings = Settings(
        data_dir=data_dir,
        database_url=database_url(data_dir),
        content_dir=PROJECT_ROOT / "content",
        secret_key=SECRET,
        content_poll_seconds=0,
        demo_heartbeat_timeout_seconds=HEARTBEAT_TIMEOUT_S,
        queue_url=queue_url or "",
        allowed_hosts=["testserver", "localhost", "127.0.0.1"],
        # These tests start many runs a minute on purpose; the limit has its own test.
        demo_submits_per_minute=10_000,
    )
    migrations.upgrade(settings)
    return settings


def env_for(settings: Settings) -> dict[str, str]:
    return {
        **os.environ,
        "DATA_DIR": str(settings.data_dir),
        "DATABASE_URL": settings.database_url,
        "QUEUE_URL": settings.queue_url,
        "CONTENT_DIR": str(settings.content_dir),
        "SECRET_KEY": SECRET,
        "DEMO_HEARTBEAT_TIMEOUT_SECONDS": str(settings.demo_heartbeat_timeout_seconds),
        "KEEP_RECORDINGS": "1" if settings.keep_recordings else "0",
        "RECORDING_RETENTION_DAYS": str(settings.recording_retention_days),
        "SPEECH_MODEL": settings.speech_model or "",
    }


@dataclass
class WorkerProcess:
    """One `tiercards worker` subprocess, restartable; `args` go after `worker` (e.g. --gpu)."""

    settings: Settings
    log_path: Path
    args: tuple[str, ...] = ()
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    _db: Database | None = field(default=None, repr=False)

    @property
    def db(self) -> Database:
        if self._db is None:
            self._db = Database(self.settings)
        return self._db

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @property
    def name(self) -> str:
        return f"{socket.gethostname()}:{self.pid}"

    def start(self, timeout: float = 120.0) -> None:
        self.launch()
        self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the process without waiting for TensorFlow (start several, then wait_ready each)."""
        self.starts += 1
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker", *self.args],
            cwd=PROJECT_ROOT,
            env=env_for(self.settings),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def wait_ready(self, timeout: float) -> None:
        """Until the worker's heartbeat row says TensorFlow is loaded in its runner child."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited with {self.process.returncode}:\n{self.log_tail()}")
            with self.db.read_sessions() as session:
                beat = session.get(WorkerBeat, self.name)
                if beat is not None and beat.tensorflow_version:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"worker not ready within {timeout} s:\n{self.log_tail()}")

    def runner_child_pids(self) -> list[int]:
        """The runner's child: the one with TensorFlow loaded (the speech, claims and voice children
        load none of it)."""
        return [pid for pid in self._children() if self._loaded(pid, "tensorflow")]

    def claims_child_pids(self) -> list[int]:
        """The claims child: the one with onnxruntime loaded."""
        return [pid for pid in self._children() if self._loaded(pid, "onnxruntime")]

    def _children(self) -> list[int]:
        import psutil

        return [
            child.pid
            for child in psutil.Process(self.pid).children()
            if "resource_tracker" not in " ".join(child.cmdline())
        ]

    @staticmethod
    def _loaded(pid: int, *libraries: str) -> bool:
        import psutil

        maps = psutil.Process(pid).memory_maps()
        return any(library in mapping.path for mapping in maps for library in libraries)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ensure_running(self) -> None:
        if not self.alive():
            self.start()

    def signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def stop(self, timeout: float = 120.0) -> int:
        """SIGTERM and the exit code; a worker still loading its libraries finishes that first,
        which on a busy machine takes tens of seconds, so only a hang outlasts `timeout`."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            raise

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    def close(self) -> None:
        try:
            self.stop()
        finally:
            if self._db is not None:
                self._db.dispose()


def tiercards(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the `tiercards` command on `settings`' data, database and queue."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=PROJECT_ROOT,
        env=env_for(settings),
        capture_output=True,
        text=True,
        timeout=60,
    )


def redis_database(redis_url: str, number: int) -> str:
    """Database `number` of the session's redis-server, emptied: each module that queues through
    Redis has its own, so no module's jobs reach another's workers."""
    url = f"{redis_url.rpartition('/')[0]}/{number}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    return url


def running_worker(settings: Settings) -> Iterator[WorkerProcess]:
    """For a fixture: a started worker, stopped at teardown."""
    process = WorkerProcess(settings, settings.data_dir / "worker.log")
    process.start()
    yield process
    process.close()


def wait_for(check: Callable[[], Any], timeout: float, interval: float = 0.1, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def get_run(client: TestClient | httpx.Client, run_id: str) -> dict[str, Any]:
    response = client.get(f"/api/demos/{run_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def wait_status(
    client: TestClient | httpx.Client, run_id: str, statuses: tuple[str, ...], timeout: float = 90.0
) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def check() -> bool:
        found.update(get_run(client, run_id))
        return found["status"] in statuses

    wait_for(check, timeout, 0.1, f"run {run_id} to be {' or '.join(statuses)} (last: {found.get('status')})")
    return found


def submit(client: TestClient | httpx.Client, preset: str = "placement", **body: Any) -> str:
    response = client.post("/api/demos", json={"preset": preset, **body})
    assert response.status_code == 202, response.text
    run_id: str = response.json()["run_id"]
    return run_id


def settle(db: Database) -> None:
    """Leave no run queued or running for the next test (each person may queue only three)."""
    with db.write_sessions() as session:
        session.execute(
            update(DemoRun).where(DemoRun.status == "queued").values(status="cancelled", error="test cleanup")
        )
        session.execute(update(DemoRun).where(DemoRun.status == "running").values(cancel_requested=True))
        session.commit()

    def none_running() -> bool:
        with db.read_sessions() as session:
            return session.scalar(select(DemoRun.id).where(DemoRun.status == "running")) is None

    wait_for(none_running, 30, 0.2, "running demos to stop")


def demo_lanes(worker: dict[str, Any]) -> list[str]:
    """The demo lanes among a listed worker's capabilities (it lists its speech lanes too, once its
    speech model has loaded)."""
    demo = lanes_for(True)
    return [lane for lane in worker["capabilities"] if lane in demo]


def beat_row(db: Database, name: str, capabilities: list[str], device: str = "CPU") -> None:
    """A worker's heartbeat row, as `tiercards worker` writes it."""
    with db.write_sessions() as session:
        claims.beat(
            session,
            name=name,
            device=device,
            compute="simulated",
            tensorflow_version="2.x",
            current_run_id=None,
            started_at=utcnow(),
            capabilities=capabilities,
            gpu_setting="auto",
        )
