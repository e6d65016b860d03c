"""`tiercards worker`: takes demo jobs off the queue and runs them, one at a time, in TensorFlow.

One process holds:
- a huey consumer with ONE worker thread (demos are timed: two at once would skew each other);
- ONE DemoRunner: a child process with TensorFlow imported once and reused between jobs; cancel,
  a time limit or a crash kill it and start a fresh one (app/demos/runner.py);
- a heartbeat thread: every second it stores the current run's pending progress, refreshes its
  `heartbeat_at` (at least every HEARTBEAT interval), reads `cancel_requested`, and refreshes this
  worker's row in `worker_beats` so the web can tell whether any worker is alive.

SIGTERM or SIGINT stop it cleanly: the job in progress is stopped (its child killed) and marked
interrupted, the runner child is stopped, the worker's row is removed. SIGKILL cannot be caught:
then the run's heartbeat goes stale and readers mark it interrupted (app/service.py), and the
runner child exits on its own when it finds its parent's end of the pipe closed.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import logging
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from huey.consumer import Consumer, ConsumerStopped

from app.demos import service, tasks
from app.demos.presets import (
    DemoCancelled,
    DemoCrashed,
    DemoFailed,
    DemoTimedOut,
    ParamError,
    PresetUnavailable,
    time_limit_seconds,
)
from app.demos.queue import DemoQueue
from app.demos.runner import DemoRunner
from app.settings import Settings
from app.storage.base import utcnow
from app.storage.database import Database

log = logging.getLogger("tiercards.worker")

# Progress goes to the database at most this often (plus whatever the heartbeat flushes).
PROGRESS_WRITE_INTERVAL_S = 0.25
# How often the heartbeat thread wakes: flushes progress, reads cancel_requested.
TICK_S = 1.0
# A claim refused because the person has a run going elsewhere is retried after this long.
BUSY_RETRY_S = 2.0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def guess_device() -> tuple[str, str]:
    """What the worker can say before TensorFlow has run anything; the first result confirms it."""
    if not glob.glob("/dev/nvidia[0-9]*"):
        return "CPU (no GPU on this host)", "simulated"
    return "GPU device present (the first run confirms TensorFlow sees it)", "unknown"


class _Consumer(Consumer):
    """huey's consumer without its signal handlers: the worker handles SIGTERM/SIGINT itself."""

    def _set_signal_handlers(self) -> None:
        pass


@dataclass
class _Current:
    """The run in progress, shared by the worker thread and the heartbeat thread."""

    run_id: str
    cancel: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    pending: dict[str, Any] | None = None
    latest: dict[str, Any] | None = None
    last_write: float = 0.0
    last_heartbeat: float = field(default_factory=time.monotonic)


class DemoWorker:
    def __init__(self, settings: Settings, parent_pid: int | None = None) -> None:
        self.settings = settings
        self.parent_pid = parent_pid
        self.host = socket.gethostname()
        self.name = f"{self.host}:{os.getpid()}"
        self.db = Database(settings)
        self.queue = DemoQueue(settings.queue_url)
        self.runner = DemoRunner()
        self.stopping = threading.Event()
        self.started_at = utcnow()
        timeout = settings.demo_heartbeat_timeout_seconds
        # Several beats fit in one timeout, so one slow write never makes a live run look dead.
        self.heartbeat_interval = max(0.5, min(5.0, timeout / 3))
        self.device, self.compute = guess_device()
        self.tensorflow_version: str | None = None
        self._current: _Current | None = None
        self._consumer: _Consumer | None = None
        self._heartbeat: threading.Thread | None = None
        self._busy_at_stop = False

    # -- running -------------------------------------------------------------------------------

    def serve(self) -> int:
        """Run until SIGTERM/SIGINT (or the parent process is gone); returns the exit code."""
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        if importlib.util.find_spec("tensorflow") is None:
            log.error("TensorFlow is not installed here: pip install -e '.[worker]' (or tensorflow-cpu)")
            return 1
        with self.db.write_sessions() as session:
            swept = service.sweep_stale(session, self.settings.demo_heartbeat_timeout_seconds)
            session.commit()
            orphans = service.interrupt_orphans(session, self.host, pid_alive, self.name)
        if swept or orphans:
            log.info("marked %d run(s) left behind by dead workers as interrupted", swept + orphans)
        self._beat()
        self._heartbeat = threading.Thread(target=self._heartbeat_loop, name="heartbeat", daemon=True)
        self._heartbeat.start()
        log.info("worker %s: starting TensorFlow in the demo process", self.name)
        try:
            waited = self.runner.warm()
        except (DemoCrashed, DemoTimedOut) as error:
            log.error("the demo process could not start TensorFlow: %s", error)
            self._shutdown()
            return 1
        self.tensorflow_version = self.runner.tensorflow_version
        self._beat()
        log.info(
            "worker %s ready in %.1f s (TensorFlow %s, %s); queue %s",
            self.name,
            waited,
            self.tensorflow_version,
            self.device,
            self.queue.kind,
        )
        if self.stopping.is_set():
            self._shutdown()
            return 0
        tasks.bind(self)
        consumer = _Consumer(
            self.queue.huey,
            workers=1,
            worker_type="thread",
            periodic=False,
            initial_delay=0.1,
            backoff=1.15,
            max_delay=0.5,  # an idle worker looks at a SQLite queue twice a second
        )
        self._consumer = consumer
        consumer.start()
        health_check: float | None = time.monotonic()
        try:
            while not self.stopping.is_set():
                health_check = consumer.loop(health_check)
        except ConsumerStopped:
            pass
        self._shutdown()
        return 0

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("worker %s: %s received, stopping", self.name, signal.Signals(signum).name)
        self.request_stop()

    def request_stop(self) -> None:
        self.stopping.set()
        if self._consumer is not None:
            self._consumer.stop_flag.set()

    def _shutdown(self) -> None:
        self.stopping.set()
        consumer = self._consumer
        if consumer is not None:
            consumer.stop_flag.set()
            # The job in progress sees stopping through should_cancel within 0.2 s.
            for _, thread in consumer.worker_threads:
                thread.join(timeout=15)
            consumer.scheduler.join(timeout=3)
        pid = self.runner.child_pid
        if self._busy_at_stop and pid is not None:
            # Cancelling replaced the child with one still importing TensorFlow: no use for it.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.runner.close()
        if self._heartbeat is not None:
            self._heartbeat.join(timeout=3)
        with self.db.write_sessions() as session:
            service.forget_worker(session, self.name)
        tasks.bind(None)
        self.queue.close()
        self.db.dispose()
        log.info("worker %s stopped", self.name)

    # -- heartbeat -------------------------------------------------------------------------------

    def _beat(self) -> None:
        current = self._current
        with self.db.write_sessions() as session:
            service.beat(
                session,
                self.name,
                self.device,
                self.compute,
                self.tensorflow_version,
                current.run_id if current else None,
                self.started_at,
            )

    def _heartbeat_loop(self) -> None:
        last_beat = time.monotonic()
        while not self.stopping.wait(TICK_S):
            try:
                if self.parent_pid is not None and os.getppid() != self.parent_pid:
                    log.info("worker %s: the process that started it is gone, stopping", self.name)
                    self.request_stop()
                    return
                current = self._current
                if current is not None:
                    self._flush(current, tick=True)
                if time.monotonic() - last_beat >= self.heartbeat_interval:
                    self._beat()
                    last_beat = time.monotonic()
            except Exception:
                log.exception("heartbeat failed; trying again")

    def _flush(self, current: _Current, tick: bool = False) -> None:
        """Write pending progress (throttled) and, on a heartbeat tick, the heartbeat; pick up a
        cancel request either way."""
        with current.lock:
            now = time.monotonic()
            write_progress = (
                current.pending is not None and now - current.last_write >= PROGRESS_WRITE_INTERVAL_S
            )
            write_heartbeat = tick and now - current.last_heartbeat >= self.heartbeat_interval
            if write_progress or write_heartbeat:
                progress = current.pending if write_progress else None
                with self.db.write_sessions() as session:
                    cancel = service.record_progress(session, current.run_id, progress)
                current.last_heartbeat = now
                if write_progress:
                    current.pending, current.last_write = None, now
            elif tick:
                with self.db.read_sessions() as session:
                    run = service.get_run(session, current.run_id)
                    cancel = run is not None and run.cancel_requested
            else:
                return
        if cancel:
            current.cancel.set()

    # -- one job -----------------------------------------------------------------------------------

    def execute(self, run_id: str) -> None:
        """The body of the run_demo task."""
        if self.stopping.is_set():
            self.queue.enqueue(run_id)  # leave it for the next worker
            return
        timeout = self.settings.demo_heartbeat_timeout_seconds
        try:
            with self.db.write_sessions() as session:
                claimed = service.claim(session, run_id, self.name, timeout)
        except Exception:
            log.exception("run %s: could not claim it; trying again shortly", run_id)
            self.queue.enqueue(run_id, delay=BUSY_RETRY_S)
            return
        if claimed == "busy":
            log.info("run %s waits: its owner has another demo running", run_id)
            self.queue.enqueue(run_id, delay=BUSY_RETRY_S)
            return
        if claimed == "gone":
            log.info("run %s is no longer queued; skipped", run_id)
            return
        current = _Current(run_id)
        self._current = current
        limit = time_limit_seconds(claimed.preset, claimed.params)
        log.info("run %s: %s %s (limit %.0f s)", run_id, claimed.preset, claimed.params, limit)

        def on_progress(progress: dict[str, Any]) -> None:
            with current.lock:
                current.pending = current.latest = progress
            try:
                self._flush(current)
            except Exception:  # progress is best effort; the heartbeat flushes it again
                log.exception("run %s: could not store progress", run_id)

        def should_cancel() -> bool:
            return current.cancel.is_set() or self.stopping.is_set()

        status, result, error = "failed", None, None
        final_progress = None
        try:
            result = self.runner.run(
                claimed.preset, claimed.params, on_progress, should_cancel, timeout_s=limit
            )
            status = "done"
            final_progress = current.latest
        except DemoCancelled:
            status, error = self._stopped_or_cancelled(current)
        except DemoCrashed as crash:
            if self.stopping.is_set():
                status, error = self._stopped_or_cancelled(current)
            else:
                error = f"{crash.message[:1].upper()}{crash.message[1:]}. A fresh demo process was started; run it again."
        except DemoTimedOut:
            error = (
                f"The demo went past its time limit of {limit:.0f} s, so its process was killed and "
                "replaced. Try fewer steps or smaller costs."
            )
        except PresetUnavailable as unavailable:
            error = unavailable.message
        except ParamError as bad:
            error = f"{bad.param}: {bad.message}"
        except DemoFailed as failed:
            log.error("run %s failed:\n%s", run_id, failed.detail or failed.message)
            error = f"The pipeline raised an error: {failed.message}"
        except Exception as unexpected:
            log.exception("run %s: unexpected error", run_id)
            error = f"The worker hit an unexpected error: {type(unexpected).__name__}: {unexpected}"
        finally:
            self._current = None
        if result is not None:
            environment = result.get("environment", {})
            self.device = str(environment.get("device", self.device))
            self.compute = str(environment.get("compute", self.compute))
            self.tensorflow_version = environment.get("tensorflow_version", self.tensorflow_version)
        with self.db.write_sessions() as session:
            service.finish(session, run_id, self.name, status, result, error, final_progress)
        log.info("run %s: %s%s", run_id, status, f" ({error})" if error else "")
        with contextlib.suppress(Exception):
            self._beat()

    def _stopped_or_cancelled(self, current: _Current) -> tuple[str, str]:
        if current.cancel.is_set():
            return "cancelled", "Cancelled while running: the demo process was stopped and replaced."
        self._busy_at_stop = True
        return (
            "interrupted",
            "The worker was stopped while this demo ran (SIGTERM or Ctrl+C), so the run was "
            "interrupted. Run it again.",
        )
