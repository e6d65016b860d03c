"""JSON API for live demos: submit, read, cancel, re-run, list; and which workers are alive.

The web never runs a demo: it stores a queued run, puts its id on the queue (QUEUE_URL) and
answers 202. A worker (`tiercards worker`) takes it from there; reads sweep runs whose worker
stopped beating to `interrupted` (app/demo_runs.py).
"""

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from app import demo_runs
from app.content.catalogue import Catalogue
from app.db import Database, SessionDep, WriteSessionDep
from app.demo_views import run_document, worker_document
from app.demos.presets import PRESETS, ParamError, estimate_seconds
from app.loaders import CatalogueDep, UserIdDep, demo_run_or_404
from app.models import DemoRun, utcnow
from app.queue import DemoQueue

router = APIRouter(prefix="/api", tags=["demos"])
log = logging.getLogger("tiercards.demos")


# ---------------------------------------------------------------------------------------------
# Shared with the pages (app/routes/demos.py)


class QueueUnavailable(Exception):
    pass


def demo_queue(request: Request) -> DemoQueue:
    """The app's queue client, built on first use from settings.queue_url."""
    queue: DemoQueue | None = getattr(request.app.state, "demo_queue", None)
    if queue is None:
        queue = DemoQueue(request.app.state.settings.queue_url)
        request.app.state.demo_queue = queue
    return queue


def heartbeat_timeout(request: Request) -> float:
    return float(request.app.state.settings.demo_heartbeat_timeout_seconds)


def sweep_stale(request: Request, run_ids: list[str] | None = None) -> None:
    """Every read of runs first marks runs whose worker stopped beating as interrupted.

    A cheap read decides; the write (and its lock) happens only when something is stale.
    """
    db: Database = request.app.state.db
    timeout = heartbeat_timeout(request)
    with db.read_sessions() as session:
        stale = demo_runs.has_stale(session, timeout, run_ids)
    if stale:
        with db.write_sessions() as session:
            demo_runs.sweep_stale(session, timeout)
            session.commit()


def check_card(catalogue: Catalogue, card_id: str | None) -> None:
    if card_id is not None and catalogue.get(card_id) is None:
        raise ParamError("card_id", f"no card with id '{card_id}'")


def submit(
    request: Request,
    session: Session,
    user_id: int,
    preset: str,
    params: dict[str, Any] | None,
    card_id: str | None = None,
    rerun_of: str | None = None,
) -> DemoRun:
    """Store a queued run and put it on the queue. ParamError, QueueFull, QueueUnavailable."""
    run = demo_runs.create_run(session, user_id, preset, params, card_id, rerun_of)
    session.commit()
    try:
        demo_queue(request).enqueue(run.id)
    except Exception as error:
        log.exception("could not enqueue demo run %s", run.id)
        run.status = "failed"
        run.error = f"Could not reach the job queue ({type(error).__name__}); nothing ran. Try again."
        run.finished_at = utcnow()
        session.commit()
        raise QueueUnavailable(run.error) from error
    return run


def resubmit(request: Request, session: Session, user_id: int, old: DemoRun) -> DemoRun:
    """A new run with the same preset, parameters and card as `old`; refused like `submit`."""
    return submit(request, session, user_id, old.preset, dict(old.params), old.card_id, rerun_of=old.id)


SUBMIT_REFUSALS = (ParamError, demo_runs.QueueFull, QueueUnavailable)


def refusal_status(error: Exception) -> int:
    """The HTTP status for why `submit` refused: bad parameters, a full queue, no queue."""
    if isinstance(error, ParamError):
        return 422
    return 429 if isinstance(error, demo_runs.QueueFull) else 503


def param_error_detail(error: ParamError, preset: str | None) -> list[dict[str, Any]]:
    """FastAPI's 422 shape, plus the parameter and its bounds."""
    item: dict[str, Any] = {"type": "value_error", "msg": error.message, "param": error.param}
    if error.param in ("preset", "card_id"):
        item["loc"] = ["body", error.param]
    else:
        item["loc"] = ["body", "params", error.param]
        spec = PRESETS.get(preset or "")
        bounds = {p.name: p for p in spec.params} if spec else {}
        if error.param in bounds:
            item["min"], item["max"] = bounds[error.param].min, bounds[error.param].max
    return [item]


# ---------------------------------------------------------------------------------------------
# Shapes (for the OpenAPI schema)


class DemoIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: str = Field(max_length=32, examples=["placement"])
    params: dict[str, Any] = Field(
        default_factory=dict, examples=[{"input_ms": 30, "compute_ms": 30, "steps": 40}]
    )
    card_id: str | None = Field(default=None, max_length=120)


class DemoAccepted(BaseModel):
    run_id: str
    status: str
    url: str
    rerun_of: str | None = None


class StepOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    start_ms: float
    input_ms: float
    compute_ms: float
    warmup: bool = False


class VariantSummaryOut(BaseModel):
    """A variant's numbers; memory and to-device variants carry a few more (extra keys kept)."""

    model_config = ConfigDict(extra="allow")

    name: str
    label: str | None = None
    median_step_ms: float
    p90_step_ms: float
    mean_step_ms: float | None = None
    model_step_ms: float | None
    model_basis: str = "median"
    measured_over_model: float | None = None


class VariantOut(VariantSummaryOut):
    steps: list[StepOut]


class DemoRunSummaryOut(BaseModel):
    run_id: str
    preset: str
    title: str
    card_id: str | None
    params: dict[str, int]
    status: str
    progress: dict[str, Any]
    cancel_requested: bool
    environment: dict[str, Any] | None
    variants: Sequence[VariantSummaryOut]
    reading: str | None
    model: str | None
    error: str | None
    worker: str | None
    rerun_of: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    heartbeat_at: datetime | None


class DemoRunOut(DemoRunSummaryOut):
    variants: Sequence[VariantOut]


class DemoRunList(BaseModel):
    runs: list[DemoRunSummaryOut]


class CancelOut(BaseModel):
    run_id: str
    status: str
    cancel_requested: bool


# ---------------------------------------------------------------------------------------------
# Routes


def _accepted(run: DemoRun) -> JSONResponse:
    body = DemoAccepted(run_id=run.id, status=run.status, url=f"/demos/{run.id}", rerun_of=run.rerun_of)
    return JSONResponse(body.model_dump(), status_code=status.HTTP_202_ACCEPTED)


def _refused(error: Exception, preset: str) -> HTTPException:
    """Why a run was not queued, as the HTTP error _SUBMIT_RESPONSES documents."""
    status_code = refusal_status(error)
    if isinstance(error, ParamError):
        return HTTPException(status_code=status_code, detail=param_error_detail(error, preset))
    headers = {"Retry-After": "10"} if status_code == 429 else None
    return HTTPException(status_code=status_code, detail=str(error), headers=headers)


_SUBMIT_RESPONSES: dict[int | str, dict[str, Any]] = {
    202: {"model": DemoAccepted, "description": "Queued"},
    422: {"description": "A parameter is out of bounds; the detail names it and its range"},
    429: {"description": "Three demos of yours are already waiting"},
    503: {"description": "The job queue could not be reached"},
}


@router.post("/demos", status_code=status.HTTP_202_ACCEPTED, responses=_SUBMIT_RESPONSES)
async def create_demo(
    request: Request, data: DemoIn, session: WriteSessionDep, user_id: UserIdDep, catalogue: CatalogueDep
) -> JSONResponse:
    """Queue a demo run; poll GET /api/demos/{run_id} (or open /demos/{run_id}) for its result."""
    try:
        check_card(catalogue, data.card_id)
        run = submit(request, session, user_id, data.preset, data.params, data.card_id)
    except SUBMIT_REFUSALS as error:
        raise _refused(error, data.preset) from error
    return _accepted(run)


@router.get("/demos")
def list_demos(
    request: Request,
    session: SessionDep,
    user_id: UserIdDep,
    card_id: Annotated[str | None, Query(max_length=120)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> DemoRunList:
    """Your runs, newest first (without per-step data), optionally for one card."""
    sweep_stale(request)
    runs = demo_runs.runs_for(session, user_id, card_id, limit)
    return DemoRunList.model_validate({"runs": [run_document(r, steps=False) for r in runs]})


@router.get("/demo-presets")
def list_presets() -> dict[str, Any]:
    """Every preset: its variants, parameters with bounds and defaults, and the model it checks."""
    return {
        "presets": [
            {**spec.to_dict(), "estimate_seconds": estimate_seconds(name, spec.defaults())}
            for name, spec in PRESETS.items()
        ]
    }


@router.get("/demos/{run_id}")
def get_demo(request: Request, run_id: str, session: SessionDep, user_id: UserIdDep) -> DemoRunOut:
    """The result document: status and progress while it runs; variants, reading and environment
    when it is done; the error when it failed, was cancelled or interrupted."""
    sweep_stale(request, [run_id])
    run = demo_run_or_404(session, user_id, run_id)
    return DemoRunOut.model_validate(run_document(run))


@router.post("/demos/{run_id}/cancel", responses={409: {"description": "The run has finished"}})
async def cancel_demo(run_id: str, session: WriteSessionDep, user_id: UserIdDep) -> JSONResponse:
    """A queued run is cancelled at once (200); a running one is stopped by its worker (202)."""
    run = demo_run_or_404(session, user_id, run_id)
    try:
        demo_runs.request_cancel(session, run)
    except demo_runs.AlreadyFinished as error:
        raise HTTPException(status_code=409, detail=str(error)) from error
    session.commit()
    body = CancelOut(run_id=run.id, status=run.status, cancel_requested=run.cancel_requested)
    code = status.HTTP_202_ACCEPTED if run.status == "running" else status.HTTP_200_OK
    return JSONResponse(body.model_dump(), status_code=code)


@router.post("/demos/{run_id}/rerun", status_code=status.HTTP_202_ACCEPTED, responses=_SUBMIT_RESPONSES)
async def rerun_demo(
    request: Request, run_id: str, session: WriteSessionDep, user_id: UserIdDep
) -> JSONResponse:
    """A new run with the same preset, parameters and card."""
    old = demo_run_or_404(session, user_id, run_id)
    try:
        run = resubmit(request, session, user_id, old)
    except SUBMIT_REFUSALS as error:
        raise _refused(error, old.preset) from error
    return _accepted(run)


@router.get("/workers")
def list_workers(request: Request, session: SessionDep) -> dict[str, Any]:
    """Demo workers that sent a heartbeat within the timeout. None: jobs wait in the queue."""
    timeout = heartbeat_timeout(request)
    workers = demo_runs.alive_workers(session, timeout)
    return {
        "workers": [worker_document(w) for w in workers],
        "heartbeat_timeout_seconds": timeout,
        "queue": demo_queue(request).kind,
    }
