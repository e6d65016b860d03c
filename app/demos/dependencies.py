"""Dependencies of the demo routes: the queue client, the heartbeat timeout, the submitter, a
served card."""

from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import State

from app.content.catalogue import Catalogue
from app.demos.queue import DemoQueue
from app.demos.runs import Submitter
from app.presets import ParamError
from app.web.dependencies import SettingsDep


def app_demo_queue(state: State) -> DemoQueue:
    """The app's queue client, built on first use from settings.queue_url."""
    queue: DemoQueue | None = getattr(state, "demo_queue", None)
    if queue is None:
        queue = DemoQueue(state.settings.queue_url)
        state.demo_queue = queue
    return queue


def get_demo_queue(request: Request) -> DemoQueue:
    return app_demo_queue(request.app.state)


async def get_heartbeat_timeout(settings: SettingsDep) -> float:
    return float(settings.demo_heartbeat_timeout_seconds)


QueueDep = Annotated[DemoQueue, Depends(get_demo_queue)]


def get_submitter(settings: SettingsDep, queue: QueueDep) -> Submitter:
    return Submitter(
        queue, per_minute=settings.demo_submits_per_minute, memory_limit_mb=settings.demo_memory_limit_mb
    )


SubmitterDep = Annotated[Submitter, Depends(get_submitter)]
HeartbeatTimeoutDep = Annotated[float, Depends(get_heartbeat_timeout)]


def check_card(catalogue: Catalogue, card_id: str | None) -> None:
    """A run names a card that is served, or none."""
    if card_id is not None and catalogue.get(card_id) is None:
        raise ParamError("card_id", f"no card with id '{card_id}'")
