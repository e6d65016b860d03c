"""The demos' child process, as the worker runs it (app/worker/runner.py): TensorFlow imported
once, then one preset after another; and the same presets run in this process for
`tiercards demo run`.

`pipelines` is imported inside the functions that need it, so that importing this module (the
worker does, to know its child) loads no TensorFlow.
"""

from __future__ import annotations

from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from app.jobs.child_process import CancelFn, Child, Message, ProgressFn, answer, failure, rebuild_error
from app.presets import ParamError, PresetUnavailable, validate_params

if TYPE_CHECKING:  # the child itself never loads the queue and the database the executors need
    from app.jobs.executors import Runner


def _reply(error: Exception) -> Message:
    if isinstance(error, ParamError):
        return ("error", {"kind": "param", "param": error.param, "message": error.message})
    if isinstance(error, PresetUnavailable):
        return ("error", {"kind": "unavailable", "message": error.message})
    return failure(error)


def serve(conn: Connection) -> None:
    """The child's loop: ready once TensorFlow is imported, then one (preset, params) at a time."""
    from app.demos import pipelines  # the one TensorFlow import, paid once per child

    def run(job: tuple[str, dict[str, Any]]) -> Message:
        preset, params = job
        try:
            doc = pipelines.run_preset(
                preset, params=params, on_progress=lambda p: conn.send(("progress", p))
            )
        except Exception as error:
            return _reply(error)
        return ("result", doc)

    ready = {"tensorflow_version": pipelines.tf.__version__, "gpus": pipelines.gpu_names()}
    answer(conn, ready=ready, run=run)


def demo_error(info: Mapping[str, Any]) -> Exception:
    """A preset's own refusals come back as themselves; anything else as the child's failure."""
    message = str(info.get("message", "demo failed"))
    if info.get("kind") == "param":
        return ParamError(str(info.get("param", "")), message)
    if info.get("kind") == "unavailable":
        return PresetUnavailable(message)
    return rebuild_error(info)


CHILD = Child(
    serve=serve,
    library="tensorflow",
    missing="TensorFlow is not installed here: pip install -e '.[worker]' (or tensorflow-cpu)",
    without="runs no demos",
    noun="the demo process",
    starting="starting TensorFlow",
    doing="running the demo",
    error=demo_error,
)


def run(
    preset: str,
    *,
    runner: Runner,
    params: Mapping[str, Any] | None,
    on_progress: ProgressFn | None = None,
    should_cancel: CancelFn | None = None,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """Run one preset in the runner's child and return its result document.

    Parameters are validated here first (ParamError, no child involved), against the runner's
    memory limit.
    """
    full = validate_params(preset, params=params, memory_limit_mb=runner.memory_limit_mb)
    return runner.run(
        (preset, full), timeout_s=timeout_s, on_progress=on_progress, should_cancel=should_cancel
    )


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
