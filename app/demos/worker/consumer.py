"""The worker process: start-up, the loop that hands queued jobs to the executor one at a time,
signals and a clean stop."""

from __future__ import annotations

import contextlib
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

from app.demos import claims
from app.demos.runner import DemoRunner, SpeechRunner
from app.demos.worker.capabilities import decide, mismatch
from app.demos.worker.execution import JobExecutor
from app.demos.worker.heartbeat import Heartbeat
from app.demos.worker.transcription import TranscriptionExecutor
from app.jobs import tasks
from app.jobs.queue import JobQueue, speech_lanes_for
from app.presets import DemoCrashed, DemoFailed, DemoTimedOut, PresetUnavailable
from app.settings import Settings
from app.speech import recordings
from app.storage.database import Database

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


class DemoWorker:
    def __init__(self, settings: Settings, *, parent_pid: int | None = None, gpu: bool | None = None) -> None:
        self.settings = settings
        # --gpu (True), --no-gpu (False) or neither (None: TensorFlow decides).
        self.gpu_flag = gpu
        self.host = socket.gethostname()
        self.name = f"{self.host}:{os.getpid()}"
        self.db = Database(settings)
        self.queue = JobQueue(settings.queue_url)
        self.runner = DemoRunner(
            settings.demo_memory_limit_mb, hide_gpus=gpu is False, production_logs=settings.is_production
        )
        # None where faster-whisper is not installed, or the speech model would not load: then
        # this worker leaves the speech lanes to others.
        self.speech: SpeechRunner | None = None
        if importlib.util.find_spec("faster_whisper") is not None:
            self.speech = SpeechRunner(
                settings.demo_memory_limit_mb,
                speech_model=settings.speech_model,
                hide_gpus=gpu is False,
                production_logs=settings.is_production,
            )
        self.stopping = threading.Event()
        timeout = settings.demo_heartbeat_timeout_seconds
        self.heartbeat = Heartbeat(
            self.db,
            name=self.name,
            timeout_s=timeout,
            stopping=self.stopping,
            parent_pid=parent_pid,
            request_stop=self.request_stop,
            capabilities=decide(gpu, None),
            upkeep=self._upkeep,
        )
        self.jobs = JobExecutor(
            self.name,
            timeout_s=timeout,
            db=self.db,
            queue=self.queue,
            runner=self.runner,
            heartbeat=self.heartbeat,
            stopping=self.stopping,
        )
        self.transcriptions = (
            TranscriptionExecutor(
                self.name,
                settings=settings,
                db=self.db,
                queue=self.queue,
                runner=self.speech,
                stopping=self.stopping,
            )
            if self.speech is not None
            else None
        )

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
        gpus = self.runner.gpus or []
        capabilities = decide(self.gpu_flag, gpus)
        self.heartbeat.started(self.runner.tensorflow_version, gpus=gpus, capabilities=capabilities)
        self.heartbeat.beat()
        warning = mismatch(self.gpu_flag, gpus)
        if warning:
            log.warning("worker %s: %s", self.name, warning)
        self._load_speech_model()
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

    @property
    def lanes(self) -> tuple[str, ...]:
        """What it reads, in order: the speech lanes first (a person waits on the page), once its
        model has loaded, then the demo lanes."""
        return (*self.heartbeat.speech_lanes, *self.heartbeat.capabilities.lanes)

    def _load_speech_model(self) -> None:
        """Start the speech child and wait for its model; without one, no transcriptions here."""
        if self.speech is None:
            log.warning(
                "worker %s: faster-whisper is not installed here, so it transcribes no recordings "
                "(pip install -e '.[worker]')",
                self.name,
            )
            return
        try:
            waited = self.speech.warm()
        except (DemoCrashed, DemoTimedOut, DemoFailed, PresetUnavailable) as error:
            log.warning("worker %s transcribes no recordings: %s", self.name, error.message)
            self.speech.close()
            self.speech = self.transcriptions = None
            return
        self.heartbeat.speech_lanes = speech_lanes_for(self.heartbeat.capabilities.gpu)
        self.heartbeat.beat()
        log.info(
            "worker %s: speech model %s loaded in %.1f s on %s",
            self.name,
            self.speech.ready_info.get("model"),
            waited,
            self.speech.ready_info.get("device"),
        )

    def drop_speech_if_lost(self) -> bool:
        """When the speech process could not load its model again, stop transcribing here (the
        executor said why in the log); returns whether it stopped now."""
        if self.transcriptions is None or self.transcriptions.model_lost is None:
            return False
        tasks.bind("speech", None)
        if self.speech is not None:
            self.speech.close()
        self.speech = self.transcriptions = None
        self.heartbeat.speech_lanes = ()
        self.heartbeat.beat()
        return True

    def request_stop(self) -> None:
        self.stopping.set()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        log.info("worker %s: %s received, stopping", self.name, signal.Signals(signum).name)
        self.request_stop()

    def _sweep(self) -> None:
        """Mark interrupted the runs that workers which died left running, and queue again (or
        fail) the recordings they were transcribing."""
        with self.db.write_sessions() as session:
            interrupted, retried = claims.sweep_at_start(
                session,
                timeout_seconds=self.settings.demo_heartbeat_timeout_seconds,
                host=self.host,
                pid_alive=pid_alive,
                own_name=self.name,
            )
        recordings.enqueue_all(self.queue, retried)
        # A recording failed here, or by a worker that died before it could, left its sound in
        # SQLite's log.
        self.db.erase_deleted()
        if interrupted:
            log.info("marked %d run(s) left behind by dead workers as interrupted", interrupted)
        if retried:
            log.info("queued again %d recording(s) left behind by dead workers", len(retried))

    def _upkeep(self) -> None:
        done = claims.upkeep(
            self.db,
            queue=self.queue,
            timeout_seconds=self.settings.demo_heartbeat_timeout_seconds,
            retention_days=self.settings.demo_retention_days,
            recording_retention_days=self.settings.recording_retention_days,
            session_idle=timedelta(hours=self.settings.session_idle_hours),
            audit_retention_days=self.settings.audit_retention_days,
        )
        if any(done.values()):
            log.info("upkeep: %s", ", ".join(f"{count} {what}" for what, count in done.items() if count))

    def _consume(self) -> None:
        """Take the next job from the first of this worker's lanes that has one and run it here,
        in this thread, until stopped: one job at a time, however many lanes. (huey's own Consumer
        reads one queue; two of them would run a GPU and a CPU demo at once and skew both.)"""
        tasks.bind("demo", self.jobs)
        tasks.bind("speech", self.transcriptions)
        hueys = [self.queue.hueys[lane] for lane in self.lanes]
        idle = IDLE_FIRST_S
        next_release = 0.0
        while not self.stopping.is_set():
            if time.monotonic() >= next_release:
                self._release_due(hueys)
                next_release = time.monotonic() + SCHEDULE_EVERY_S
            found = self._next_job(hueys)
            if found is None:
                self.stopping.wait(idle)
                idle = min(idle * IDLE_BACKOFF, IDLE_MAX_S)
                continue
            idle = IDLE_FIRST_S
            huey, job = found
            # A job put off for later goes to its lane's schedule; any other runs now.
            huey.execute(job)
            if self.drop_speech_if_lost():
                hueys = [self.queue.hueys[lane] for lane in self.lanes]

    def _next_job(self, hueys: list[Any]) -> tuple[Any, Any] | None:
        for huey in hueys:
            try:
                job = huey.dequeue()
            except Exception:
                # A message that is not one of our jobs (JsonSerializer refuses it), or the queue is
                # unreachable: either way, on to the next lane and, after a pause, again.
                log.exception("could not take a job from the %s queue", huey.name)
                continue
            if job is not None:
                return huey, job
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
        pid = self.runner.child_pid
        if self.jobs.interrupted and pid is not None:
            # Cancelling replaced the child with one still importing TensorFlow: no use for it.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.runner.close()
        if self.speech is not None:
            self.speech.close()
        self.heartbeat.join()
        with self.db.write_sessions() as session:
            claims.forget_worker(session, self.name)
        tasks.bind("demo", None)
        tasks.bind("speech", None)
        self.queue.close()
        self.db.dispose()
        log.info("worker %s stopped", self.name)
