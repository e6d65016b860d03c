"""The queue's tasks, one per kind of lane: `run_demo(run_id)` on the demo lanes,
`transcribe(recording_id)` on the speech lanes, `read_claims(attempt_id)` on the claims lanes and
`say_question(key)` on the voice lane.

The web enqueues them (through app.jobs.queue.JobQueue); only a `tiercards worker` process executes
them, through the executor it binds here for each kind (the worker owns the child processes, the
heartbeat and the database). Registered by name, so any huey instance built from the same QUEUE_URL
(web replicas, workers on other hosts) agrees on what a message means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

JobKind = Literal["demo", "speech", "claims", "voice"]
TASK_NAMES: dict[JobKind, str] = {
    "demo": "run_demo",
    "speech": "transcribe",
    "claims": "read_claims",
    "voice": "say_question",
}

# An executor's `execute(job_id, lane)` (app/jobs/executors.py).
Execute = Callable[[str, str], None]

_executors: dict[JobKind, Execute] = {}


def bind(kind: JobKind, executor: Execute | None) -> None:
    """Called by the worker process: from now on, jobs of `kind` go to `executor` (None: nowhere)."""
    if executor is None:
        _executors.pop(kind, None)
    else:
        _executors[kind] = executor


def register(huey: Any, *, lane: str, kind: JobKind) -> Any:
    """Register the task of `kind` on `huey`, the queue of `lane`; returns the task wrapper."""

    def run(job_id: str) -> None:
        executor = _executors.get(kind)
        if executor is None:
            raise RuntimeError(f"{TASK_NAMES[kind]} only runs inside `tiercards worker`")
        executor(job_id, lane)

    run.__name__ = run.__qualname__ = TASK_NAMES[kind]
    return huey.task(name=TASK_NAMES[kind])(run)
