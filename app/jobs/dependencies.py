"""The app's queue client, for the routes of every kind of job."""

from typing import Annotated

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


def get_job_queue(request: Request) -> JobQueue:
    return app_job_queue(request.app.state)


QueueDep = Annotated[JobQueue, Depends(get_job_queue)]
