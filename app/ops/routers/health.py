"""Liveness and readiness for whoever runs the app (a load balancer, an orchestrator).

/healthz says the process answers and touches nothing else, so a database outage never gets
healthy replicas restarted. /readyz says whether this replica can serve: the database answers and
the demo queue can be read; otherwise 503, naming what is down, so traffic goes elsewhere until it
is back (no restart needed: connections are made again on the next request).
"""

import asyncio
from typing import Literal

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.content.dependencies import CatalogueDep
from app.ops.probes import ProbesDep

router = APIRouter(tags=["health"])

Check = Literal["ok", "down"]


class Liveness(BaseModel):
    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    status: Literal["ok", "unavailable"]
    database: Check = Field(description="SELECT 1 answered within a few seconds.")
    queue: Check = Field(description="The demo queue (Redis or its SQLite file) could be read.")
    down: dict[str, str] = Field(
        description="Each part that is down, with why: an error's name or a timeout."
    )
    cards: int = Field(description="Cards served.")
    broken_files: int = Field(description="Card files that failed to load (see the card library).")


@router.get("/healthz")
async def healthz() -> Liveness:
    return Liveness()


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "The database or the demo queue is down"}},
)
async def readyz(probes: ProbesDep, catalogue: CatalogueDep) -> JSONResponse:
    (_, database), (_, queue) = await asyncio.gather(probes.database.outcome(), probes.queue_depth.outcome())
    down = {part: why for part, why in (("database", database), ("queue", queue)) if why is not None}
    # The catalogue may rescan the card folder: file work, off the loop like the reads above.
    snapshot = await anyio.to_thread.run_sync(catalogue.snapshot)
    readiness = Readiness(
        status="unavailable" if down else "ok",
        database="down" if database else "ok",
        queue="down" if queue else "ok",
        down=down,
        cards=len(snapshot.cards),
        broken_files=len(snapshot.broken),
    )
    return JSONResponse(readiness.model_dump(), status_code=503 if down else 200)
