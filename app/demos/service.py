"""Demo runs in the database: creating, claiming, progress, heartbeats, finishing, sweeping.

The one place for the rules both sides share:
- a person has at most MAX_QUEUED runs queued (429 past that) and at most one running: a worker
  claims a run with one UPDATE … WHERE status = 'queued' AND the person has no other run
  running, so two workers can never both take it, nor run two of one person's demos at once;
- a running run whose heartbeat is older than DEMO_HEARTBEAT_TIMEOUT_SECONDS was left behind by
  a worker that died: it is marked `interrupted` whenever anyone reads it, and at worker start;
- a run is queued on its preset's lane (app/demos/queue.py) and claimed only by a worker that
  reads that lane: a GPU preset waits for a GPU worker, however many others are idle;
- a re-run is a new run with the same preset, parameters and card;
- a submit may carry a key (a double click, a retried request): the same key from the same person
  within KEY_WINDOW names the run it started first, under the same person lock as the limits, and
  a unique constraint on (person, key) backs that on every replica.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import and_, delete, exists, func, or_, select, update
from sqlalchemy.orm import Session, aliased, defer

from app.accounts.service import lock_person
from app.accounts.upkeep import purge
from app.demos.models import DemoRun, WorkerBeat
from app.demos.queue import DemoQueue, lane_for, presets_on
from app.exceptions import Conflict, Invalid, TooMany, Unavailable
from app.presets import ParamError, get_preset, validate_params
from app.storage.base import utcnow
from app.storage.database import Database

log = logging.getLogger("tiercards.demos")

ACTIVE = ("queued", "running")
MAX_QUEUED = 3
MAX_SUBMITS_PER_MINUTE = 20
# A queued run missing from the queue for this long was taken by a worker that died before it
# could claim it: the upkeep puts it back.
LOST_AFTER_S = 30.0
# How long a submit's key names its run: long enough for any retry, short enough that a client
# reusing its keys starts new runs the next day.
KEY_WINDOW = timedelta(days=1)

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


class SubmittingTooFast(TooMany):
    """The person started MAX_SUBMITS_PER_MINUTE runs in the last minute."""


class AlreadyFinished(Conflict):
    """Cancel asked of a run that has finished."""


class QueueUnavailable(Unavailable):
    """The job queue could not be reached; the run was stored as failed, nothing ran."""


class KeyReused(Invalid):
    """The submit's key named an earlier run of another preset, parameters or card."""

    def __init__(self) -> None:
        super().__init__(
            "Idempotency-Key",
            "this key was sent before with another demo; a new demo needs a new key",
            location="header",
        )


@dataclass(frozen=True)
class Submitted:
    """What a submit made: `new` is False when its key named an earlier run, which is `run`
    (nothing was stored or queued this time)."""

    run: DemoRun
    new: bool = True


def new_run_id() -> str:
    return uuid.uuid4().hex


# ---------------------------------------------------------------------------------------------
# Web side


@dataclass(frozen=True)
class Submitter:
    """Starts runs: stores each queued run, then puts its id on the queue."""

    queue: DemoQueue
    # Runs one person may start in a minute: bounds submit-and-cancel loops that fill the queue.
    per_minute: int = MAX_SUBMITS_PER_MINUTE
    # The runner's memory limit; runs whose buffers could exceed it are refused.
    memory_limit_mb: int | None = None

    def submit(
        self,
        session: Session,
        user_id: int,
        preset: str,
        params: dict[str, Any] | None,
        card_id: str | None = None,
        rerun_of: str | None = None,
        key: str | None = None,
    ) -> Submitted:
        """ParamError, KeyReused, QueueFull, SubmittingTooFast or QueueUnavailable when it refuses."""
        submitted = create_run(
            session, user_id, preset, params, card_id, rerun_of, self.per_minute, self.memory_limit_mb, key
        )
        session.commit()
        if not submitted.new:
            return submitted
        run = submitted.run
        try:
            self.queue.enqueue(run.id, lane_for(run.preset))
        except Exception as error:
            log.exception("could not enqueue demo run %s", run.id)
            run.status = "failed"
            run.error = f"Could not reach the job queue ({type(error).__name__}); nothing ran. Try again."
            run.finished_at = utcnow()
            # Nothing ran, so trying again with the same key must start the run.
            run.idempotency_key = None
            session.commit()
            raise QueueUnavailable(run.error) from error
        return submitted

    def resubmit(self, session: Session, user_id: int, old: DemoRun, key: str | None = None) -> Submitted:
        """A new run with the same preset, parameters and card as `old`; refused like `submit`."""
        return self.submit(
            session, user_id, old.preset, dict(old.params), old.card_id, rerun_of=old.id, key=key
        )


SUBMIT_REFUSALS = (ParamError, TooMany, QueueUnavailable)


def create_run(
    session: Session,
    user_id: int,
    preset: str,
    params: dict[str, Any] | None,
    card_id: str | None = None,
    rerun_of: str | None = None,
    per_minute: int = MAX_SUBMITS_PER_MINUTE,
    memory_limit_mb: int | None = None,
    key: str | None = None,
) -> Submitted:
    """Validate (ParamError) and store a queued run; the caller commits, then enqueues its id.
    With a key that names a run of the person's within KEY_WINDOW: that run, nothing stored (and
    no limit applies: it is the same submit again), or KeyReused when it was another demo.

    Call inside a write transaction (BEGIN IMMEDIATE), so the count and the insert are one step.
    """
    full = validate_params(preset, params, memory_limit_mb)
    lock_person(session, user_id)
    earlier = _run_with_key(session, user_id, key) if key is not None else None
    if earlier is not None:
        if (earlier.preset, earlier.params, earlier.card_id) != (preset, full, card_id):
            raise KeyReused()
        return Submitted(earlier, new=False)
    _check_rate(session, user_id, per_minute)
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
        idempotency_key=key,
        created_at=utcnow(),
    )
    session.add(run)
    session.flush()
    return Submitted(run)


def _run_with_key(session: Session, user_id: int, key: str) -> DemoRun | None:
    """The person's run that `key` names, if it was started within KEY_WINDOW; an older one gives
    the key up, so that it may name the run about to be stored."""
    run = session.scalar(
        select(DemoRun)
        .options(defer(DemoRun.result, raiseload=True))
        .where(DemoRun.user_id == user_id, DemoRun.idempotency_key == key)
    )
    if run is not None and run.created_at < utcnow() - KEY_WINDOW:
        run.idempotency_key = None
        session.flush()
        return None
    return run


def _check_rate(session: Session, user_id: int, per_minute: int) -> None:
    since = utcnow() - timedelta(minutes=1)
    recent = session.scalar(
        select(func.count())
        .select_from(DemoRun)
        .where(DemoRun.user_id == user_id, DemoRun.created_at >= since)
    )
    if (recent or 0) >= per_minute:
        raise SubmittingTooFast(
            f"you started {recent} demos in the last minute (at most {per_minute}): "
            "wait a little before starting another",
            retry_after=60,
        )


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


def as_seen(session: Session, runs: list[DemoRun], timeout_seconds: float) -> list[DemoRun]:
    """The runs as a reader should see them: a running run whose worker stopped beating reads as
    interrupted. Reading never writes: such a run is detached from the session before it is
    changed, and the workers' upkeep (or the next worker to start) stores the change."""
    cutoff = stale_cutoff(timeout_seconds)
    for run in runs:
        if run.status == "running" and (run.heartbeat_at is None or run.heartbeat_at < cutoff):
            session.expunge(run)
            run.status, run.error = "interrupted", INTERRUPTED_MESSAGE
            run.finished_at = run.heartbeat_at or run.started_at
    return runs


def runs_as_seen(
    session: Session, user_id: int, card_id: str | None, limit: int, timeout_seconds: float
) -> list[DemoRun]:
    """`runs_for`, as a reader should see them (see `as_seen`)."""
    return as_seen(session, runs_for(session, user_id, card_id, limit), timeout_seconds)


def requeue_lost(session: Session, queue: DemoQueue, grace_seconds: float = LOST_AFTER_S) -> int:
    """Put back on the queue the queued runs that are no longer in it (their worker took the job
    and died before claiming it). A run queued twice still runs once: claiming is atomic."""
    cutoff = utcnow() - timedelta(seconds=grace_seconds)
    waiting = session.execute(
        select(DemoRun.id, DemoRun.preset).where(DemoRun.status == "queued", DemoRun.created_at < cutoff)
    ).all()
    if not waiting:
        return 0
    present = queue.run_ids()
    lost = [(run_id, preset) for run_id, preset in waiting if run_id not in present]
    for run_id, preset in lost:
        queue.enqueue(run_id, lane_for(preset))
    return len(lost)


def delete_finished_before(session: Session, cutoff: datetime) -> int:
    """Forget finished runs older than `cutoff` (DEMO_RETENTION_DAYS). Caller commits."""
    result: Any = session.execute(
        delete(DemoRun)
        .where(DemoRun.status.not_in(ACTIVE), DemoRun.created_at < cutoff)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


def upkeep(
    db: Database,
    queue: DemoQueue,
    timeout_seconds: float,
    retention_days: float,
    *,
    session_idle: timedelta,
    audit_retention_days: float,
) -> dict[str, int]:
    """What workers do now and then: store stale runs as interrupted, put lost runs back on the
    queue, delete finished runs past their retention, and forget ended sign-ins, spent invites
    and audit rows past theirs (app/accounts/upkeep.py). Returns how many of each."""
    with db.write_sessions() as session:
        done = {
            "interrupted": sweep_stale(session, timeout_seconds),
            "deleted": delete_finished_before(session, utcnow() - timedelta(days=retention_days)),
            **purge(session, session_idle=session_idle, audit_retention_days=audit_retention_days),
        }
        session.commit()
    with db.read_sessions() as session:
        done["requeued"] = requeue_lost(session, queue)
    return done


def get_run(session: Session, run_id: str) -> DemoRun | None:
    return session.get(DemoRun, run_id)


def latest_measuring(
    session: Session, preset: str, variants: list[str], *, params: Mapping[str, int], look_back: int = 20
) -> DemoRun | None:
    """This server's newest finished run of `preset` that measured every one of `variants` at
    `params` (the ones a card's note names, the others at their defaults) or at the preset's
    defaults, whoever ran it: the figure the note shows beside its claim. A run at any other
    parameters measured something else, so it never stands in. A run from before a variant
    existed lacks it, so a few older runs are looked through."""
    backing = (validate_params(preset, params), validate_params(preset, {}))
    at_backing = or_(
        *(and_(*(DemoRun.params[name].as_integer() == value for name, value in p.items())) for p in backing)
    )
    runs = session.scalars(
        select(DemoRun)
        .options(defer(DemoRun.result))  # the summary has the figures; the result has every step
        .where(DemoRun.preset == preset, DemoRun.status == "done", at_backing)
        .order_by(DemoRun.finished_at.desc())
        .limit(look_back)
    )
    for run in runs:
        measured = {variant.get("name") for variant in (run.summary or {}).get("variants") or []}
        if measured.issuperset(variants):
            return run
    return None


def runs_for(session: Session, user_id: int, card_id: str | None = None, limit: int = 20) -> list[DemoRun]:
    """A person's runs, newest first, with their summaries; the full result is never loaded."""
    query = select(DemoRun).options(defer(DemoRun.result, raiseload=True)).where(DemoRun.user_id == user_id)
    if card_id is not None:
        query = query.where(DemoRun.card_id == card_id)
    return list(session.scalars(query.order_by(DemoRun.created_at.desc()).limit(limit)))


def own_run_ids(session: Session, user_id: int, run_ids: list[str]) -> set[str]:
    """Those of `run_ids` that are runs of `user_id`."""
    if not run_ids:
        return set()
    query = select(DemoRun.id).where(DemoRun.id.in_(run_ids), DemoRun.user_id == user_id)
    return set(session.scalars(query))


def queue_position(session: Session, run: DemoRun) -> int:
    """1 for the next run its lane's workers will take (each lane is taken in the order queued)."""
    ahead = session.scalar(
        select(func.count())
        .select_from(DemoRun)
        .where(
            DemoRun.status == "queued",
            DemoRun.created_at < run.created_at,
            DemoRun.preset.in_(presets_on(lane_for(run.preset))),
        )
    )
    return (ahead or 0) + 1


def alive_workers(session: Session, timeout_seconds: float, host: str | None = None) -> list[WorkerBeat]:
    """Workers that beat within the timeout, oldest first; with `host`, only those on that host."""
    cutoff = stale_cutoff(timeout_seconds)
    query = select(WorkerBeat).where(WorkerBeat.last_seen >= cutoff).order_by(WorkerBeat.started_at)
    if host is not None:
        query = query.where(WorkerBeat.name.startswith(f"{host}:", autoescape=True))
    return list(session.scalars(query))


# ---------------------------------------------------------------------------------------------
# Worker side


@dataclass(frozen=True)
class Claimed:
    run_id: str
    user_id: int
    preset: str
    params: dict[str, Any]


@dataclass(frozen=True)
class OtherLane:
    """The run belongs on a lane this worker does not read (it was queued before lanes existed,
    or by hand): put it there instead of running it."""

    lane: str


ClaimResult = Claimed | OtherLane | Literal["busy", "gone"]


def claim(
    session: Session, run_id: str, worker: str, timeout_seconds: float, lanes: Sequence[str]
) -> ClaimResult:
    """Take a queued run for `worker`, which reads `lanes`, atomically, or say why not; commits.

    "busy": the person has another run running (try again shortly); "gone": the run is no longer
    queued (cancelled, taken by another worker, or deleted); OtherLane: not this worker's to run.
    """
    sweep_stale(session, timeout_seconds)
    found = session.execute(select(DemoRun.user_id, DemoRun.preset).where(DemoRun.id == run_id)).first()
    if found is None:
        session.commit()
        return "gone"
    owner, preset = found
    if lane_for(preset) not in lanes:
        session.commit()
        return OtherLane(lane_for(preset))
    lock_person(session, owner)
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


def summary_of(result: dict[str, Any]) -> dict[str, Any]:
    """The result without each variant's steps (up to 2,500 of them): what lists read."""
    variants = [
        {k: v for k, v in variant.items() if k != "steps"} for variant in result.get("variants") or []
    ]
    return {**result, "variants": variants}


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
    values: dict[str, Any] = {
        "status": status,
        "finished_at": utcnow(),
        "result": result,
        "summary": summary_of(result) if result is not None else None,
        "error": error,
    }
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
    *,
    capabilities: Sequence[str],
    gpu_setting: str,
) -> None:
    """Insert or refresh this worker's row, with the lanes it reads (`capabilities`) and how its
    GPU capability was decided (`gpu_setting`: auto, on, off). Commits."""
    row = session.get(WorkerBeat, name)
    now = utcnow()
    if row is None:
        row = WorkerBeat(name=name, started_at=started_at)
        session.add(row)
    row.device, row.compute, row.tensorflow_version = device, compute, tensorflow_version
    row.capabilities, row.gpu_setting = list(capabilities), gpu_setting
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
