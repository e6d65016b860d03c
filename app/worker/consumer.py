"""The worker process: start-up, the loop that hands queued jobs to their executors one at a time,
signals and a clean stop."""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import socket
import threading
import time
from datetime import timedelta
from types import FrameType
from typing import Any

from app.backups import scheduled as backups
from app.demos import claims
from app.jobs import tasks
from app.jobs.child_process import ChildError
from app.jobs.executors import Context, Executor, Supply
from app.jobs.queue import JobQueue, kind_of, turn_order
from app.jobs.tasks import JobKind
from app.practice import readings
from app.settings import Settings
from app.speech import recordings, voicing
from app.storage.base import utcnow
from app.storage.database import Database
from app.worker.capabilities import decide, mismatch
from app.worker.heartbeat import Heartbeat
from app.worker.runner import ChildRunner
from app.worker.supplies import SUPPLIES

log = logging.getLogger("tiercards.worker")

# An idle worker looks at its lanes again after IDLE_FIRST_S, waiting longer (x IDLE_BACKOFF) each
# time it finds nothing, up to IDLE_MAX_S: twice a second when nothing happens.
IDLE_FIRST_S = 0.1
IDLE_BACKOFF = 1.15
IDLE_MAX_S = 0.5
# How often jobs put off for later (a person's run waiting for their other one) are released.
SCHEDULE_EVERY_S = 1.0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def upkeep(db: Database, *, queue: JobQueue, settings: Settings) -> dict[str, int]:
    """One pass of the workers' upkeep (app/demos/claims.py) under `settings`; how many of each
    thing it did."""
    return claims.upkeep(
        db,
        queue=queue,
        timeout_seconds=settings.demo_heartbeat_timeout_seconds,
        retention_days=settings.demo_retention_days,
        recording_retention_days=settings.recording_retention_days,
        session_idle=timedelta(hours=settings.session_idle_hours),
        audit_retention_days=settings.audit_retention_days,
        keep_recordings=settings.keep_recordings,
    )


class Worker:
    def __init__(self, settings: Settings, *, parent_pid: int | None = None, gpu: bool | None = None) -> None:
        self.settings = settings
        # --gpu (True), --no-gpu (False) or neither (None: TensorFlow decides).
        self.gpu_flag = gpu
        self.host = socket.gethostname()
        self.name = f"{self.host}:{os.getpid()}"
        self.db = Database(settings)
        self.queue = JobQueue(settings.queue_url)
        self.stopping = threading.Event()
        # The backup being taken, in a thread of its own: the heartbeat must not wait for it.
        self.backing_up: threading.Thread | None = None
        timeout = settings.demo_heartbeat_timeout_seconds
        self.heartbeat = Heartbeat(
            self.db,
            name=self.name,
            timeout_s=timeout,
            stopping=self.stopping,
            parent_pid=parent_pid,
            request_stop=self.request_stop,
            capabilities=decide(gpu, None),
            listed=self.listed,
            upkeep=self._upkeep,
        )
        # A child and an executor of each kind of job whose library is installed here (one that
        # is required and is not, the start refuses); a kind is read once its child is ready,
        # and a required one from the start.
        self.runners: dict[JobKind, ChildRunner] = {}
        self.executors: dict[JobKind, Executor] = {}
        self.reading: set[JobKind] = set()
        for supply in SUPPLIES:
            if not supply.required and importlib.util.find_spec(supply.child.library) is None:
                continue
            runner = ChildRunner(
                supply.child,
                settings.demo_memory_limit_mb,
                options=supply.child.options(settings),
                hide_gpus=gpu is False,
                production_logs=settings.is_production,
            )
            self.runners[supply.kind] = runner
            self.executors[supply.kind] = supply.executor(
                Context(
                    name=self.name,
                    settings=settings,
                    db=self.db,
                    queue=self.queue,
                    runner=runner,
                    heartbeat=self.heartbeat,
                    stopping=self.stopping,
                )
            )
            if supply.required:
                self.reading.add(supply.kind)

    def serve(self) -> int:
        """Run until SIGTERM/SIGINT (or the parent process is gone); returns the exit code."""
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        required = [supply for supply in SUPPLIES if supply.required]
        for supply in required:
            if importlib.util.find_spec(supply.child.library) is None:
                log.error(supply.child.missing)
                return 1
        self._sweep()
        self.heartbeat.start()
        waited = 0.0
        for supply in required:
            child = supply.child
            log.info("worker %s: %s in %s", self.name, child.starting, child.noun)
            try:
                waited += self.runners[supply.kind].warm()
            except ChildError as error:
                log.error("%s could not finish %s: %s", child.noun, child.starting, error)
                self._shutdown()
                return 1
        ready = [self.runners[supply.kind].ready_info for supply in required]
        gpus = next((list(info["gpus"]) for info in ready if "gpus" in info), [])
        version = next((info["tensorflow_version"] for info in ready if "tensorflow_version" in info), None)
        self.heartbeat.started(version, gpus=gpus, capabilities=decide(self.gpu_flag, gpus))
        self.heartbeat.beat()
        warning = mismatch(self.gpu_flag, gpus)
        if warning:
            log.warning("worker %s: %s", self.name, warning)
        self._start_the_others()
        log.info(
            "worker %s ready in %.1f s (TensorFlow %s, %s); reads the %s lane(s) of the %s queue",
            self.name,
            waited,
            self.heartbeat.tensorflow_version,
            self.heartbeat.device,
            ", ".join(self.lanes),
            self.queue.kind,
        )
        if not self.stopping.is_set():
            self._consume()
        self._shutdown()
        return 0

    def _read(self, order: tuple[Supply, ...]) -> list[str]:
        gpu = self.heartbeat.capabilities.gpu
        return [lane for supply in order if supply.kind in self.reading for lane in supply.lanes(gpu)]

    @property
    def lanes(self) -> tuple[str, ...]:
        """What it reads, in the order of SUPPLIES (recordings first: a person waits on the page)."""
        return tuple(self._read(SUPPLIES))

    def listed(self) -> list[str]:
        """What its row lists: the lanes of the kinds it must run, then the others'."""
        return self._read(tuple(sorted(SUPPLIES, key=lambda supply: not supply.required)))

    def _start_the_others(self) -> None:
        """Start each child the worker can do without and wait for it; without it, that kind of
        job is left to other workers."""
        for supply in SUPPLIES:
            if supply.required:
                continue
            runner = self.runners.get(supply.kind)
            if runner is None:
                log.warning("worker %s: %s", self.name, supply.child.missing)
                continue
            try:
                waited = runner.warm()
            except ChildError as error:
                log.warning("worker %s %s: %s", self.name, supply.child.without, error.message)
                self._drop(supply.kind)
                continue
            self.reading.add(supply.kind)
            self.heartbeat.beat()
            loaded = ", ".join(
                f"{what} {value}" for what, value in runner.ready_info.items() if what != "pid"
            )
            log.info("worker %s: %s ready in %.1f s (%s)", self.name, supply.child.noun, waited, loaded)

    def _drop(self, kind: JobKind) -> None:
        tasks.bind(kind, None)
        self.runners.pop(kind).close()
        del self.executors[kind]
        self.reading.discard(kind)

    def drop_lost(self) -> bool:
        """Stop running the kinds of job whose child could not load its library again (their
        executor said why in the log); returns whether any stopped now."""
        lost = [kind for kind, executor in self.executors.items() if executor.lost is not None]
        for kind in lost:
            self._drop(kind)
        if lost:
            self.heartbeat.beat()
        return bool(lost)

    def request_stop(self) -> None:
        self.stopping.set()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("worker %s: %s received, stopping", self.name, signal.Signals(signum).name)
        self.request_stop()

    def _sweep(self) -> None:
        """Mark interrupted the runs that workers which died left running, queue again (or fail)
        the recordings they were transcribing, and queue again the readings they took."""
        with self.db.write_sessions() as session:
            interrupted, retried = claims.sweep_at_start(
                session,
                timeout_seconds=self.settings.demo_heartbeat_timeout_seconds,
                host=self.host,
                pid_alive=pid_alive,
                own_name=self.name,
            )
        recordings.enqueue_all(self.queue, retried)
        with self.db.read_sessions() as session:
            reread = readings.requeue_left_behind(session, queue=self.queue)
            resaid = voicing.requeue_left_behind(session, queue=self.queue)
        # A recording failed here, or by a worker that died before it could, left its sound in
        # SQLite's log.
        self.db.erase_deleted()
        if interrupted:
            log.info("marked %d run(s) left behind by dead workers as interrupted", interrupted)
        if retried:
            log.info("queued again %d recording(s) left behind by dead workers", len(retried))
        if reread:
            log.info("queued again %d answer reading(s) left behind by dead workers", reread)
        if resaid:
            log.info("queued again %d question(s) to say left behind by dead workers", resaid)

    def _upkeep(self) -> None:
        done = upkeep(self.db, queue=self.queue, settings=self.settings)
        if any(done.values()):
            log.info("upkeep: %s", ", ".join(f"{count} {what}" for what, count in done.items() if count))
        idle = self.backing_up is None or not self.backing_up.is_alive()
        if idle and backups.due(self.settings, now=utcnow()):
            self.backing_up = threading.Thread(target=self._backup, name="backup", daemon=True)
            self.backing_up.start()

    def _backup(self) -> None:
        try:
            taken = backups.upkeep(self.settings, now=utcnow())
        except Exception:  # the next upkeep tries again; the admin's page says it is late
            log.exception("the scheduled backup failed")
            return
        if taken is not None:
            log.info("backup written: %s (%d bytes)", taken.path, taken.size)

    def _consume(self) -> None:
        """Take the next job from this worker's lanes, in turn (`turn_order`: the kind it ran last
        goes to the back), and run it here, in this thread, until stopped: one job at a time,
        however many lanes. (huey's own Consumer reads one queue; two of them would run a GPU and a
        CPU demo at once and skew both.)"""
        for kind, executor in self.executors.items():
            tasks.bind(kind, executor.execute)
        lanes = self.lanes
        last: JobKind | None = None
        idle = IDLE_FIRST_S
        next_release = 0.0
        while not self.stopping.is_set():
            if time.monotonic() >= next_release:
                self._release_due([self.queue.hueys[lane] for lane in lanes])
                next_release = time.monotonic() + SCHEDULE_EVERY_S
            found = self._next_job(turn_order(lanes, after=last))
            if found is None:
                self.stopping.wait(idle)
                idle = min(idle * IDLE_BACKOFF, IDLE_MAX_S)
                continue
            idle = IDLE_FIRST_S
            lane, job = found
            last = kind_of(lane)
            # A job put off for later goes to its lane's schedule; any other runs now.
            self.queue.hueys[lane].execute(job)
            if self.drop_lost():
                lanes = self.lanes

    def _next_job(self, lanes: list[str]) -> tuple[str, Any] | None:
        for lane in lanes:
            huey = self.queue.hueys[lane]
            try:
                job = huey.dequeue()
            except Exception:
                # A message that is not one of our jobs (JsonSerializer refuses it), or the queue is
                # unreachable: either way, on to the next lane and, after a pause, again.
                log.exception("could not take a job from the %s queue", huey.name)
                continue
            if job is not None:
                return lane, job
        return None

    def _release_due(self, hueys: list[Any]) -> None:
        """Put the jobs whose time has come back on their lanes."""
        for huey in hueys:
            try:
                for job in huey.read_schedule():
                    huey.enqueue(job)
            except Exception:
                log.exception("could not read the %s queue's schedule", huey.name)

    def _shutdown(self) -> None:
        self.stopping.set()
        for runner in self.runners.values():
            runner.close()
        self.heartbeat.join()
        with self.db.write_sessions() as session:
            claims.forget_worker(session, self.name)
        for kind in self.executors:
            tasks.bind(kind, None)
        self.queue.close()
        self.db.dispose()
        log.info("worker %s stopped", self.name)
