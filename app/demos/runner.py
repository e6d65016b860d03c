"""Runs jobs in reusable child processes: one with TensorFlow loaded for demos, one with the
speech model loaded for transcriptions.

TensorFlow takes seconds to import and cannot be unloaded, and a tf.data pipeline cannot be
stopped from outside mid-step; the speech model takes seconds to load, and decoding a hostile
file runs native code. So the worker keeps ONE child process of each (multiprocessing "spawn":
no forked TensorFlow or thread state) that loads its library once and serves jobs one after
another. Cancelling, a time limit, the memory limit or a crash kills that child with SIGKILL
and starts a fresh one for the next job. `ChildRunner` is that machinery, given the child's
serve function; this module itself never imports TensorFlow nor faster-whisper, and neither
child imports the other's.

Protocol over a Pipe, parent → child: ("job", *payload), ("ping",), ("stop",).
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
import traceback
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Self

import psutil

from app import logs
from app.jobs import child
from app.presets import (
    DemoCancelled,
    DemoCrashed,
    DemoFailed,
    DemoTimedOut,
    ParamError,
    PresetUnavailable,
    validate_params,
)

__all__ = [
    "DemoCancelled",
    "DemoCrashed",
    "DemoFailed",
    "DemoRunner",
    "DemoTimedOut",
    "ParamError",
    "PresetUnavailable",
    "SpeechRunner",
    "run_in_process",
    "warm",
]

ProgressFn = Callable[[dict[str, Any]], None]
CancelFn = Callable[[], bool]
Message = tuple[Any, ...]
# What a child runs: answers its parent's messages until ("stop",); keyword options from the runner.
ServeFn = Callable[..., None]

# How often the parent looks at should_cancel(), the deadline and the child's health.
POLL_INTERVAL_S = 0.2

# Importing TensorFlow (or loading the speech model) in a fresh process; generous because a loaded
# 2-core host is slow at it.
STARTUP_TIMEOUT_S = 180.0


# ---------------------------------------------------------------------------------------------
# The child


def _error_message(exc: BaseException) -> Message:
    if isinstance(exc, ParamError):
        return ("error", {"kind": "param", "param": exc.param, "message": exc.message})
    if isinstance(exc, PresetUnavailable):
        return ("error", {"kind": "unavailable", "message": exc.message})
    return (
        "error",
        {
            "kind": "failed",
            "message": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(),
        },
    )


def serve_demos(conn: Connection) -> None:
    """The demo child: TensorFlow imported once, then presets run one after another."""
    from app.demos import pipelines  # the one TensorFlow import, paid once per child

    def run(payload: Message) -> Message:
        preset, params = payload
        try:
            doc = pipelines.run_preset(
                preset, params=params, on_progress=lambda p: conn.send(("progress", p))
            )
        except Exception as exc:
            return _error_message(exc)
        return ("result", doc)

    ready = {"tensorflow_version": pipelines.tf.__version__, "gpus": pipelines.gpu_names()}
    child.answer(conn, ready=ready, run=run)


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
    serve: ServeFn,
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
    """Owns one child process that runs `serve` and runs one job at a time in it.

    `noun` names the child in the messages a person reads ("the demo process"), `starting` what
    it does before it is ready ("starting TensorFlow").
    """

    def __init__(
        self,
        memory_limit_mb: int | None = None,
        *,
        serve: ServeFn,
        noun: str,
        starting: str,
        options: Mapping[str, Any] | None = None,
        hide_gpus: bool = False,
        production_logs: bool = False,
    ) -> None:
        self.memory_limit_mb = memory_limit_mb
        self.serve = serve
        self.noun = noun
        self.starting = starting
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
                "serve": self.serve,
                "options": self.options,
                "hide_gpus": self.hide_gpus,
                "production_logs": self.production_logs,
            },
            name=f"tiercards-{self.noun.split()[-2]}-runner",
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
            self._ensure_ready(None, timeout_s)
        return time.monotonic() - started

    def close(self) -> None:
        """Ask the child to stop; kill it if it does not within a few seconds."""
        with self._lock:
            process, conn = self._process, self._conn
            if process is None or conn is None:
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
                raise DemoCancelled(f"cancelled while {what}")
            if time.monotonic() > deadline:
                self._replace()
                raise DemoTimedOut(f"timed out while {what}")
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
            raise DemoCrashed(f"{self.noun} died while {what} ({_describe_exit(code)})")

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
            raise DemoCrashed(
                f"{self.noun} used {rss_mb:.0f} MB while {what}, past this server's limit of "
                f"{self.memory_limit_mb} MB, so it was stopped"
            )

    def _ensure_ready(self, should_cancel: CancelFn | None, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        if self._process is None or not self._process.is_alive():
            self._kill()
            self._start()
        if self._ready:
            return
        deadline = time.monotonic() + timeout_s
        while True:
            message = self._receive(deadline, should_cancel=should_cancel, what=self.starting)
            if message[0] == "ready":
                self._ready = True
                self.ready_info = dict(message[1])
                return
            if message[0] == "error":
                # It could not load what it serves with (a missing or changed model): no use
                # starting it again for this job.
                self._kill()
                raise _rebuild_error(message[1])

    def _call(
        self,
        message: Message,
        *,
        doing: str,
        timeout_s: float | None,
        on_progress: ProgressFn | None,
        should_cancel: CancelFn | None,
    ) -> dict[str, Any]:
        """Send one job to the child (waiting for it to be ready) and return its result document.

        `timeout_s` counts from when the job reaches a ready child; `doing` names the job in the
        messages of a cancel, a timeout or a crash.
        """
        with self._lock:
            try:
                self._ensure_ready(should_cancel)
                assert self._conn is not None
                self._conn.send(message)
                deadline = time.monotonic() + (timeout_s if timeout_s is not None else float("inf"))
                return self._await_result(
                    deadline, doing=doing, on_progress=on_progress, should_cancel=should_cancel
                )
            except (DemoCancelled, DemoTimedOut, DemoCrashed, ParamError, PresetUnavailable, DemoFailed):
                raise
            except (BrokenPipeError, ConnectionResetError) as gone:
                # The child died between jobs, before it could take this one.
                self._replace()
                raise DemoCrashed(f"{self.noun} died before it could start the job") from gone
            except BaseException:
                # Anything else (a failing progress callback, KeyboardInterrupt) leaves a job
                # running in the child whose messages would confuse the next one: replace it.
                self._replace()
                raise

    def _await_result(
        self, deadline: float, *, doing: str, on_progress: ProgressFn | None, should_cancel: CancelFn | None
    ) -> dict[str, Any]:
        while True:
            kind, *payload = self._receive(deadline, should_cancel=should_cancel, what=doing)
            if kind == "progress":
                if on_progress is not None:
                    on_progress(payload[0])
            elif kind == "result":
                result: dict[str, Any] = payload[0]
                return result
            elif kind == "error":
                raise _rebuild_error(payload[0])

    def ping(self, timeout_s: float = 10.0) -> int:
        """Round trip to the ready child; returns its pid (for health checks and tests)."""
        with self._lock:
            self._ensure_ready(None)
            assert self._conn is not None
            self._conn.send(("ping",))
            message = self._receive(time.monotonic() + timeout_s, should_cancel=None, what="answering a ping")
            return int(message[1])


class DemoRunner(ChildRunner):
    """Owns one TensorFlow child process and runs one demo at a time in it."""

    def __init__(
        self, memory_limit_mb: int | None = None, *, hide_gpus: bool = False, production_logs: bool = False
    ) -> None:
        super().__init__(
            memory_limit_mb,
            serve=serve_demos,
            noun="the demo process",
            starting="starting TensorFlow",
            hide_gpus=hide_gpus,
            production_logs=production_logs,
        )

    @property
    def tensorflow_version(self) -> str | None:
        return self.ready_info.get("tensorflow_version")

    @property
    def gpus(self) -> list[str] | None:
        """The GPUs TensorFlow lists in the child, once it is ready."""
        return list(self.ready_info["gpus"]) if "gpus" in self.ready_info else None

    def run(
        self,
        preset: str,
        *,
        params: Mapping[str, Any] | None,
        on_progress: ProgressFn | None = None,
        should_cancel: CancelFn | None = None,
        timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """Run one preset in the child and return its result document.

        Parameters are validated here first (ParamError, no child involved). If the child is
        still starting, the job waits for it (cancel is honoured; the start has its own limit);
        `timeout_s` counts from when the job reaches a ready child.
        """
        full = validate_params(preset, params=params, memory_limit_mb=self.memory_limit_mb)
        return self._call(
            ("job", preset, full),
            doing="running the demo",
            timeout_s=timeout_s,
            on_progress=on_progress,
            should_cancel=should_cancel,
        )


class SpeechRunner(ChildRunner):
    """Owns one child process with the speech model loaded (app/speech/child.py) and transcribes
    one recording at a time in it."""

    def __init__(
        self,
        memory_limit_mb: int | None = None,
        *,
        speech_model: str | None,
        hide_gpus: bool = False,
        production_logs: bool = False,
    ) -> None:
        from app.speech import child

        super().__init__(
            memory_limit_mb,
            serve=child.serve,
            noun="the speech process",
            starting="loading the speech model",
            options={"speech_model": speech_model},
            hide_gpus=hide_gpus,
            production_logs=production_logs,
        )

    def transcribe(
        self, job: Mapping[str, Any], *, timeout_s: float, should_cancel: CancelFn | None = None
    ) -> dict[str, Any]:
        """The result document of one `app.speech.child.Job` (what `child.transcribe` returns)."""
        return self._call(
            ("job", dict(job)),
            doing="transcribing the recording",
            timeout_s=timeout_s,
            on_progress=None,
            should_cancel=should_cancel,
        )


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _rebuild_error(info: Mapping[str, Any]) -> Exception:
    kind = info.get("kind")
    message = str(info.get("message", "demo failed"))
    if kind == "param":
        return ParamError(str(info.get("param", "")), message)
    if kind == "unavailable":
        return PresetUnavailable(message)
    detail = info.get("traceback")
    return DemoFailed(message, str(detail) if detail is not None else None)


def warm(runner: DemoRunner | None = None, timeout_s: float = STARTUP_TIMEOUT_S) -> DemoRunner:
    """Start a runner's child (a new runner if none is given) and wait until TensorFlow is loaded."""
    runner = runner or DemoRunner()
    runner.warm(timeout_s)
    return runner


def run_in_process(
    preset: str,
    *,
    params: Mapping[str, Any] | None,
    on_progress: ProgressFn | None = None,
    should_cancel: CancelFn | None = None,
) -> dict[str, Any]:
    """Validate, then run the preset in THIS process (imports TensorFlow): `tiercards demo run`."""
    full = validate_params(preset, params=params)
    from app.demos import pipelines

    return pipelines.run_preset(preset, params=full, on_progress=on_progress, should_cancel=should_cancel)
