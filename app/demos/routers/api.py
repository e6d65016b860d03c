"""JSON API for live demos: submit, read, cancel, re-run, list; and which workers are alive.

The web never runs a demo: it stores a queued run, puts its id on the queue (QUEUE_URL) and
answers 202. A worker (`tiercards worker`) takes it from there; reads sweep runs whose worker
stopped beating to `interrupted` (app/demos/runs.py). Refusals are domain errors, answered
by app/web/errors.py.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, status
from fastapi.responses import JSONResponse

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CatalogueDep
from app.content.parser import ID_PATTERN
from app.demos import runs
from app.demos.dependencies import HeartbeatTimeoutDep, SubmitterDep, check_card
from app.demos.presenters.documents import run_document, workers_document
from app.demos.schemas import CancelOut, DemoAccepted, DemoIn, DemoRunList, DemoRunOut, SubmitKey
from app.jobs.dependencies import QueueDep
from app.presets import PRESETS, estimate_seconds
from app.storage.dependencies import SessionDep, WriteSessionDep

router = APIRouter(prefix="/api", tags=["demos"])


def _accepted(submitted: runs.Submitted) -> JSONResponse:
    run = submitted.run
    body = DemoAccepted(run_id=run.id, status=run.status, url=f"/demos/{run.id}", rerun_of=run.rerun_of)
    code = status.HTTP_202_ACCEPTED if submitted.new else status.HTTP_200_OK
    return JSONResponse(body.model_dump(), status_code=code)


_SUBMIT_RESPONSES: dict[int | str, dict[str, Any]] = {
    202: {"model": DemoAccepted, "description": "Queued"},
    422: {"description": "A parameter is out of bounds; the detail names it and its range"},
    429: {"description": "Three demos of yours are already waiting, or you started too many this minute"},
    503: {"description": "The job queue could not be reached"},
}


@router.post(
    "/demos",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        **_SUBMIT_RESPONSES,
        200: {
            "model": DemoAccepted,
            "description": "The Idempotency-Key named a run already started: that run",
        },
        422: {
            "description": "A parameter is out of bounds (the detail names it and its range), or the "
            "Idempotency-Key was sent before with another demo"
        },
    },
)
def create_demo(
    *,
    data: DemoIn,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    submitter: SubmitterDep,
    idempotency_key: Annotated[
        SubmitKey | None,
        Header(
            alias="Idempotency-Key",
            description="Any value unique to this submit (a UUID). Sent again within a day, with "
            "the same demo, it answers 200 with the run it started instead of starting another; "
            "different people's keys never meet.",
        ),
    ] = None,
) -> JSONResponse:
    """Queue a demo run; poll GET /api/demos/{run_id} (or open /demos/{run_id}) for its result."""
    check_card(catalogue, data.card_id)
    return _accepted(
        submitter.submit(
            session,
            user_id=user_id,
            preset=data.preset,
            params=data.params,
            card_id=data.card_id,
            key=idempotency_key,
        )
    )


@router.get("/demos")
def list_demos(
    *,
    session: SessionDep,
    timeout: HeartbeatTimeoutDep,
    user_id: UserIdDep,
    card_id: Annotated[str | None, Query(max_length=120, pattern=ID_PATTERN.pattern)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> DemoRunList:
    """Your runs, newest first (without per-step data), optionally for one card."""
    seen = runs.runs_as_seen(session, user_id=user_id, card_id=card_id, limit=limit, timeout_seconds=timeout)
    workers = runs.alive_workers(session, timeout_seconds=timeout)
    return DemoRunList.model_validate({"runs": [run_document(r, workers=workers, steps=False) for r in seen]})


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
def get_demo(
    *, run_id: str, session: SessionDep, user_id: UserIdDep, timeout: HeartbeatTimeoutDep
) -> DemoRunOut:
    """The result document: status and progress while it runs, and what it waits for while it is
    queued (a GPU preset waits for a GPU worker); variants, reading and environment when it is
    done; the error when it failed, was cancelled or interrupted."""
    run = runs.visible_run(session, user_id=user_id, run_id=run_id, timeout_seconds=timeout)
    return DemoRunOut.model_validate(
        run_document(run, workers=runs.alive_workers(session, timeout_seconds=timeout))
    )


@router.post("/demos/{run_id}/cancel", responses={409: {"description": "The run has finished"}})
def cancel_demo(*, run_id: str, session: WriteSessionDep, user_id: UserIdDep) -> JSONResponse:
    """A queued run is cancelled at once (200); a running one is stopped by its worker (202)."""
    run = runs.request_cancel(session, runs.own_run(session, user_id=user_id, run_id=run_id))
    body = CancelOut(run_id=run.id, status=run.status, cancel_requested=run.cancel_requested)
    code = status.HTTP_202_ACCEPTED if run.status == "running" else status.HTTP_200_OK
    return JSONResponse(body.model_dump(), status_code=code)


@router.post("/demos/{run_id}/rerun", status_code=status.HTTP_202_ACCEPTED, responses=_SUBMIT_RESPONSES)
def rerun_demo(
    *, run_id: str, session: WriteSessionDep, user_id: UserIdDep, submitter: SubmitterDep
) -> JSONResponse:
    """A new run with the same preset, parameters and card."""
    old = runs.own_run(session, user_id=user_id, run_id=run_id)
    return _accepted(submitter.resubmit(session, user_id=user_id, old=old))


@router.get("/workers")
def list_workers(
    *, session: SessionDep, user_id: UserIdDep, timeout: HeartbeatTimeoutDep, queue: QueueDep
) -> dict[str, Any]:
    """Demo workers that sent a heartbeat within the timeout, with their capabilities (the queue
    lanes they read: `gpu` for GPU workers). None: jobs wait in the queue. `current_run_id` is
    named only when the run is yours (null otherwise, busy or not)."""
    workers = runs.alive_workers(session, timeout_seconds=timeout)
    running = [w.current_run_id for w in workers if w.current_run_id]
    mine = runs.own_run_ids(session, user_id=user_id, run_ids=running)
    return workers_document(workers, timeout=timeout, queue_kind=queue.kind, shown_runs=mine)
