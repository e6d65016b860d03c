"""The job queue: one huey queue per lane, built from QUEUE_URL, with the task of the lane's kind
registered on it (app/jobs/tasks.py): demo runs, transcriptions of recorded answers, and the
entailment model's readings of typed answers.

`sqlite:///path` (the default, beside the database) needs nothing installed; `redis://…` lets
workers on other hosts take jobs. The queue only carries run ids: a run's parameters, progress and
result live in the database (app/demos/runs.py, app/demos/claims.py), so the web stays stateless
and jobs survive a web restart. Nothing here imports TensorFlow.

A run goes on the lane of its preset (`lane_for`): presets that need a GPU on their own lane, which
only GPU workers read, so a worker without a GPU never takes (and never fails) one of them.
Recordings have lanes of their own (`speech_lane`): the GPU one while a GPU worker is alive, else
the one every worker reads. The model's readings of answers (`claims`) have one lane, which every
worker whose model loaded reads (the model runs on the CPU, GPU or not), and go on it only while a
live worker reads it: without one the page keeps the lexical suggestion.
A worker looks at the speech lanes, then the claims lanes, before the demo lanes, since a person is
waiting on the page for the transcript or the reading; but once it has run a job of one kind, the
other kinds come first (`turn_order`), so a stream of recordings cannot hold a demo back by more
than one job, and a stream of demos cannot hold a transcript back by more than one run.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from huey import Huey, RedisHuey, SqliteHuey
from huey.registry import Message
from huey.serializer import Serializer

from app.jobs import tasks
from app.jobs.tasks import JobKind
from app.presets import PRESETS, get_preset
from app.storage.private import private_sqlite

MESSAGE_KIND = "huey-message"


@dataclass(frozen=True)
class Lane:
    # The capability a worker advertises when it reads this lane (demo lanes).
    name: str
    # huey's name for the queue: the Redis keys' suffix, the SQLite queue column.
    queue_name: str
    # Only workers with a GPU read it; its jobs are the presets that need one, or the recordings
    # queued while a GPU worker was alive.
    needs_gpu: bool
    # What its jobs are: demo runs (app/demos), transcriptions (app/speech), model readings of
    # answers (app/practice/readings.py) or questions said aloud (app/speech/voicing.py).
    kind: JobKind = "demo"


# Every lane, in the order a worker that reads several of them looks: speech and claims first (a
# person is waiting on the page), then GPU jobs, because only GPU workers can take them while any
# worker takes the rest.
LANES: tuple[Lane, ...] = (
    # A question said aloud takes a fraction of a second, and a person waits to hear it.
    Lane("voice", "tiercards-voice", needs_gpu=False, kind="voice"),
    Lane("speech-gpu", "tiercards-speech-gpu", needs_gpu=True, kind="speech"),
    Lane("speech", "tiercards-speech", needs_gpu=False, kind="speech"),
    Lane("claims", "tiercards-claims", needs_gpu=False, kind="claims"),
    Lane("gpu", "tiercards-gpu", needs_gpu=True),
    Lane("cpu", "tiercards", needs_gpu=False),
)


def _lanes(kind: JobKind, *, gpu: bool) -> tuple[str, ...]:
    return tuple(lane.name for lane in LANES if lane.kind == kind and (gpu or not lane.needs_gpu))


def lane_for(preset: str) -> str:
    """The lane a run of `preset` is queued on."""
    needs_gpu = get_preset(preset).needs_gpu
    return next(lane.name for lane in LANES if lane.kind == "demo" and lane.needs_gpu == needs_gpu)


def presets_on(lane: str) -> list[str]:
    """The presets whose runs go on `lane`."""
    return [name for name in PRESETS if lane_for(name) == lane]


def lanes_for(gpu: bool) -> tuple[str, ...]:
    """The demo lanes a worker reads, in order: a GPU worker reads every lane, others the rest."""
    return _lanes("demo", gpu=gpu)


def speech_lanes_for(gpu: bool) -> tuple[str, ...]:
    """The speech lanes a worker that can transcribe reads, in order, like `lanes_for`."""
    return _lanes("speech", gpu=gpu)


def claims_lanes_for(gpu: bool) -> tuple[str, ...]:
    """The claims lanes a worker whose entailment model loaded reads, in order, like `lanes_for`."""
    return _lanes("claims", gpu=gpu)


def voice_lanes_for(gpu: bool) -> tuple[str, ...]:
    """The voice lane a worker with flite reads."""
    return _lanes("voice", gpu=gpu)


def speech_lane(gpu_worker_alive: bool) -> str:
    """Where a recording is queued: for a GPU worker while one is alive, else for any worker."""
    return speech_lanes_for(gpu_worker_alive)[0]


def live_lane(kind: JobKind, capabilities: Iterable[Sequence[str] | None]) -> str | None:
    """The lane a job of `kind` goes on now, from the capabilities of the live workers (a worker
    lists a kind's lanes once its model loaded): the kind's GPU lane while one of them reads it,
    else the lane every worker of the kind reads; None while none reads either."""
    read = {lane for lanes in capabilities for lane in lanes or ()}
    return next((lane for lane in _lanes(kind, gpu=True) if lane in read), None)


def speech_lane_now(capabilities: Iterable[Sequence[str] | None]) -> str:
    """The lane a recording goes on now (`live_lane`); with no transcribing worker alive, the lane
    every one of them reads, where it waits for the first."""
    return live_lane("speech", capabilities) or speech_lane(False)


def kind_of(lane: str) -> JobKind:
    return next(known.kind for known in LANES if known.name == lane)


def turn_order(lanes: Sequence[str], *, after: JobKind | None) -> list[str]:
    """`lanes` (a worker's, in its order) in the order it looks once it has run a job of kind
    `after`: the kinds that follow that one first, then the kinds before it, then its own. Each
    kind with jobs waiting gets its turn, whoever keeps another kind's lanes full."""
    kinds = list(dict.fromkeys(kind_of(lane) for lane in lanes))
    if after in kinds:
        at = kinds.index(after) + 1
        kinds = kinds[at:] + kinds[:at]
    return [lane for kind in kinds for lane in lanes if kind_of(lane) == kind]


def queue_kind(queue_url: str) -> str:
    return "sqlite" if queue_url.startswith("sqlite") else "redis"


class JsonSerializer(Serializer):
    """Queue messages as JSON, never pickle: whoever can write to the queue (a Redis reachable on
    the network) can at most queue a run id, not run code in the worker.

    A message is a task name, a run id and a few numbers; anything else, and any payload that is
    not this JSON, is refused (the worker logs it and goes on with the next message).
    """

    def _serialize(self, data: Any) -> bytes:
        if isinstance(data, Message):
            fields = data._asdict()
            if isinstance(fields["eta"], datetime.datetime):
                fields["eta"] = fields["eta"].isoformat()
            data = {"kind": MESSAGE_KIND, **fields}
        return json.dumps(data, allow_nan=False).encode()

    def _deserialize(self, data: bytes) -> Any:
        value = json.loads(data)
        if isinstance(value, dict) and value.pop("kind", None) == MESSAGE_KIND:
            if value.get("eta") is not None:
                value["eta"] = datetime.datetime.fromisoformat(value["eta"])
            if not all(isinstance(arg, str) for arg in value.get("args") or ()):
                raise ValueError("a job carries one id: a demo run's, a recording's or an attempt's")
            value["args"] = tuple(value.get("args") or ())
            return Message(**{key: value.get(key) for key in Message._fields})
        return value


def build_huey(queue_url: str, name: str) -> Huey:
    """A huey instance for queue `name` at `queue_url`; results are not kept (the database holds
    them). Reads never block: a worker looks at each of its lanes in turn."""
    if queue_url.startswith("sqlite:///"):
        path = queue_url.removeprefix("sqlite:///")
        if not path or path == ":memory:":
            raise ValueError("QUEUE_URL must name a SQLite file that the web and the worker share")
        # Messages name recordings and runs: the file is private like the database.
        private_sqlite(queue_url)
        return SqliteHuey(name, filename=path, results=False, serializer=JsonSerializer())
    if queue_url.startswith(("redis://", "rediss://", "unix://")):
        return RedisHuey(name, url=queue_url, results=False, serializer=JsonSerializer(), blocking=False)
    raise ValueError(f"QUEUE_URL must start with sqlite:/// or redis://, not {queue_url!r}")


class JobQueue:
    """The huey queue of every lane for one QUEUE_URL, with its kind's task on each."""

    def __init__(self, queue_url: str) -> None:
        self.url = queue_url
        self.hueys: dict[str, Huey] = {lane.name: build_huey(queue_url, lane.queue_name) for lane in LANES}
        self._tasks: dict[str, Any] = {
            lane.name: tasks.register(self.hueys[lane.name], lane=lane.name, kind=lane.kind) for lane in LANES
        }

    @property
    def kind(self) -> str:
        return queue_kind(self.url)

    def enqueue(self, job_id: str, *, lane: str, delay: float | None = None) -> None:
        """Queue a demo run, a recording or an attempt by id on `lane` (the id's kind is the lane's); with
        `delay`, not before that many seconds."""
        if delay:
            self._tasks[lane].schedule((job_id,), delay=delay)
        else:
            self._tasks[lane](job_id)

    def run_ids(self, kind: JobKind = "demo") -> set[str]:
        """Every id waiting on a lane of `kind` or in its schedule (messages are JSON, so readable)."""
        found: set[str] = set()
        for lane in LANES:
            if lane.kind != kind:
                continue
            huey = self.hueys[lane.name]
            storage: Any = huey.storage
            for raw in [*storage.enqueued_items(), *storage.scheduled_items()]:
                try:
                    found.update(str(arg) for arg in huey.serializer.deserialize(raw).args)
                except (ValueError, TypeError, AttributeError):
                    continue  # not one of our jobs: nothing to account for
        return found

    def close(self) -> None:
        """Close this thread's connection to the queue (SQLite) or the connection pools (Redis)."""
        for huey in self.hueys.values():
            storage: Any = huey.storage
            close = getattr(storage, "close", None)
            if callable(close):
                close()
            pool = getattr(getattr(storage, "conn", None), "connection_pool", None)
            if pool is not None:
                pool.disconnect()
