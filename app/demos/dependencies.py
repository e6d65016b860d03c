"""Dependencies of the demo routes: the queue client, the heartbeat timeout, a served card, a
person's run or 404."""

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.datastructures import State

from app.content.catalogue import Catalogue
from app.demos import service
from app.demos.models import DemoRun
from app.demos.queue import DemoQueue
from app.exceptions import NotFound
from app.presets import ParamError


def app_demo_queue(state: State) -> DemoQueue:
    """The app's queue client, built on first use from settings.queue_url."""
    queue: DemoQueue | None = getattr(state, "demo_queue", None)
    if queue is None:
        queue = DemoQueue(state.settings.queue_url)
        state.demo_queue = queue
    return queue


def get_demo_queue(request: Request) -> DemoQueue:
    return app_demo_queue(request.app.state)


async def get_heartbeat_timeout(request: Request) -> float:
    return float(request.app.state.settings.demo_heartbeat_timeout_seconds)


QueueDep = Annotated[DemoQueue, Depends(get_demo_queue)]


def get_submitter(request: Request, queue: QueueDep) -> service.Submitter:
    settings = request.app.state.settings
    return service.Submitter(queue, settings.demo_submits_per_minute, settings.demo_memory_limit_mb)


SubmitterDep = Annotated[service.Submitter, Depends(get_submitter)]
HeartbeatTimeoutDep = Annotated[float, Depends(get_heartbeat_timeout)]


def check_card(catalogue: Catalogue, card_id: str | None) -> None:
    """A run names a card that is served, or none."""
    if card_id is not None and catalogue.get(card_id) is None:
        raise ParamError("card_id", f"no card with id '{card_id}'")


def demo_run_or_404(session: Session, user_id: int, run_id: str) -> DemoRun:
    """A person's demo run; someone else's reads as missing, like one that never existed."""
    run = session.get(DemoRun, run_id) if len(run_id) <= 32 else None
    if run is None or run.user_id != user_id:
        raise NotFound(f"no demo run with id '{run_id}'")
    return run


def visible_run(session: Session, user_id: int, run_id: str, timeout: float) -> DemoRun:
    """A person's run as a page or the API shows it (a run whose worker died reads as interrupted)."""
    return service.as_seen(session, [demo_run_or_404(session, user_id, run_id)], timeout)[0]
