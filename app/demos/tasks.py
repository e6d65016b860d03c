"""The queue's tasks. There is one: `run_demo(run_id)`.

The web enqueues it (through app.demos.queue.DemoQueue); only a `tiercards worker` process executes
it, through the DemoWorker it binds here (the worker owns the TensorFlow runner child, the
heartbeat and the database). Registered by name, so any huey instance built from the same
QUEUE_URL (web replicas, workers on other hosts) agrees on what a message means.
"""

from __future__ import annotations

from typing import Any, Protocol

TASK_NAME = "run_demo"


class Executor(Protocol):
    def execute(self, run_id: str) -> None: ...


_executor: Executor | None = None


def bind(executor: Executor | None) -> None:
    """Called by the worker process: from now on, run_demo jobs go to `executor`."""
    global _executor
    _executor = executor


def run_demo(run_id: str) -> None:
    """Claim the demo run `run_id` and run it (see app.demos.worker.execution.JobExecutor.execute)."""
    if _executor is None:
        raise RuntimeError("run_demo only runs inside `tiercards worker`")
    _executor.execute(run_id)


def register(huey: Any) -> Any:
    """Register the tasks on `huey`; returns the run_demo task wrapper."""
    return huey.task(name=TASK_NAME)(run_demo)
