"""A worker's child process, as the domain whose jobs it runs declares it (`Child`) and as it
answers its parent (`answer`); and the ways a job can end there without a result, named for what
failed, which the worker's runner (app/worker/runner.py, where the protocol is) raises.

Declared here, below demos and speech, so that each domain declares its child and reads these
errors without importing the worker above it, nor the other domain.
"""

import os
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from app.exceptions import DomainError
from app.settings import Settings

Message = tuple[Any, ...]
# What a job's caller hands the runner: where progress goes, and whether to stop.
ProgressFn = Callable[[dict[str, Any]], None]
CancelFn = Callable[[], bool]


class ChildError(DomainError):
    """Base class of every way a job run in a child process can end without a result."""


class ChildCancelled(ChildError):
    """Someone cancelled the job (or the worker is stopping); the child was killed and replaced."""


class ChildTimedOut(ChildError):
    """The job went past its time limit; the child was killed and replaced."""


class ChildCrashed(ChildError):
    """The child died mid-job (killed, past the memory limit, a native crash) and was replaced."""


class ChildUnavailable(ChildError):
    """The child cannot run this job: what it runs it with is missing or changed."""


class ChildFailed(ChildError):
    """The job raised an error in the child, which is still healthy.

    `detail` carries the child's traceback for the worker's log (not for the page).
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


def rebuild_error(info: Mapping[str, Any]) -> Exception:
    """The error a child reported (an "error" message's info) as the parent raises it."""
    message = str(info.get("message", "the job failed"))
    if info.get("kind") == "unavailable":
        return ChildUnavailable(message)
    detail = info.get("traceback")
    return ChildFailed(message, str(detail) if detail is not None else None)


def failure(error: BaseException) -> Message:
    """What a child replies when a job raised `error`: its kind and message, and the traceback."""
    return (
        "error",
        {
            "kind": "failed",
            "message": f"{type(error).__name__}: {error}",
            "traceback": traceback.format_exc(),
        },
    )


def _no_options(_settings: Settings) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Child:
    """A child process that loads its library once and runs one job after another."""

    # What runs in the child: loads the library, then answers its parent through `answer`; it
    # takes the connection and `options`.
    serve: Callable[..., None]
    # The module it loads (`tensorflow`): without it installed, the worker cannot start this child.
    library: str
    # What the log says when `library` is not installed, and what a worker without this child
    # does not do.
    missing: str
    without: str
    # In the messages a person reads: "the demo process", "starting TensorFlow", "running the demo".
    noun: str
    starting: str
    doing: str
    # The keyword options `serve` takes, from the settings.
    options: Callable[[Settings], dict[str, Any]] = _no_options
    # How an error the child reports becomes the exception its job raises in the parent.
    error: Callable[[Mapping[str, Any]], Exception] = rebuild_error


def answer(conn: Connection, *, ready: Mapping[str, Any], run: Callable[[Any], Message]) -> None:
    """Send `ready`, then answer messages: `run` gets a job (what follows "job") and returns the
    reply, a result or an error."""
    conn.send(("ready", {"pid": os.getpid(), **ready}))
    while True:
        message = conn.recv()
        if message[0] == "stop":
            return
        if message[0] == "ping":
            conn.send(("pong", os.getpid()))
            continue
        conn.send(run(message[1]))
