"""The demo queue carries JSON only: a run id goes through, a pickled payload never runs. Runs go
on their preset's lane: GPU presets on a queue of their own, which only GPU workers read."""

import json
import pickle
from pathlib import Path

import pytest

from app.jobs.queue import LANES, JobQueue, lane_for, lanes_for, turn_order
from app.presets import PRESETS

pytestmark = pytest.mark.engine_agnostic

MARKER = "pwned"


class Payload:
    """What an attacker with write access to the queue would put there: code that runs on load."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (Path.write_text, (str(self.path / MARKER), "ran"))  # type: ignore[return-value]


@pytest.fixture
def queue(tmp_path: Path) -> JobQueue:
    return JobQueue(f"sqlite:///{tmp_path / 'queue.db'}")


def test_a_run_id_goes_through_as_json(queue: JobQueue) -> None:
    queue.enqueue("abc123", lane="cpu")
    raw = queue.hueys["cpu"].storage.dequeue()
    message = json.loads(raw)
    assert message["name"].endswith("run_demo") and message["args"] == ["abc123"]
    queue.enqueue("def456", lane="cpu")
    task = queue.hueys["cpu"].dequeue()
    assert task.args == ("def456",)


def test_a_delayed_run_keeps_its_time(queue: JobQueue) -> None:
    queue.enqueue("later", lane="cpu", delay=60)
    task = queue.hueys["cpu"].dequeue()
    assert task.args == ("later",)
    assert task.eta is not None


def test_a_pickled_payload_is_refused_and_never_runs(queue: JobQueue, tmp_path: Path) -> None:
    queue.hueys["cpu"].storage.enqueue(pickle.dumps(Payload(tmp_path)), 0)
    with pytest.raises(ValueError):
        queue.hueys["cpu"].dequeue()
    assert not (tmp_path / MARKER).exists()


def test_a_job_that_is_not_one_run_id_is_refused(queue: JobQueue) -> None:
    forged = {"kind": "huey-message", "name": "run_demo", "args": [{"__class__": "os.system"}]}
    queue.hueys["gpu"].storage.enqueue(json.dumps(forged).encode(), 0)
    with pytest.raises(ValueError):
        queue.hueys["gpu"].dequeue()


def test_gpu_presets_go_on_their_own_lane_and_only_gpu_workers_read_it(queue: JobQueue) -> None:
    assert {name: lane_for(name) for name in PRESETS} == {
        name: "gpu" if spec.needs_gpu else "cpu" for name, spec in PRESETS.items()
    }
    assert lane_for("to-device") == "gpu" and lane_for("placement") == "cpu"
    # A GPU worker reads the GPU lane first, then the rest; a worker without a GPU only the rest.
    assert lanes_for(gpu=True) == ("gpu", "cpu") and lanes_for(gpu=False) == ("cpu",)
    assert len({lane.queue_name for lane in LANES}) == len(LANES)

    queue.enqueue("on-gpu", lane=lane_for("to-device"))
    queue.enqueue("on-cpu", lane=lane_for("placement"))
    assert queue.hueys["cpu"].dequeue().args == ("on-cpu",)
    assert queue.hueys["cpu"].dequeue() is None  # the GPU run is not on the lane every worker reads
    assert queue.run_ids() == {"on-gpu"}
    assert queue.hueys["gpu"].dequeue().args == ("on-gpu",)


def test_after_a_job_of_one_kind_every_other_kind_waiting_comes_first() -> None:
    lanes = ["voice", "speech", "claims", "gpu", "cpu"]
    # Nothing run yet: a person waits on the page for a transcript, so recordings come first.
    assert turn_order(lanes, after=None) == lanes
    # A recording just ran: the demos and readings waiting go before the next recording.
    assert turn_order(lanes, after="speech") == ["claims", "gpu", "cpu", "voice", "speech"]
    assert turn_order(lanes, after="demo") == lanes
    # A kind the worker does not read leaves its order as it is.
    assert turn_order(["speech", "cpu"], after="voice") == ["speech", "cpu"]
