"""Reads of the parts every replica shares, the database and the job queue, for /readyz and
/metrics: each on a thread of its own (never the event loop), and waited for at most a few
seconds, so a part that hangs (a firewalled database, a Redis that stopped answering) reads as
down in time instead of holding the probe.

A read still running when the next probe comes is waited on again, not started twice: a part that
hangs holds one thread however often it is probed.
"""

import asyncio
import contextvars
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Annotated, Generic, TypeVar

from fastapi import Depends, Request
from sqlalchemy import text
from starlette.datastructures import State

from app.demos.figures import DemoFigures, demo_figures, queue_depth
from app.jobs.dependencies import app_job_queue
from app.speech.figures import RecordingFigures, recording_figures

T = TypeVar("T")
log = logging.getLogger("tiercards.web")

# How long a probe waits for a part: within what load balancers and Prometheus allow a probe.
READ_TIMEOUT_S = 3.0


class Bounded(Generic[T]):
    def __init__(self, what: str, read: Callable[[], T], seconds: float = READ_TIMEOUT_S) -> None:
        self.what = what
        self.read = read
        self.seconds = seconds
        self.pending: Future[T] | None = None

    async def __call__(self) -> T:
        """The read's result; its own error, or TimeoutError when it takes longer."""
        if self.pending is None or self.pending.done():
            self.pending = _in_thread(self.read)
        # Shielded: giving up on the read must not cancel it for the next probe that waits on it.
        return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self.pending)), self.seconds)

    async def outcome(self) -> tuple[T | None, str | None]:
        """(result, None), or (None, why it failed) with the failure logged."""
        try:
            return await self(), None
        except TimeoutError:
            reason = f"no answer within {self.seconds:g} s"
            log.warning("the %s gave %s", self.what, reason)
        except Exception as error:
            reason = type(error).__name__
            log.warning("could not read the %s: %s: %s", self.what, reason, error)
        return None, reason


def _in_thread(read: Callable[[], T]) -> Future[T]:
    """Runs `read` on a daemon thread (one that hangs never holds up the process's exit), in this
    request's context, so what it logs names the request."""
    future: Future[T] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(context.run(read))
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, name="probe", daemon=True).start()
    return future


@dataclass(frozen=True)
class Probes:
    """One app's reads of the shared parts (each with its own pending read)."""

    database: Bounded[None]
    queue_depth: Bounded[int]
    speech_queue_depth: Bounded[int]
    demo_figures: Bounded[DemoFigures]
    recording_figures: Bounded[RecordingFigures]


def _probes(state: State) -> Probes:
    def database_answers() -> None:
        with state.db.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def waiting_runs() -> int:
        # Building the queue client reads (SQLite) or reaches nothing yet (Redis): inside the read.
        return queue_depth(app_job_queue(state))

    def waiting_recordings() -> int:
        return queue_depth(app_job_queue(state), "speech")

    def figures() -> DemoFigures:
        with state.db.read_sessions() as session:
            return demo_figures(session, state.settings.demo_heartbeat_timeout_seconds)

    def recordings() -> RecordingFigures:
        with state.db.read_sessions() as session:
            return recording_figures(session)

    return Probes(
        Bounded("database", database_answers),
        Bounded("demo queue", waiting_runs),
        Bounded("speech queue", waiting_recordings),
        Bounded("demo figures", figures),
        Bounded("recording figures", recordings),
    )


async def get_probes(request: Request) -> Probes:
    state = request.app.state
    probes: Probes | None = getattr(state, "probes", None)
    if probes is None:
        probes = state.probes = _probes(state)
    return probes


ProbesDep = Annotated[Probes, Depends(get_probes)]
