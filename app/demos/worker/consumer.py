"""The worker process: start-up, the huey consumer loop that hands jobs to the executor, signals
and a clean stop."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import signal
import socket
import threading
import time
from types import FrameType

from huey.consumer import Consumer, ConsumerStopped

from app.demos import service, tasks
from app.demos.presets import DemoCrashed, DemoTimedOut
from app.demos.queue import DemoQueue
from app.demos.runner import DemoRunner
from app.demos.worker.execution import JobExecutor
from app.demos.worker.heartbeat import Heartbeat
from app.settings import Settings
from app.storage.database import Database

log = logging.getLogger("tiercards.worker")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Consumer(Consumer):
    """huey's consumer without its signal handlers: the worker handles SIGTERM/SIGINT itself."""

    def _set_signal_handlers(self) -> None:
        pass


class DemoWorker:
    def __init__(self, settings: Settings, parent_pid: int | None = None) -> None:
        self.settings = settings
        self.host = socket.gethostname()
        self.name = f"{self.host}:{os.getpid()}"
        self.db = Database(settings)
        self.queue = DemoQueue(settings.queue_url)
        self.runner = DemoRunner(settings.demo_memory_limit_mb)
        self.stopping = threading.Event()
        timeout = settings.demo_heartbeat_timeout_seconds
        self.heartbeat = Heartbeat(
            self.db, self.name, timeout, self.stopping, parent_pid, self.request_stop, self._upkeep
        )
        self.jobs = JobExecutor(
            self.name, timeout, self.db, self.queue, self.runner, self.heartbeat, self.stopping
        )
        self._consumer: _Consumer | None = None

    def serve(self) -> int:
        """Run until SIGTERM/SIGINT (or the parent process is gone); returns the exit code."""
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        if importlib.util.find_spec("tensorflow") is None:
            log.error("TensorFlow is not installed here: pip install -e '.[worker]' (or tensorflow-cpu)")
            return 1
        self._sweep()
        self.heartbeat.start()
        log.info("worker %s: starting TensorFlow in the demo process", self.name)
        try:
            waited = self.runner.warm()
        except (DemoCrashed, DemoTimedOut) as error:
            log.error("the demo process could not start TensorFlow: %s", error)
            self._shutdown()
            return 1
        self.heartbeat.tensorflow_version = self.runner.tensorflow_version
        self.heartbeat.beat()
        log.info(
            "worker %s ready in %.1f s (TensorFlow %s, %s); queue %s",
            self.name,
            waited,
            self.heartbeat.tensorflow_version,
            self.heartbeat.device,
            self.queue.kind,
        )
        if not self.stopping.is_set():
            self._consume()
        self._shutdown()
        return 0

    def request_stop(self) -> None:
        self.stopping.set()
        if self._consumer is not None:
            self._consumer.stop_flag.set()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("worker %s: %s received, stopping", self.name, signal.Signals(signum).name)
        self.request_stop()

    def _sweep(self) -> None:
        """Mark interrupted the runs that workers which died left running."""
        with self.db.write_sessions() as session:
            swept = service.sweep_stale(session, self.settings.demo_heartbeat_timeout_seconds)
            session.commit()
            orphans = service.interrupt_orphans(session, self.host, pid_alive, self.name)
        if swept or orphans:
            log.info("marked %d run(s) left behind by dead workers as interrupted", swept + orphans)

    def _upkeep(self) -> None:
        done = service.upkeep(
            self.db,
            self.queue,
            self.settings.demo_heartbeat_timeout_seconds,
            self.settings.demo_retention_days,
        )
        if any(done.values()):
            log.info("upkeep: %s", ", ".join(f"{count} {what}" for what, count in done.items() if count))

    def _consume(self) -> None:
        """Hand queued jobs to the executor, one at a time, until stopped."""
        tasks.bind(self.jobs)
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
        with contextlib.suppress(ConsumerStopped):
            while not self.stopping.is_set():
                health_check = consumer.loop(health_check)

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
        if self.jobs.interrupted and pid is not None:
            # Cancelling replaced the child with one still importing TensorFlow: no use for it.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.runner.close()
        self.heartbeat.join()
        with self.db.write_sessions() as session:
            service.forget_worker(session, self.name)
        tasks.bind(None)
        self.queue.close()
        self.db.dispose()
        log.info("worker %s stopped", self.name)
