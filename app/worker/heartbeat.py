"""The worker's heartbeat: its row in `worker_beats`, and the liveness of the run it is executing.

A thread wakes every TICK_S: it stores the current run's pending progress, refreshes the run's
`heartbeat_at` (at least every `interval`), reads `cancel_requested`, and refreshes this worker's
row (with its capabilities: the queue lanes it reads) so the web can tell whether any worker, and
any GPU worker, is alive. With each beat it runs the demo upkeep (stale runs stored as
interrupted, lost runs queued again, old runs deleted). It also stops the worker when the process
that started it is gone.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from app.demos import claims
from app.storage.base import utcnow
from app.storage.database import Database
from app.worker.capabilities import Capabilities, guess_device

log = logging.getLogger("tiercards.worker")

# Progress goes to the database at most this often (plus whatever the heartbeat flushes).
PROGRESS_WRITE_INTERVAL_S = 0.25
# How often the heartbeat thread wakes: flushes progress, reads cancel_requested.
TICK_S = 1.0


@dataclass
class CurrentRun:
    """The run in progress, shared by the job thread and the heartbeat thread."""

    run_id: str
    cancel: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    pending: dict[str, Any] | None = None
    latest: dict[str, Any] | None = None
    last_write: float = 0.0
    last_heartbeat: float = field(default_factory=time.monotonic)


class Heartbeat:
    def __init__(
        self,
        db: Database,
        *,
        name: str,
        timeout_s: float,
        stopping: threading.Event,
        parent_pid: int | None,
        request_stop: Callable[[], None],
        capabilities: Capabilities,
        listed: Callable[[], list[str]],
        upkeep: Callable[[], None] | None = None,
    ) -> None:
        self.db = db
        self.capabilities = capabilities
        # The lanes its row lists, asked at each beat: they change as its children start and stop.
        self.listed = listed
        self.name = name
        self.stopping = stopping
        self.parent_pid = parent_pid
        self.request_stop = request_stop
        self.upkeep = upkeep
        self.started_at = utcnow()
        # Several beats fit in one timeout, so one slow write never makes a live run look dead.
        self.interval = max(0.5, min(5.0, timeout_s / 3))
        self.device, self.compute = guess_device()
        self.tensorflow_version: str | None = None
        self.current: CurrentRun | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.beat()
        self._thread = threading.Thread(target=self._loop, name="heartbeat", daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=3)

    def beat(self) -> None:
        """Refresh this worker's row in `worker_beats`."""
        current = self.current
        with self.db.write_sessions() as session:
            claims.beat(
                session,
                name=self.name,
                device=self.device,
                compute=self.compute,
                tensorflow_version=self.tensorflow_version,
                current_run_id=current.run_id if current else None,
                started_at=self.started_at,
                capabilities=self.listed(),
                gpu_setting=self.capabilities.setting,
            )

    def started(self, tensorflow_version: str | None, *, gpus: list[str], capabilities: Capabilities) -> None:
        """What the runner child reported once TensorFlow loaded replaces the guess."""
        self.tensorflow_version = tensorflow_version
        self.device, self.compute = (gpus[0], "real") if gpus else ("CPU", "simulated")
        self.capabilities = capabilities

    def learn(self, environment: dict[str, Any]) -> None:
        """What a result reports of the hardware TensorFlow used replaces the guess."""
        self.device = str(environment.get("device", self.device))
        self.compute = str(environment.get("compute", self.compute))
        self.tensorflow_version = environment.get("tensorflow_version", self.tensorflow_version)

    @contextmanager
    def watching(self, run_id: str) -> Iterator[CurrentRun]:
        """Keep `run_id` alive and pick up its cancel request while the block runs it."""
        current = CurrentRun(run_id)
        self.current = current
        try:
            yield current
        finally:
            self.current = None

    def report(self, progress: dict[str, Any]) -> None:
        """The running job's progress callback: stored now unless progress was written just before."""
        current = self.current
        if current is None:
            return
        with current.lock:
            current.pending = current.latest = progress
        try:
            self._flush(current)
        except Exception:  # progress is best effort; the heartbeat flushes it again
            log.exception("run %s: could not store progress", current.run_id)

    def _loop(self) -> None:
        last_beat = time.monotonic()
        while not self.stopping.wait(TICK_S):
            try:
                if self.parent_pid is not None and os.getppid() != self.parent_pid:
                    log.info("worker %s: the process that started it is gone, stopping", self.name)
                    self.request_stop()
                    return
                current = self.current
                if current is not None:
                    self._flush(current, tick=True)
                if time.monotonic() - last_beat >= self.interval:
                    self.beat()
                    last_beat = time.monotonic()
                    if self.upkeep is not None:
                        self.upkeep()
            except Exception:
                log.exception("heartbeat failed; trying again")

    def _flush(self, current: CurrentRun, tick: bool = False) -> None:
        """Write pending progress (throttled) and, on a heartbeat tick, the heartbeat; pick up a
        cancel request either way."""
        with current.lock:
            now = time.monotonic()
            write_progress = (
                current.pending is not None and now - current.last_write >= PROGRESS_WRITE_INTERVAL_S
            )
            write_heartbeat = tick and now - current.last_heartbeat >= self.interval
            if write_progress or write_heartbeat:
                progress = current.pending if write_progress else None
                with self.db.write_sessions() as session:
                    cancel = claims.record_progress(session, run_id=current.run_id, progress=progress)
                current.last_heartbeat = now
                if write_progress:
                    current.pending, current.last_write = None, now
            elif tick:
                with self.db.read_sessions() as session:
                    run = claims.get_run(session, current.run_id)
                    cancel = run is not None and run.cancel_requested
            else:
                return
        if cancel:
            current.cancel.set()
