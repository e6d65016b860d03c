"""What demos supply the worker (`DEMOS`): their child (app/demos/child.py) and the executor of
one job: claim a queued run, run it in the TensorFlow child, store how it ended."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from app.demos import child, claims
from app.jobs.child_process import ChildCancelled, ChildCrashed, ChildFailed, ChildTimedOut
from app.jobs.executors import Context, Supply
from app.jobs.queue import lanes_for
from app.presets import ParamError, PresetUnavailable, time_limit_seconds

log = logging.getLogger("tiercards.worker")

# A claim refused because the person has a run going elsewhere is retried after this long.
BUSY_RETRY_S = 2.0

# How a run ends when it was stopped on purpose: by its owner, or by stopping the worker.
CANCELLED = "cancelled", "Cancelled while running: the demo process was stopped and replaced."
INTERRUPTED = (
    "interrupted",
    "The worker was stopped while this demo ran (SIGTERM or Ctrl+C), so the run was interrupted. "
    "Run it again.",
)


def ending(
    run_id: str, *, error: Exception, cancelled: bool, stopping: bool, limit_s: float
) -> tuple[str, str]:
    """The status and the stored message of a run that raised `error` instead of giving a result;
    what the message leaves out (the child's traceback, or the worker's) goes to the log."""
    match error:
        case ChildCancelled():
            return CANCELLED if cancelled else INTERRUPTED
        case ChildCrashed() if stopping:  # the worker's own stop killed the child
            return CANCELLED if cancelled else INTERRUPTED
        case ChildCrashed():
            return (
                "failed",
                f"{error.message[:1].upper()}{error.message[1:]}. A fresh demo process was started; run it again.",
            )
        case ChildTimedOut():
            return (
                "failed",
                f"The demo went past its time limit of {limit_s:.0f} s, so its process was killed and "
                "replaced. Try fewer steps or smaller costs.",
            )
        case PresetUnavailable():
            return "failed", error.message
        case ParamError():
            return "failed", f"{error.param}: {error.message}"
        case ChildFailed():
            log.error("run %s failed:\n%s", run_id, error.detail or error.message)
            # The page names the kind of error only: its text can carry paths and internals.
            kind = error.message.partition(":")[0]
            return "failed", f"The pipeline raised {kind}; the worker's log has the details."
        case _:
            log.error("run %s: unexpected error", run_id, exc_info=error)
            return (
                "failed",
                f"The worker hit an unexpected error ({type(error).__name__}); its log has the details.",
            )


class JobExecutor:
    """Runs the run_demo task; the consumer gives it one job at a time."""

    # A TensorFlow child that cannot start again dies instead, and the job fails: a demo worker
    # never gives its jobs back.
    lost: str | None = None

    def __init__(self, context: Context) -> None:
        self.name = context.name
        self.timeout_s = context.settings.demo_heartbeat_timeout_seconds
        self.db = context.db
        self.queue = context.queue
        self.runner = context.runner
        self.heartbeat = context.heartbeat
        self.stopping = context.stopping

    def execute(self, run_id: str, lane: str) -> None:
        """The body of the run_demo task, for a job taken from `lane`."""
        if self.stopping.is_set():
            self.queue.enqueue(run_id, lane=lane)  # leave it for the next worker
            return
        claimed = self._claim(run_id, lane)
        if claimed is not None:
            self._run(claimed)

    def _claim(self, run_id: str, lane: str) -> claims.Claimed | None:
        """The run, now this worker's; None when it is not to run now (re-queued if it can later)."""
        lanes = self.heartbeat.capabilities.lanes
        try:
            with self.db.write_sessions() as session:
                claimed = claims.claim(
                    session, run_id=run_id, worker=self.name, timeout_seconds=self.timeout_s, lanes=lanes
                )
        except Exception:
            log.exception("run %s: could not claim it; trying again shortly", run_id)
            self.queue.enqueue(run_id, lane=lane, delay=BUSY_RETRY_S)
            return None
        if isinstance(claimed, claims.OtherLane):
            log.info(
                "run %s belongs on the %s lane, which this worker does not read; moved", run_id, claimed.lane
            )
            self.queue.enqueue(run_id, lane=claimed.lane)
            return None
        if claimed == "busy":
            log.info("run %s waits: its owner has another demo running", run_id)
            self.queue.enqueue(run_id, lane=lane, delay=BUSY_RETRY_S)
            return None
        if claimed == "gone":
            log.info("run %s is no longer queued; skipped", run_id)
            return None
        return claimed

    def _run(self, claimed: claims.Claimed) -> None:
        run_id = claimed.run_id
        limit = time_limit_seconds(claimed.preset, claimed.params)
        result: dict[str, Any] | None = None
        progress: dict[str, Any] | None = None
        message: str | None = None
        with self.heartbeat.watching(run_id) as current:
            log.info("run %s: %s %s (limit %.0f s)", run_id, claimed.preset, claimed.params, limit)
            try:
                result = child.run(
                    claimed.preset,
                    runner=self.runner,
                    params=claimed.params,
                    on_progress=self.heartbeat.report,
                    should_cancel=lambda: current.cancel.is_set() or self.stopping.is_set(),
                    timeout_s=limit,
                )
                status, progress = "done", current.latest
            except Exception as error:
                cancelled, stopping = current.cancel.is_set(), self.stopping.is_set()
                status, message = ending(
                    run_id, error=error, cancelled=cancelled, stopping=stopping, limit_s=limit
                )
        if result is not None:
            self.heartbeat.learn(result.get("environment", {}))
        with self.db.write_sessions() as session:
            claims.finish(
                session,
                run_id=run_id,
                worker=self.name,
                status=status,
                result=result,
                error=message,
                progress=progress,
            )
        log.info("run %s: %s%s", run_id, status, f" ({message})" if message else "")
        with contextlib.suppress(Exception):
            self.heartbeat.beat()


DEMOS = Supply(kind="demo", child=child.CHILD, executor=JobExecutor, lanes=lanes_for, required=True)
