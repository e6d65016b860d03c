"""The app's queue client, for the routes of every kind of job."""

from typing import Annotated

import anyio
from fastapi import Depends, Request
from starlette.datastructures import State

from app.jobs.queue import JobQueue


def app_job_queue(state: State) -> JobQueue:
    """The app's queue client, built on first use from settings.queue_url."""
    queue: JobQueue | None = getattr(state, "job_queue", None)
    if queue is None:
        queue = JobQueue(state.settings.queue_url)
        state.job_queue = queue
    return queue


async def get_job_queue(request: Request) -> JobQueue:
    # On the loop once it is built; building it may make the queue's SQLite file: in a thread.
    queue: JobQueue | None = getattr(request.app.state, "job_queue", None)
    return queue if queue is not None else await anyio.to_thread.run_sync(app_job_queue, request.app.state)


QueueDep = Annotated[JobQueue, Depends(get_job_queue)]
