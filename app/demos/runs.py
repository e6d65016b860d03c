"""Demo runs as the web starts and reads them: submit, its limits and key, cancel, and the reads
of pages, API and CLI.

The rules a submit follows:
- a person has at most MAX_QUEUED runs queued (429 past that) and starts at most
  MAX_SUBMITS_PER_MINUTE a minute;
- a run is queued on its preset's lane (app/jobs/queue.py) and claimed only by a worker that
  reads that lane (app/demos/claims.py): a GPU preset waits for a GPU worker;
- a re-run is a new run with the same preset, parameters and card;
- a submit may carry a key (a double click, a retried request): the same key from the same person
  within KEY_WINDOW names the run it started first, under the same person lock as the limits, and
  a unique constraint on (person, key) backs that on every replica.

A running run whose heartbeat is older than DEMO_HEARTBEAT_TIMEOUT_SECONDS was left behind by a
worker that died: every read shows it `interrupted` (`as_seen`), and the workers store that.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session, defer

from app.accounts.service import lock_person
from app.demos.models import DemoRun, WorkerBeat
from app.exceptions import Conflict, Invalid, NotFound, TooMany, Unavailable
from app.jobs.queue import JobQueue, lane_for, presets_on
from app.presets import ParamError, get_preset, validate_params
from app.storage.base import utcnow

log = logging.getLogger("tiercards.demos")

ACTIVE = ("queued", "running")
MAX_QUEUED = 3
MAX_SUBMITS_PER_MINUTE = 20
# How long a submit's key names its run: long enough for any retry, short enough that a client
# reusing its keys starts new runs the next day.
KEY_WINDOW = timedelta(days=1)
# Longer ids name no run: refused before the database is asked.
RUN_ID_MAX = 32

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


@dataclass(frozen=True)
class Submitter:
    """Starts runs: stores each queued run, then puts its id on the queue."""

    queue: JobQueue
    _: KW_ONLY
    # Runs one person may start in a minute: bounds submit-and-cancel loops that fill the queue.
    per_minute: int = MAX_SUBMITS_PER_MINUTE
    # The runner's memory limit; runs whose buffers could exceed it are refused.
    memory_limit_mb: int | None = None

    def submit(
        self,
        session: Session,
        *,
        user_id: int,
        preset: str,
        params: dict[str, Any] | None,
        card_id: str | None = None,
        rerun_of: str | None = None,
        key: str | None = None,
    ) -> Submitted:
        """ParamError, KeyReused, QueueFull, SubmittingTooFast or QueueUnavailable when it refuses."""
        submitted = create_run(
            session,
            user_id=user_id,
            preset=preset,
            params=params,
            card_id=card_id,
            rerun_of=rerun_of,
            per_minute=self.per_minute,
            memory_limit_mb=self.memory_limit_mb,
            key=key,
        )
        session.commit()
        if not submitted.new:
            return submitted
        run = submitted.run
        try:
            self.queue.enqueue(run.id, lane=lane_for(run.preset))
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

    def resubmit(self, session: Session, *, user_id: int, old: DemoRun, key: str | None = None) -> Submitted:
        """A new run with the same preset, parameters and card as `old`; refused like `submit`."""
        return self.submit(
            session,
            user_id=user_id,
            preset=old.preset,
            params=dict(old.params),
            card_id=old.card_id,
            rerun_of=old.id,
            key=key,
        )


SUBMIT_REFUSALS = (ParamError, TooMany, QueueUnavailable)


def create_run(
    session: Session,
    *,
    user_id: int,
    preset: str,
    params: dict[str, Any] | None,
    card_id: str | None = None,
    rerun_of: str | None = None,
    per_minute: int = MAX_SUBMITS_PER_MINUTE,
    memory_limit_mb: int | None = None,
    key: str | None = None,
) -> Submitted:
    """Part of the caller's unit of work: validate (ParamError) and store a queued run, which the
    caller enqueues once it is stored. With a key that names a run of the person's within
    KEY_WINDOW: that run, nothing stored (and no limit applies: it is the same submit again), or
    KeyReused when it was another demo.

    Call inside a write transaction (BEGIN IMMEDIATE), so the count and the insert are one step.
    """
    full = validate_params(preset, params=params, memory_limit_mb=memory_limit_mb)
    lock_person(session, user_id)
    earlier = _run_with_key(session, user_id=user_id, key=key) if key is not None else None
    if earlier is not None:
        if (earlier.preset, earlier.params, earlier.card_id) != (preset, full, card_id):
            raise KeyReused()
        return Submitted(earlier, new=False)
    _check_rate(session, user_id=user_id, per_minute=per_minute)
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


def _run_with_key(session: Session, *, user_id: int, key: str) -> DemoRun | None:
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


def _check_rate(session: Session, *, user_id: int, per_minute: int) -> None:
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

    Raises AlreadyFinished for a finished run, and then stores nothing.
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
    session.commit()
    return run


def stale_cutoff(timeout_seconds: float, now: datetime | None = None) -> datetime:
    return (now or utcnow()) - timedelta(seconds=timeout_seconds)


def own_run(session: Session, *, user_id: int, run_id: str) -> DemoRun:
    """A person's demo run; someone else's reads as missing (NotFound), like one that never existed."""
    run = session.get(DemoRun, run_id) if len(run_id) <= RUN_ID_MAX else None
    if run is None or run.user_id != user_id:
        raise NotFound(f"no demo run with id '{run_id}'")
    return run


def visible_run(session: Session, *, user_id: int, run_id: str, timeout_seconds: float) -> DemoRun:
    """A person's run as a page or the API shows it (a run whose worker died reads as interrupted)."""
    run = own_run(session, user_id=user_id, run_id=run_id)
    return as_seen(session, runs=[run], timeout_seconds=timeout_seconds)[0]


def as_seen(session: Session, *, runs: list[DemoRun], timeout_seconds: float) -> list[DemoRun]:
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
    session: Session, *, user_id: int, card_id: str | None, limit: int, timeout_seconds: float
) -> list[DemoRun]:
    """`runs_for`, as a reader should see them (see `as_seen`)."""
    runs = runs_for(session, user_id=user_id, card_id=card_id, limit=limit)
    return as_seen(session, runs=runs, timeout_seconds=timeout_seconds)


def latest_measuring(
    session: Session, *, preset: str, variants: list[str], params: Mapping[str, int], look_back: int = 20
) -> DemoRun | None:
    """This server's newest finished run of `preset` that measured every one of `variants` at
    `params` (the ones a card's note names, the others at their defaults) or at the preset's
    defaults, whoever ran it: the figure the note shows beside its claim. A run at any other
    parameters measured something else, so it never stands in. A run from before a variant
    existed lacks it, so a few older runs are looked through."""
    backing = (validate_params(preset, params=params), validate_params(preset, params={}))
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


def runs_for(session: Session, *, user_id: int, card_id: str | None = None, limit: int = 20) -> list[DemoRun]:
    """A person's runs, newest first, with their summaries; the full result is never loaded."""
    query = select(DemoRun).options(defer(DemoRun.result, raiseload=True)).where(DemoRun.user_id == user_id)
    if card_id is not None:
        query = query.where(DemoRun.card_id == card_id)
    return list(session.scalars(query.order_by(DemoRun.created_at.desc()).limit(limit)))


def own_run_ids(session: Session, *, user_id: int, run_ids: list[str]) -> set[str]:
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


def alive_workers(session: Session, *, timeout_seconds: float, host: str | None = None) -> list[WorkerBeat]:
    """Workers that beat within the timeout, oldest first; with `host`, only those on that host."""
    cutoff = stale_cutoff(timeout_seconds)
    query = select(WorkerBeat).where(WorkerBeat.last_seen >= cutoff).order_by(WorkerBeat.started_at)
    if host is not None:
        query = query.where(WorkerBeat.name.startswith(f"{host}:", autoescape=True))
    return list(session.scalars(query))
