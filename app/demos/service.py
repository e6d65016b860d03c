"""Demo runs in the database: creating, claiming, progress, heartbeats, finishing, sweeping.

The one place for the rules both sides share:
- a person has at most MAX_QUEUED runs queued (429 past that) and at most one running: a worker
  claims a run with one UPDATE … WHERE status = 'queued' AND the person has no other run
  running, so two workers can never both take it, nor run two of one person's demos at once;
- a running run whose heartbeat is older than DEMO_HEARTBEAT_TIMEOUT_SECONDS was left behind by
  a worker that died: it is marked `interrupted` whenever anyone reads it, and at worker start;
- a re-run is a new run with the same preset, parameters and card.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import and_, delete, exists, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from app.accounts.models import User
from app.demos.models import DemoRun, WorkerBeat
from app.demos.presets import ParamError, get_preset, validate_params
from app.demos.queue import DemoQueue
from app.exceptions import Conflict, TooMany, Unavailable
from app.storage.base import utcnow
from app.storage.database import Database

log = logging.getLogger("tiercards.demos")

ACTIVE = ("queued", "running")
MAX_QUEUED = 3

INTERRUPTED_MESSAGE = (
    "The worker running this demo stopped sending heartbeats (it was killed or lost its host), "
    "so the run was marked interrupted. Run it again."
)


class QueueFull(TooMany):
    """The person already has MAX_QUEUED runs waiting."""

    def __init__(self, queued: int) -> None:
        super().__init__(
            f"you already have {queued} demos waiting in the queue (at most {MAX_QUEUED}): "
            "wait for one to finish or cancel one"
        )
        self.queued = queued


class AlreadyFinished(Conflict):
    """Cancel asked of a run that has finished."""


class QueueUnavailable(Unavailable):
    """The job queue could not be reached; the run was stored as failed, nothing ran."""


def new_run_id() -> str:
    return uuid.uuid4().hex


# ---------------------------------------------------------------------------------------------
# Web side


def submit(
    session: Session,
    queue: DemoQueue,
    user_id: int,
    preset: str,
    params: dict[str, Any] | None,
    card_id: str | None = None,
    rerun_of: str | None = None,
) -> DemoRun:
    """Store a queued run and put it on the queue. ParamError, QueueFull, QueueUnavailable."""
    run = create_run(session, user_id, preset, params, card_id, rerun_of)
    session.commit()
    try:
        queue.enqueue(run.id)
    except Exception as error:
        log.exception("could not enqueue demo run %s", run.id)
        run.status = "failed"
        run.error = f"Could not reach the job queue ({type(error).__name__}); nothing ran. Try again."
        run.finished_at = utcnow()
        session.commit()
        raise QueueUnavailable(run.error) from error
    return run


def resubmit(session: Session, queue: DemoQueue, user_id: int, old: DemoRun) -> DemoRun:
    """A new run with the same preset, parameters and card as `old`; refused like `submit`."""
    return submit(session, queue, user_id, old.preset, dict(old.params), old.card_id, rerun_of=old.id)


SUBMIT_REFUSALS = (ParamError, QueueFull, QueueUnavailable)


def _lock_person(session: Session, user_id: int) -> None:
    """Serialise the per-person limits: a no-op on SQLite (BEGIN IMMEDIATE already holds the one
    write lock), a row lock on the person on Postgres, where two transactions could otherwise
    both count zero running runs and both claim one."""
    session.execute(select(User.id).where(User.id == user_id).with_for_update())


def create_run(
    session: Session,
    user_id: int,
    preset: str,
    params: dict[str, Any] | None,
    card_id: str | None = None,
    rerun_of: str | None = None,
) -> DemoRun:
    """Validate (ParamError) and store a queued run; the caller commits, then enqueues its id.

    Call inside a write transaction (BEGIN IMMEDIATE), so the count and the insert are one step.
    """
    full = validate_params(preset, params)
    _lock_person(session, user_id)
    queued = session.scalar(
        select(func.count())
        .select_from(DemoRun)
        .where(DemoRun.user_id == user_id, DemoRun.status == "queued")
    )
    if (queued or 0) >= MAX_QUEUED:
        raise QueueFull(queued or 0)
    spec = get_preset(preset)
    run = DemoRun(
        id=new_run_id(),
        user_id=user_id,
        card_id=card_id,
        preset=preset,
        params=full,
        status="queued",
        progress=initial_progress(spec.variant_names, full["steps"]),
        cancel_requested=False,
        rerun_of=rerun_of,
        created_at=utcnow(),
    )
    session.add(run)
    session.flush()
    return run


def initial_progress(variants: list[str], steps: int) -> dict[str, Any]:
    return {
        "variant": variants[0],
        "variant_index": 0,
        "variants_total": len(variants),
        "steps_done": 0,
        "steps_total": steps,
    }


def request_cancel(session: Session, run: DemoRun) -> DemoRun:
    """A queued run is cancelled at once; a running one is flagged for its worker to stop.

    The caller commits. Raises AlreadyFinished for a finished run.
    """
    session.refresh(run)
    if run.status == "queued":
        run.status = "cancelled"
        run.cancel_requested = True
        run.finished_at = utcnow()
        run.error = "Cancelled before it started."
    elif run.status == "running":
        run.cancel_requested = True
    else:
        raise AlreadyFinished(f"the run has already finished ({run.status})")
    return run


def stale_cutoff(timeout_seconds: float, now: datetime | None = None) -> datetime:
    return (now or utcnow()) - timedelta(seconds=timeout_seconds)


def _stale_condition(cutoff: datetime) -> Any:
    return and_(
        DemoRun.status == "running",
        or_(DemoRun.heartbeat_at.is_(None), DemoRun.heartbeat_at < cutoff),
    )


def has_stale(session: Session, timeout_seconds: float, run_ids: list[str] | None = None) -> bool:
    """A cheap read: is any running run (of `run_ids`, or any at all) past its heartbeat?"""
    query = select(DemoRun.id).where(_stale_condition(stale_cutoff(timeout_seconds))).limit(1)
    if run_ids is not None:
        query = query.where(DemoRun.id.in_(run_ids))
    return session.scalar(query) is not None


def sweep_stale_runs(db: Database, timeout_seconds: float, run_ids: list[str] | None = None) -> None:
    """Mark runs whose worker stopped beating as interrupted, before they are read.

    A cheap read decides; the write (and its lock) happens only when something is stale.
    """
    with db.read_sessions() as session:
        stale = has_stale(session, timeout_seconds, run_ids)
    if stale:
        with db.write_sessions() as session:
            sweep_stale(session, timeout_seconds)
            session.commit()


def sweep_stale(session: Session, timeout_seconds: float) -> int:
    """Mark running runs whose heartbeat is too old as interrupted; returns how many. Caller commits."""
    now = utcnow()
    result: Any = session.execute(
        update(DemoRun)
        .where(_stale_condition(stale_cutoff(timeout_seconds, now)))
        .values(status="interrupted", finished_at=now, error=INTERRUPTED_MESSAGE)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


def get_run(session: Session, run_id: str) -> DemoRun | None:
    return session.get(DemoRun, run_id)


def runs_for(session: Session, user_id: int, card_id: str | None = None, limit: int = 20) -> list[DemoRun]:
    query = select(DemoRun).where(DemoRun.user_id == user_id)
    if card_id is not None:
        query = query.where(DemoRun.card_id == card_id)
    return list(session.scalars(query.order_by(DemoRun.created_at.desc()).limit(limit)))


def queue_position(session: Session, run: DemoRun) -> int:
    """1 for the next run a worker will take (runs are taken in the order they were queued)."""
    ahead = session.scalar(
        select(func.count())
        .select_from(DemoRun)
        .where(DemoRun.status == "queued", DemoRun.created_at < run.created_at)
    )
    return (ahead or 0) + 1


def alive_workers(session: Session, timeout_seconds: float) -> list[WorkerBeat]:
    cutoff = stale_cutoff(timeout_seconds)
    query = select(WorkerBeat).where(WorkerBeat.last_seen >= cutoff).order_by(WorkerBeat.started_at)
    return list(session.scalars(query))


# ---------------------------------------------------------------------------------------------
# Worker side


@dataclass(frozen=True)
class Claimed:
    run_id: str
    user_id: int
    preset: str
    params: dict[str, Any]


ClaimResult = Claimed | Literal["busy", "gone"]


def claim(session: Session, run_id: str, worker: str, timeout_seconds: float) -> ClaimResult:
    """Take a queued run for `worker` atomically, or say why not; commits.

    "busy": the person has another run running (try again shortly); "gone": the run is no longer
    queued (cancelled, taken by another worker, or deleted).
    """
    sweep_stale(session, timeout_seconds)
    owner = session.scalar(select(DemoRun.user_id).where(DemoRun.id == run_id))
    if owner is None:
        session.commit()
        return "gone"
    _lock_person(session, owner)
    now = utcnow()
    other = aliased(DemoRun)
    someone_running = exists().where(other.user_id == DemoRun.user_id, other.status == "running")
    result: Any = session.execute(
        update(DemoRun)
        .where(DemoRun.id == run_id, DemoRun.status == "queued", ~someone_running)
        .values(status="running", worker=worker, started_at=now, heartbeat_at=now)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount == 1:
        run = session.get(DemoRun, run_id)
        session.commit()
        assert run is not None
        return Claimed(run.id, run.user_id, run.preset, dict(run.params))
    status = session.scalar(select(DemoRun.status).where(DemoRun.id == run_id))
    session.commit()
    return "busy" if status == "queued" else "gone"


def record_progress(session: Session, run_id: str, progress: dict[str, Any] | None) -> bool:
    """Store progress (if given) and the heartbeat; returns whether cancel was asked. Commits."""
    values: dict[str, Any] = {"heartbeat_at": utcnow()}
    if progress is not None:
        values["progress"] = progress
    session.execute(
        update(DemoRun)
        .where(DemoRun.id == run_id, DemoRun.status == "running")
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    cancel = session.scalar(select(DemoRun.cancel_requested).where(DemoRun.id == run_id))
    session.commit()
    return bool(cancel)


def finish(
    session: Session,
    run_id: str,
    worker: str,
    status: str,
    result: dict[str, Any] | None = None,
    error: str | None = None,
    progress: dict[str, Any] | None = None,
) -> None:
    """Store how a run ended. A run swept to `interrupted` meanwhile still gets its real ending:
    its worker was slow to beat, not dead, and the result is worth more than the guess. Commits."""
    values: dict[str, Any] = {"status": status, "finished_at": utcnow(), "result": result, "error": error}
    if progress is not None:
        values["progress"] = progress
    session.execute(
        update(DemoRun)
        .where(DemoRun.id == run_id, DemoRun.worker == worker, DemoRun.status.in_(("running", "interrupted")))
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    session.commit()


def beat(
    session: Session,
    name: str,
    device: str,
    compute: str,
    tensorflow_version: str | None,
    current_run_id: str | None,
    started_at: datetime,
) -> None:
    """Insert or refresh this worker's row. Commits."""
    row = session.get(WorkerBeat, name)
    now = utcnow()
    if row is None:
        session.add(
            WorkerBeat(
                name=name,
                device=device,
                compute=compute,
                tensorflow_version=tensorflow_version,
                current_run_id=current_run_id,
                started_at=started_at,
                last_seen=now,
            )
        )
    else:
        row.device, row.compute, row.tensorflow_version = device, compute, tensorflow_version
        row.current_run_id, row.last_seen = current_run_id, now
    session.commit()


def forget_worker(session: Session, name: str) -> None:
    """A worker that stops cleanly removes its row. Commits."""
    session.execute(delete(WorkerBeat).where(WorkerBeat.name == name))
    session.commit()


def interrupt_orphans(session: Session, host: str, pid_alive: Any, own_name: str | None = None) -> int:
    """At worker start: running runs claimed by a worker on this host whose process is gone are
    interrupted at once, without waiting for their heartbeat to go stale. So are runs claimed
    under this worker's own name (a container restarts with the same pid), since it has claimed
    nothing yet. Commits."""
    rows = session.execute(
        select(DemoRun.id, DemoRun.worker).where(
            DemoRun.status == "running", DemoRun.worker.like(f"{host}:%")
        )
    ).all()
    orphans = [
        run_id
        for run_id, worker in rows
        if worker == own_name
        or (worker and worker.rpartition(":")[2].isdigit() and not pid_alive(int(worker.rpartition(":")[2])))
    ]
    if orphans:
        session.execute(
            update(DemoRun)
            .where(DemoRun.id.in_(orphans), DemoRun.status == "running")
            .values(status="interrupted", finished_at=utcnow(), error=INTERRUPTED_MESSAGE)
            .execution_options(synchronize_session=False)
        )
    session.commit()
    return len(orphans)
