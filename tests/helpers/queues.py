"""An app's job queue on a redis-server of its own, for the tests of what a person sees while the
queue is down: the real server stopped, then started again on the same port."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from fastapi import FastAPI

from app.jobs.queue import JobQueue
from tests.servers import free_port
from tests.services import redis_server


class StoppableRedis:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self._running = ExitStack()
        self.url = self.start()

    def start(self) -> str:
        url: str = self._running.enter_context(redis_server(self.folder, self.port))
        return url

    def stop(self) -> None:
        self._running.close()


@contextmanager
def queue_on_own_redis(app: FastAPI, folder: Path) -> Iterator[StoppableRedis]:
    """`app` queues its jobs on a redis-server of its own for the test's length."""
    server = StoppableRedis(folder)
    queue = JobQueue(server.url)
    app.state.job_queue = queue
    try:
        yield server
    finally:
        queue.close()
        server.stop()
