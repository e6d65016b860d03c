"""The queue's tasks. There is one: `run_demo(run_id)`, registered on every lane's queue.

The web enqueues it (through app.demos.queue.DemoQueue); only a `tiercards worker` process executes
it, through the executor it binds here (the worker owns the TensorFlow runner child, the heartbeat
and the database). Registered by name, so any huey instance built from the same QUEUE_URL (web
replicas, workers on other hosts) agrees on what a message means.
"""

from __future__ import annotations

from typing import Any, Protocol

TASK_NAME = "run_demo"


class Executor(Protocol):
    def execute(self, run_id: str, lane: str) -> None: ...


_executor: Executor | None = None


def bind(executor: Executor | None) -> None:
    """Called by the worker process: from now on, run_demo jobs go to `executor`."""
    global _executor
    _executor = executor


def register(huey: Any, lane: str) -> Any:
    """Register run_demo on `huey`, the queue of `lane`; returns the task wrapper."""

    def run_demo(run_id: str) -> None:
        """Claim the demo run `run_id` and run it (app.demos.worker.execution.JobExecutor)."""
        if _executor is None:
            raise RuntimeError("run_demo only runs inside `tiercards worker`")
        _executor.execute(run_id, lane)

    return huey.task(name=TASK_NAME)(run_demo)
