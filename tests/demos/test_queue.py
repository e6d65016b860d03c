"""The demo queue carries JSON only: a run id goes through, a pickled payload never runs."""

import json
import pickle
from pathlib import Path

import pytest

from app.demos.queue import DemoQueue

MARKER = "pwned"


class Payload:
    """What an attacker with write access to the queue would put there: code that runs on load."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (Path.write_text, (str(self.path / MARKER), "ran"))  # type: ignore[return-value]


@pytest.fixture
def queue(tmp_path: Path) -> DemoQueue:
    return DemoQueue(f"sqlite:///{tmp_path / 'queue.db'}")


def test_a_run_id_goes_through_as_json(queue: DemoQueue) -> None:
    queue.enqueue("abc123")
    raw = queue.huey.storage.dequeue()
    message = json.loads(raw)
    assert message["name"].endswith("run_demo") and message["args"] == ["abc123"]
    queue.enqueue("def456")
    task = queue.huey.dequeue()
    assert task.args == ("def456",)


def test_a_delayed_run_keeps_its_time(queue: DemoQueue) -> None:
    queue.enqueue("later", delay=60)
    task = queue.huey.dequeue()
    assert task.args == ("later",)
    assert task.eta is not None


def test_a_pickled_payload_is_refused_and_never_runs(queue: DemoQueue, tmp_path: Path) -> None:
    queue.huey.storage.enqueue(pickle.dumps(Payload(tmp_path)), 0)
    with pytest.raises(ValueError):
        queue.huey.dequeue()
    assert not (tmp_path / MARKER).exists()


def test_a_job_that_is_not_one_run_id_is_refused(queue: DemoQueue) -> None:
    forged = {"kind": "huey-message", "name": "run_demo", "args": [{"__class__": "os.system"}]}
    queue.huey.storage.enqueue(json.dumps(forged).encode(), 0)
    with pytest.raises(ValueError):
        queue.huey.dequeue()
