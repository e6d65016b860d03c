"""The runner's child process: reused between jobs, killed and replaced on cancel, timeout, crash."""

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from app.demos.runner import (
    DemoCancelled,
    DemoCrashed,
    DemoFailed,
    DemoRunner,
    DemoTimedOut,
    ParamError,
    PresetUnavailable,
    _rebuild_error,
    run_in_process,
    warm,
)

pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]

QUICK = {"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_size": 2}
# Long enough to be interrupted: 5 variants x 200 steps x ≥ 20 ms.
LONG = {"steps": 200, "input_ms": 20, "compute_ms": 20, "batch_size": 2}


@pytest.fixture(scope="module")
def runner() -> Iterator[DemoRunner]:
    runner = warm()
    yield runner
    runner.close()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_child_is_reused_between_jobs(runner: DemoRunner) -> None:
    pid = runner.child_pid
    assert pid is not None and pid != os.getpid()
    first = runner.run("placement", params=QUICK)
    second = runner.run("synthetic", params=QUICK)
    assert runner.child_pid == pid
    assert first["preset"] == "placement" and second["preset"] == "synthetic"
    assert runner.ping() == pid


def test_progress_is_relayed(runner: DemoRunner) -> None:
    seen: list[dict[str, Any]] = []
    runner.run("deficit", params={**QUICK, "workers": 2}, on_progress=seen.append)
    assert seen[0]["variant"] == "prefetch-only" and seen[0]["steps_done"] == 0
    assert seen[-1] == {
        "variant": "parallel-map",
        "variant_index": 1,
        "variants_total": 2,
        "steps_done": 6,
        "steps_total": 6,
    }


def test_bad_params_are_refused_before_the_child_sees_them(runner: DemoRunner) -> None:
    pid = runner.child_pid
    with pytest.raises(ParamError) as caught:
        runner.run("placement", params={"input_ms": 9999})
    assert caught.value.param == "input_ms"
    assert runner.child_pid == pid


def test_unavailable_preset_keeps_the_child(runner: DemoRunner) -> None:
    pid = runner.child_pid
    try:
        doc = runner.run("to-device", params={"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_mb": 1})
    except PresetUnavailable as refused:
        assert "needs a GPU" in refused.message
    else:  # a GPU worker runs it
        assert doc["environment"]["compute"] == "real"
    assert runner.child_pid == pid


def test_cancel_kills_and_replaces_the_child(runner: DemoRunner) -> None:
    old = runner.child_pid
    assert old is not None
    progress: list[dict[str, Any]] = []
    with pytest.raises(DemoCancelled):
        runner.run(
            "placement", params=LONG, on_progress=progress.append, should_cancel=lambda: len(progress) >= 2
        )
    assert not alive(old)
    assert runner.child_pid not in (None, old)
    assert runner.run("placement", params=QUICK)["preset"] == "placement"


def test_timeout_kills_and_replaces_the_child(runner: DemoRunner) -> None:
    runner.warm()
    old = runner.child_pid
    assert old is not None
    with pytest.raises(DemoTimedOut):
        runner.run("placement", params=LONG, timeout_s=1.0)
    assert not alive(old)
    assert runner.child_pid not in (None, old)
    assert runner.run("synthetic", params=QUICK)["preset"] == "synthetic"


def test_a_killed_child_is_a_crash_and_the_next_job_works(runner: DemoRunner) -> None:
    runner.warm()
    victim = runner.child_pid
    assert victim is not None

    def kill_child(progress: dict[str, Any]) -> None:
        if progress["steps_done"] >= 2 and alive(victim):
            os.kill(victim, signal.SIGKILL)

    with pytest.raises(DemoCrashed, match="signal 9"):
        runner.run("placement", params=LONG, on_progress=kill_child)
    assert runner.child_pid not in (None, victim)
    assert runner.run("placement", params=QUICK)["preset"] == "placement"


def test_close_stops_the_child() -> None:
    runner = DemoRunner()
    runner.warm()
    pid = runner.child_pid
    assert pid is not None
    runner.close()
    assert runner.child_pid is None
    assert not alive(pid)


def test_run_in_process_validates_and_runs_here() -> None:
    with pytest.raises(ParamError):
        run_in_process("placement", params={"steps": 1})
    doc = run_in_process("synthetic", params=QUICK)
    assert [v["name"] for v in doc["variants"]] == ["real-pipeline", "synthetic-input"]


def test_child_errors_come_back_as_their_own_kinds() -> None:
    param = _rebuild_error({"kind": "param", "param": "steps", "message": "steps must be between 5 and 500"})
    assert isinstance(param, ParamError) and param.param == "steps"
    assert isinstance(_rebuild_error({"kind": "unavailable", "message": "needs a GPU"}), PresetUnavailable)
    failed = _rebuild_error({"kind": "failed", "message": "InvalidArgumentError: x", "traceback": "tb"})
    assert isinstance(failed, DemoFailed) and failed.detail == "tb" and failed.message.startswith("Invalid")


def test_a_child_past_the_memory_limit_is_stopped_and_replaced(runner: DemoRunner) -> None:
    """TensorFlow alone takes a few hundred MB: a 300 MB limit is crossed at once."""
    pid = runner.child_pid
    assert pid is not None
    runner.memory_limit_mb = 300
    try:
        with pytest.raises(DemoCrashed, match="past this server's limit of 300 MB"):
            runner.run("placement", params=QUICK)
    finally:
        runner.memory_limit_mb = None
    assert not alive(pid)
    assert runner.run("placement", params=QUICK)["preset"] == "placement"


def test_the_child_names_the_gpus_tensorflow_lists_and_a_no_gpu_child_sees_none(runner: DemoRunner) -> None:
    from app.demos import pipelines  # the same TensorFlow in this process

    assert runner.gpus == pipelines.gpu_names()
    # `tiercards worker --no-gpu`: CUDA shows its child no device, on a GPU host too.
    with DemoRunner(hide_gpus=True) as hidden:
        hidden.warm()
        assert hidden.gpus == []
