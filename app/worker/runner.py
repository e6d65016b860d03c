"""Runs jobs in a reusable child process that loads its library once: TensorFlow for demos, the
speech model for transcriptions (each domain declares its child, app/jobs/child_process.py).

TensorFlow takes seconds to import and cannot be unloaded, and a tf.data pipeline cannot be
stopped from outside mid-step; the speech model takes seconds to load, and decoding a hostile
file runs native code. So the worker keeps ONE child process of each (multiprocessing "spawn":
no forked TensorFlow or thread state) that loads its library once and serves jobs one after
another. Cancelling, a time limit, the memory limit or a crash kills that child with SIGKILL
and starts a fresh one for the next job. This module itself never imports TensorFlow nor
faster-whisper, and neither child imports the other's.

Protocol over a Pipe, parent → child: ("job", job), ("ping",), ("stop",).
Child → parent: ("ready", info), ("progress", dict), ("result", doc), ("error", info), ("pong", pid).
The demo child's ready info names the TensorFlow version and the GPUs TensorFlow lists in it.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Self

import psutil

from app import logs
from app.jobs.child_process import (
    CancelFn,
    Child,
    ChildCancelled,
    ChildCrashed,
    ChildError,
    ChildTimedOut,
    Message,
    ProgressFn,
)

# How often the parent looks at should_cancel(), the deadline and the child's health.
POLL_INTERVAL_S = 0.2

# Importing TensorFlow (or loading the speech model) in a fresh process; generous because a loaded
# 2-core host is slow at it.
STARTUP_TIMEOUT_S = 180.0


# ---------------------------------------------------------------------------------------------
# The child


def _log_native_output(production: bool) -> None:
    """TensorFlow's C++ side writes its notices (oneDNN, CPU features) straight to the process's
    stderr, which TF_CPP_MIN_LOG_LEVEL no longer quiets in 2.21: fd 2 becomes a pipe whose lines
    are logged like the worker's own, one JSON object a line in production."""
    handler = logging.StreamHandler(os.fdopen(os.dup(2), "w", buffering=1))
    handler.setFormatter(logs.JsonFormatter() if production else logs.ReadableFormatter())
    native = logging.getLogger("tiercards.demo_runner")
    native.addHandler(handler)
    native.setLevel(logging.INFO)
    native.propagate = False
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)

    def relay() -> None:
        with os.fdopen(read_end, errors="replace") as lines:
            for line in lines:
                if line.strip():
                    native.info(line.rstrip())

    threading.Thread(target=relay, name="native-stderr", daemon=True).start()


def _child_main(
    conn: Connection,
    *,
    serve: Callable[..., None],
    options: Mapping[str, Any],
    hide_gpus: bool = False,
    production_logs: bool = False,
) -> None:
    """Entry point of the child process."""
    _log_native_output(production_logs)
    if hide_gpus:
        # Before TensorFlow or CTranslate2 loads: CUDA then shows it no device, so it leaves the
        # GPUs alone.
        os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
    try:
        serve(conn, **options)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        # The parent went away: nobody is left to report to.
        pass
    finally:
        conn.close()
        # Skip interpreter teardown: TensorFlow's can take seconds on a busy host, and this
        # process holds nothing that needs flushing beyond the standard streams.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


# ---------------------------------------------------------------------------------------------
# The parent


class ChildRunner:
    """Owns one child process, as `child` declares it, and runs one job at a time in it."""

    def __init__(
        self,
        child: Child,
        memory_limit_mb: int | None = None,
        *,
        options: Mapping[str, Any] | None = None,
        hide_gpus: bool = False,
        production_logs: bool = False,
    ) -> None:
        self.child = child
        self.memory_limit_mb = memory_limit_mb
        # The keyword options of the child's serve function (child.options gives them from settings).
        self.options = dict(options or {})
        # A worker started with --no-gpu: its child must not touch the host's GPUs.
        self.hide_gpus = hide_gpus
        self.production_logs = production_logs
        self._ctx = mp.get_context("spawn")
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._lock = threading.Lock()
        # What the child said when it was ready (its pid, what it loaded).
        self.ready_info: dict[str, Any] = {}

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def child_pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def _start(self) -> None:
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=_child_main,
            args=(child_conn,),
            kwargs={
                "serve": self.child.serve,
                "options": self.options,
                "hide_gpus": self.hide_gpus,
                "production_logs": self.production_logs,
            },
            name=f"tiercards-{self.child.noun.split()[-2]}-runner",
            daemon=True,
        )
        process.start()
        child_conn.close()  # only the child holds its end, so its death reads as EOF here
        self._process, self._conn, self._ready = process, parent_conn, False

    def _kill(self) -> None:
        """SIGKILL the child: a stuck pipeline or native code cannot be interrupted gently."""
        process, conn = self._process, self._conn
        self._process, self._conn, self._ready = None, None, False
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join(timeout=10)
        if conn is not None:
            conn.close()

    def _replace(self) -> None:
        """Kill the child and start a fresh one right away, so it warms up before the next job."""
        self._kill()
        self._start()

    def warm(self, timeout_s: float = STARTUP_TIMEOUT_S) -> float:
        """Start the child if needed and wait until it is ready; returns seconds waited."""
        started = time.monotonic()
        with self._lock:
            refused = self._ensure_ready(None, timeout_s)
        if refused is not None:
            raise self.child.error(refused)
        return time.monotonic() - started

    def close(self) -> None:
        """Ask the child to stop; kill it if it does not within a few seconds."""
        with self._lock:
            process, conn = self._process, self._conn
            if process is None or conn is None:
                return
            if not self._ready:
                # Replaced after a cancel or a crash, it is still loading its library and would
                # read "stop" only once it has: no use waiting for it.
                self._kill()
                return
            try:
                conn.send(("stop",))
                process.join(timeout=5)
            except (BrokenPipeError, OSError):
                pass
            self._kill()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- talking to the child ---------------------------------------------------------------

    def _receive(self, deadline: float, *, should_cancel: CancelFn | None, what: str) -> Message:
        """Next message from the child, watching cancel, the deadline and the child's health."""
        assert self._process is not None and self._conn is not None
        while True:
            if should_cancel is not None and should_cancel():
                self._replace()
                raise ChildCancelled(f"cancelled while {what}")
            if time.monotonic() > deadline:
                self._replace()
                raise ChildTimedOut(f"timed out while {what}")
            self._check_memory(what)
            try:
                if self._conn.poll(POLL_INTERVAL_S):
                    message: Message = self._conn.recv()
                    return message
            except (EOFError, OSError):
                pass  # the child closed its end: it is gone, reported below
            else:
                if self._process.is_alive():
                    continue
            # The pipe can report EOF a moment before the process is reaped: wait for its status.
            self._process.join(timeout=5)
            code = self._process.exitcode
            self._replace()
            raise ChildCrashed(f"{self.child.noun} died while {what} ({_describe_exit(code)})")

    def _check_memory(self, what: str) -> None:
        """Past DEMO_MEMORY_LIMIT_MB the child is stopped before the host starts swapping."""
        if self.memory_limit_mb is None or self._process is None or self._process.pid is None:
            return
        try:
            rss_mb = psutil.Process(self._process.pid).memory_info().rss / 2**20
        except psutil.Error:
            return  # it is exiting; the next poll reports how
        if rss_mb > self.memory_limit_mb:
            self._replace()
            raise ChildCrashed(
                f"{self.child.noun} used {rss_mb:.0f} MB while {what}, past this server's limit of "
                f"{self.memory_limit_mb} MB, so it was stopped"
            )

    def _ensure_ready(
        self, should_cancel: CancelFn | None, timeout_s: float = STARTUP_TIMEOUT_S
    ) -> Mapping[str, Any] | None:
        """Start the child if needed and wait until it is ready; returns the error it reported
        instead, when it could not load what it serves with (a missing or changed model)."""
        if self._process is None or not self._process.is_alive():
            self._kill()
            self._start()
        if self._ready:
            return None
        deadline = time.monotonic() + timeout_s
        while True:
            message = self._receive(deadline, should_cancel=should_cancel, what=self.child.starting)
            if message[0] == "ready":
                self._ready = True
                self.ready_info = dict(message[1])
                return None
            if message[0] == "error":
                # No use starting it again for this job.
                self._kill()
                refused: Mapping[str, Any] = message[1]
                return refused

    def run(
        self,
        job: Any,
        *,
        timeout_s: float | None,
        on_progress: ProgressFn | None = None,
        should_cancel: CancelFn | None = None,
    ) -> dict[str, Any]:
        """Send one job to the child (waiting for it to be ready) and return its result document;
        an error the child reports is raised as its declaration says (`Child.error`).

        If the child is still starting, the job waits for it (cancel is honoured; the start has its
        own limit); `timeout_s` counts from when the job reaches a ready child.
        """
        with self._lock:
            try:
                refused = self._ensure_ready(should_cancel)
                if refused is None:
                    assert self._conn is not None
                    self._conn.send(("job", job))
                    deadline = time.monotonic() + (timeout_s if timeout_s is not None else float("inf"))
                    kind, reply = self._await_reply(
                        deadline, on_progress=on_progress, should_cancel=should_cancel
                    )
            except ChildError:
                raise  # cancelled, past its time or memory, or dead: the child was replaced already
            except (BrokenPipeError, ConnectionResetError) as gone:
                # The child died between jobs, before it could take this one.
                self._replace()
                raise ChildCrashed(f"{self.child.noun} died before it could start the job") from gone
            except BaseException:
                # Anything else (a failing progress callback, KeyboardInterrupt) leaves a job
                # running in the child whose messages would confuse the next one: replace it.
                self._replace()
                raise
        if refused is not None:
            raise self.child.error(refused)
        if kind == "error":
            raise self.child.error(reply)
        return reply

    def _await_reply(
        self, deadline: float, *, on_progress: ProgressFn | None, should_cancel: CancelFn | None
    ) -> tuple[str, dict[str, Any]]:
        """The job's result or error, relaying its progress on the way."""
        while True:
            kind, *payload = self._receive(deadline, should_cancel=should_cancel, what=self.child.doing)
            if kind == "progress":
                if on_progress is not None:
                    on_progress(payload[0])
            elif kind in ("result", "error"):
                return kind, payload[0]

    def ping(self, timeout_s: float = 10.0) -> int:
        """Round trip to the ready child; returns its pid (for health checks and tests)."""
        with self._lock:
            refused = self._ensure_ready(None)
            if refused is not None:
                raise self.child.error(refused)
            assert self._conn is not None
            self._conn.send(("ping",))
            message = self._receive(time.monotonic() + timeout_s, should_cancel=None, what="answering a ping")
            return int(message[1])


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"
