"""The demo job queue: a huey instance built from QUEUE_URL, with the demo task registered on it.

`sqlite:///path` (the default, beside the database) needs nothing installed; `redis://…` lets
workers on other hosts take jobs. The queue only carries run ids: a run's parameters, progress and
result live in the database (app/demo_runs.py), so the web stays stateless and jobs survive a web
restart. Nothing here imports TensorFlow.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from huey import Huey, RedisHuey, SqliteHuey
from huey.registry import Message
from huey.serializer import Serializer

QUEUE_NAME = "tiercards"
MESSAGE_KIND = "huey-message"


class JsonSerializer(Serializer):
    """Queue messages as JSON, never pickle: whoever can write to the queue (a Redis reachable on
    the network) can at most queue a run id, not run code in the worker.

    A message is a task name, a run id and a few numbers; anything else, and any payload that is
    not this JSON, is refused (huey logs it and goes on with the next message).
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
                raise ValueError("a demo job carries one run id")
            value["args"] = tuple(value.get("args") or ())
            return Message(**{key: value.get(key) for key in Message._fields})
        return value


def build_huey(queue_url: str) -> Huey:
    """A huey instance for `queue_url`; results are not kept (the database holds them)."""
    if queue_url.startswith("sqlite:///"):
        path = queue_url.removeprefix("sqlite:///")
        if not path or path == ":memory:":
            raise ValueError("QUEUE_URL must name a SQLite file that the web and the worker share")
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return SqliteHuey(QUEUE_NAME, filename=path, results=False, serializer=JsonSerializer())
    if queue_url.startswith(("redis://", "rediss://", "unix://")):
        return RedisHuey(QUEUE_NAME, url=queue_url, results=False, serializer=JsonSerializer())
    raise ValueError(f"QUEUE_URL must start with sqlite:/// or redis://, not {queue_url!r}")


class DemoQueue:
    """The huey object for one QUEUE_URL and the `run_demo` task registered on it."""

    def __init__(self, queue_url: str) -> None:
        from app.demos import tasks

        self.url = queue_url
        self.huey = build_huey(queue_url)
        self.run_demo: Any = tasks.register(self.huey)

    @property
    def kind(self) -> str:
        return "sqlite" if self.url.startswith("sqlite") else "redis"

    def enqueue(self, run_id: str, delay: float | None = None) -> None:
        """Queue a run by id; with `delay`, not before that many seconds."""
        if delay:
            self.run_demo.schedule((run_id,), delay=delay)
        else:
            self.run_demo(run_id)

    def run_ids(self) -> set[str]:
        """Every run id waiting in the queue or its schedule (messages are JSON, so readable)."""
        storage: Any = self.huey.storage
        found: set[str] = set()
        for raw in [*storage.enqueued_items(), *storage.scheduled_items()]:
            try:
                found.update(str(arg) for arg in self.huey.serializer.deserialize(raw).args)
            except (ValueError, TypeError, AttributeError):
                continue  # not a demo job: nothing to account for
        return found

    def close(self) -> None:
        """Close this thread's connection to the queue (SQLite) or the connection pool (Redis)."""
        storage: Any = self.huey.storage
        close = getattr(storage, "close", None)
        if callable(close):
            close()
        pool = getattr(getattr(storage, "conn", None), "connection_pool", None)
        if pool is not None:
            pool.disconnect()
