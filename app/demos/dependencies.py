"""Dependencies of the demo routes: the heartbeat timeout, the submitter, a served card."""

from typing import Annotated

from fastapi import Depends

from app.content.catalogue import Catalogue
from app.demos.runs import Submitter
from app.jobs.dependencies import QueueDep
from app.presets import ParamError
from app.web.dependencies import SettingsDep


async def get_heartbeat_timeout(settings: SettingsDep) -> float:
    return float(settings.demo_heartbeat_timeout_seconds)


async def get_submitter(settings: SettingsDep, queue: QueueDep) -> Submitter:
    return Submitter(
        queue, per_minute=settings.demo_submits_per_minute, memory_limit_mb=settings.demo_memory_limit_mb
    )


SubmitterDep = Annotated[Submitter, Depends(get_submitter)]
HeartbeatTimeoutDep = Annotated[float, Depends(get_heartbeat_timeout)]


def check_card(catalogue: Catalogue, card_id: str | None) -> None:
    """A run names a card that is served, or none."""
    if card_id is not None and catalogue.get(card_id) is None:
        raise ParamError("card_id", f"no card with id '{card_id}'")
