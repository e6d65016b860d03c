"""The runner's child process: reused between jobs, killed and replaced on cancel, timeout, crash."""

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from app.demos.child import CHILD, demo_error, run, run_in_process
from app.jobs.child_process import ChildCancelled, ChildCrashed, ChildFailed, ChildTimedOut
from app.presets import ParamError, PresetUnavailable
from app.worker.runner import ChildRunner

pytestmark = [pytest.mark.load, pytest.mark.engine_agnostic]

QUICK = {"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_size": 2}
# Long enough to be interrupted: 5 variants x 200 steps x ≥ 20 ms.
LONG = {"steps": 200, "input_ms": 20, "compute_ms": 20, "batch_size": 2}


@pytest.fixture(scope="module")
def runner() -> Iterator[ChildRunner]:
    runner = ChildRunner(CHILD)
    runner.warm()
    yield runner
    runner.close()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_child_is_reused_between_jobs(runner: ChildRunner) -> None:
    pid = runner.child_pid
    assert pid is not None and pid != os.getpid()
    first = run("placement", runner=runner, params=QUICK)
    second = run("synthetic", runner=runner, params=QUICK)
    assert runner.child_pid == pid
    assert first["preset"] == "placement" and second["preset"] == "synthetic"
    assert runner.ping() == pid


def test_progress_is_relayed(runner: ChildRunner) -> None:
    seen: list[dict[str, Any]] = []
    run("deficit", runner=runner, params={**QUICK, "workers": 2}, on_progress=seen.append)
    assert seen[0]["variant"] == "prefetch-only" and seen[0]["steps_done"] == 0
    assert seen[-1] == {
        "variant": "parallel-map",
        "variant_index": 1,
        "variants_total": 2,
        "steps_done": 6,
        "steps_total": 6,
    }


def test_bad_params_are_refused_before_the_child_sees_them(runner: ChildRunner) -> None:
    pid = runner.child_pid
    with pytest.raises(ParamError) as caught:
        run("placement", runner=runner, params={"input_ms": 9999})
    assert caught.value.param == "input_ms"
    assert runner.child_pid == pid


def test_unavailable_preset_keeps_the_child(runner: ChildRunner) -> None:
    pid = runner.child_pid
    try:
        doc = run(
            "to-device", runner=runner, params={"steps": 6, "input_ms": 3, "compute_ms": 3, "batch_mb": 1}
        )
    except PresetUnavailable as refused:
        assert "needs a GPU" in refused.message
    else:  # a GPU worker runs it
        assert doc["environment"]["compute"] == "real"
    assert runner.child_pid == pid


def test_cancel_kills_and_replaces_the_child(runner: ChildRunner) -> None:
    old = runner.child_pid
    assert old is not None
    progress: list[dict[str, Any]] = []
    with pytest.raises(ChildCancelled):
        run(
            "placement",
            runner=runner,
            params=LONG,
            on_progress=progress.append,
            should_cancel=lambda: len(progress) >= 2,
        )
    assert not alive(old)
    assert runner.child_pid not in (None, old)
    assert run("placement", runner=runner, params=QUICK)["preset"] == "placement"


def test_timeout_kills_and_replaces_the_child(runner: ChildRunner) -> None:
    runner.warm()
    old = runner.child_pid
    assert old is not None
    with pytest.raises(ChildTimedOut):
        run("placement", runner=runner, params=LONG, timeout_s=1.0)
    assert not alive(old)
    assert runner.child_pid not in (None, old)
    assert run("synthetic", runner=runner, params=QUICK)["preset"] == "synthetic"


def test_a_killed_child_is_a_crash_and_the_next_job_works(runner: ChildRunner) -> None:
    runner.warm()
    victim = runner.child_pid
    assert victim is not None

    def kill_child(progress: dict[str, Any]) -> None:
        if progress["steps_done"] >= 2 and alive(victim):
            os.kill(victim, signal.SIGKILL)

    with pytest.raises(ChildCrashed, match="signal 9"):
        run("placement", runner=runner, params=LONG, on_progress=kill_child)
    assert runner.child_pid not in (None, victim)
    assert run("placement", runner=runner, params=QUICK)["preset"] == "placement"


def test_close_stops_the_child() -> None:
    runner = ChildRunner(CHILD)
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
    param = demo_error({"kind": "param", "param": "steps", "message": "steps must be between 5 and 500"})
    assert isinstance(param, ParamError) and param.param == "steps"
    assert isinstance(demo_error({"kind": "unavailable", "message": "needs a GPU"}), PresetUnavailable)
    failed = demo_error({"kind": "failed", "message": "InvalidArgumentError: x", "traceback": "tb"})
    assert isinstance(failed, ChildFailed) and failed.detail == "tb" and failed.message.startswith("Invalid")


def test_a_child_past_the_memory_limit_is_stopped_and_replaced(runner: ChildRunner) -> None:
    """TensorFlow alone takes a few hundred MB: a 300 MB limit is crossed at once."""
    pid = runner.child_pid
    assert pid is not None
    runner.memory_limit_mb = 300
    try:
        with pytest.raises(ChildCrashed, match="past this server's limit of 300 MB"):
            run("placement", runner=runner, params=QUICK)
    finally:
        runner.memory_limit_mb = None
    assert not alive(pid)
    assert run("placement", runner=runner, params=QUICK)["preset"] == "placement"


def test_the_child_names_the_gpus_tensorflow_lists_and_a_no_gpu_child_sees_none(runner: ChildRunner) -> None:
    from app.demos import pipelines  # the same TensorFlow in this process

    assert runner.ready_info["gpus"] == pipelines.gpu_names()
    # `tiercards worker --no-gpu`: CUDA shows its child no device, on a GPU host too.
    with ChildRunner(CHILD, hide_gpus=True) as hidden:
        hidden.warm()
        assert hidden.ready_info["gpus"] == []
