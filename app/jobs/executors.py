"""What a domain supplies the worker for each kind of job it runs (`Supply`): the child process
that loads the domain's library once, and the executor that runs one job taken off the queue in
that child; and what the worker gives an executor in return (`Context`).

Declared here, in the queue package below demos and speech, because each domain fills one in and
the worker, above both, reads them (app/worker/supplies.py lists them): no domain imports the
worker or another domain for it, and a new kind of job plugs in with one more `Supply`.
"""

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from app.jobs.child_process import CancelFn, Child, ProgressFn
from app.jobs.queue import JobQueue
from app.jobs.tasks import JobKind
from app.settings import Settings
from app.storage.database import Database


class Executor(Protocol):
    # Why it gives every job back from now on (its child could not load its library again), for
    # the worker to stop reading its lanes; None while it runs them.
    lost: str | None

    def execute(self, job_id: str, lane: str) -> None: ...


class Runner(Protocol):
    """The worker's runner of one child process, as an executor uses it."""

    memory_limit_mb: int | None

    def run(
        self,
        job: Any,
        *,
        timeout_s: float | None,
        on_progress: ProgressFn | None = None,
        should_cancel: CancelFn | None = None,
    ) -> dict[str, Any]: ...


class Watched(Protocol):
    """The job in progress, as the heartbeat keeps it alive."""

    cancel: threading.Event  # set once someone asked to cancel it
    latest: dict[str, Any] | None  # its last progress


class Lanes(Protocol):
    @property
    def lanes(self) -> tuple[str, ...]: ...


class Heartbeat(Protocol):
    """The worker's heartbeat thread, as an executor uses it."""

    @property
    def capabilities(self) -> Lanes: ...

    def watching(self, job_id: str) -> AbstractContextManager[Watched]: ...

    def report(self, progress: dict[str, Any]) -> None: ...

    def learn(self, environment: dict[str, Any]) -> None: ...

    def beat(self) -> None: ...


@dataclass(frozen=True)
class Context:
    """What the worker gives each executor it builds."""

    name: str  # the worker's, stored with what it claims
    settings: Settings
    db: Database
    queue: JobQueue
    runner: Runner  # the executor's own child
    heartbeat: Heartbeat
    stopping: threading.Event  # set once the worker is stopping


@dataclass(frozen=True)
class Supply:
    """One kind of job, as its domain hands it to the worker."""

    kind: JobKind
    child: Child
    executor: Callable[[Context], Executor]
    # The lanes of the queue it reads, on a worker with a GPU or without one.
    lanes: Callable[[bool], tuple[str, ...]]
    # A worker does not start without this child, which also tells it the GPUs its library lists;
    # one it cannot start otherwise (not installed, it would not load) leaves its jobs to others.
    required: bool


class OneJobExecutor:
    """What an executor of one job at a time keeps from its context, and how it leaves a job to
    the next worker: while this one is stopping, or once its child could not load its library
    again (`lost`, after which its consumer stops reading its lanes)."""

    def __init__(self, context: Context) -> None:
        self.name = context.name
        self.settings = context.settings
        self.db = context.db
        self.queue = context.queue
        self.runner = context.runner
        self.stopping = context.stopping
        self.lost: str | None = None

    def handed_back(self, job_id: str, lane: str) -> bool:
        """Put the job back on its lane instead of running it, when this worker should not."""
        if self.stopping.is_set() or self.lost is not None:
            self.queue.enqueue(job_id, lane=lane)
            return True
        return False
