"""Demo runs as the workers take and keep them: claims, progress and heartbeats, endings, the
workers' own rows, the stale sweep and the upkeep.

- a person runs at most one demo at a time: a worker claims a run with one UPDATE … WHERE
  status = 'queued' AND the person has no other run running, so two workers can never both take
  it, nor run two of one person's demos at once;
- a run is claimed only by a worker that reads its preset's lane (app/jobs/queue.py);
- a running run whose heartbeat is older than DEMO_HEARTBEAT_TIMEOUT_SECONDS was left behind by
  a worker that died: the upkeep and every worker that starts store it as `interrupted`;
- so is a recording being transcribed by a worker whose row is stale or gone: the same two put it
  back on the queue once, or fail it (app/speech/recordings.py), told here which workers are alive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import and_, delete, exists, or_, select, update
from sqlalchemy.orm import Session, aliased

from app.accounts.service import lock_person
from app.accounts.upkeep import purge
from app.demos.models import DemoRun, WorkerBeat
from app.demos.runs import ACTIVE, INTERRUPTED_MESSAGE, alive_workers, stale_cutoff
from app.jobs.queue import JobQueue, lane_for, speech_lane, speech_lane_now
from app.speech import recordings
from app.storage.base import utcnow
from app.storage.database import Database

# A queued run missing from the queue for this long was taken by a worker that died before it
# could claim it: the upkeep puts it back.
LOST_AFTER_S = 30.0


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


def _stale_condition(cutoff: datetime) -> Any:
    return and_(
        DemoRun.status == "running",
        or_(DemoRun.heartbeat_at.is_(None), DemoRun.heartbeat_at < cutoff),
    )


def sweep_stale(session: Session, timeout_seconds: float) -> int:
    """Part of the caller's unit of work: mark running runs whose heartbeat is too old as
    interrupted; returns how many."""
    now = utcnow()
    result: Any = session.execute(
        update(DemoRun)
        .where(_stale_condition(stale_cutoff(timeout_seconds, now)))
        .values(status="interrupted", finished_at=now, error=INTERRUPTED_MESSAGE)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


def claim(
    session: Session, *, run_id: str, worker: str, timeout_seconds: float, lanes: Sequence[str]
) -> ClaimResult:
    """Take a queued run for `worker`, which reads `lanes`, atomically, or say why not.

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


def get_run(session: Session, run_id: str) -> DemoRun | None:
    return session.get(DemoRun, run_id)


def record_progress(session: Session, *, run_id: str, progress: dict[str, Any] | None) -> bool:
    """Store progress (if given) and the heartbeat; returns whether cancel was asked."""
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
    *,
    run_id: str,
    worker: str,
    status: str,
    result: dict[str, Any] | None = None,
    error: str | None = None,
    progress: dict[str, Any] | None = None,
) -> None:
    """Store how a run ended. A run swept to `interrupted` meanwhile still gets its real ending:
    its worker was slow to beat, not dead, and the result is worth more than the guess."""
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
    *,
    name: str,
    device: str,
    compute: str,
    tensorflow_version: str | None,
    current_run_id: str | None,
    started_at: datetime,
    capabilities: Sequence[str],
    gpu_setting: str,
) -> None:
    """Insert or refresh this worker's row, with the lanes it reads (`capabilities`) and how its
    GPU capability was decided (`gpu_setting`: auto, on, off)."""
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
    """A worker that stops cleanly removes its row."""
    session.execute(delete(WorkerBeat).where(WorkerBeat.name == name))
    session.commit()


def interrupt_orphans(
    session: Session, *, host: str, pid_alive: Callable[[int], bool], own_name: str | None = None
) -> int:
    """At worker start: running runs claimed by a worker on this host whose process is gone are
    interrupted at once, without waiting for their heartbeat to go stale. So are runs claimed
    under this worker's own name (a container restarts with the same pid), since it has claimed
    nothing yet."""
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


def interrupt_left_behind(
    session: Session,
    *,
    timeout_seconds: float,
    host: str,
    pid_alive: Callable[[int], bool],
    own_name: str | None = None,
) -> int:
    """At worker start, in one unit of work: the stale sweep, then `interrupt_orphans`; returns
    how many runs of dead workers were marked interrupted."""
    swept = sweep_stale(session, timeout_seconds)
    return swept + interrupt_orphans(session, host=host, pid_alive=pid_alive, own_name=own_name)


def retry_recordings(
    session: Session,
    *,
    timeout_seconds: float,
    host: str | None = None,
    pid_alive: Callable[[int], bool] = lambda _pid: True,
    own_name: str | None = None,
) -> list[recordings.Requeue]:
    """Part of the caller's unit of work: the recordings dead workers left running go back on
    the queue once or fail, and while no live worker reads the GPU speech lane none waits on it.
    Returns what to enqueue once committed. With `host`, as `interrupt_orphans` judges runs."""
    workers = alive_workers(session, timeout_seconds=timeout_seconds)
    gpu_alive = speech_lane_now(worker.capabilities for worker in workers) == speech_lane(True)
    requeue = recordings.retry_left_behind(
        session,
        alive={worker.name for worker in workers},
        gpu_alive=gpu_alive,
        host=host,
        pid_alive=pid_alive,
        own_name=own_name,
    )
    return requeue if gpu_alive else [*requeue, *recordings.move_off_gpu_lane(session)]


def sweep_at_start(
    session: Session, *, timeout_seconds: float, host: str, pid_alive: Callable[[int], bool], own_name: str
) -> tuple[int, list[recordings.Requeue]]:
    """At worker start, in one unit of work: the recordings dead workers left go back on the queue
    once or fail (`retry_recordings`), and their runs are marked interrupted
    (`interrupt_left_behind`). Returns how many runs, and the recordings to enqueue."""
    retried = retry_recordings(
        session, timeout_seconds=timeout_seconds, host=host, pid_alive=pid_alive, own_name=own_name
    )
    interrupted = interrupt_left_behind(
        session, timeout_seconds=timeout_seconds, host=host, pid_alive=pid_alive, own_name=own_name
    )
    return interrupted, retried


def requeue_lost(session: Session, *, queue: JobQueue, grace_seconds: float = LOST_AFTER_S) -> int:
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
        queue.enqueue(run_id, lane=lane_for(preset))
    return len(lost)


def delete_finished_before(session: Session, cutoff: datetime) -> int:
    """Part of the caller's unit of work: forget finished runs older than `cutoff`
    (DEMO_RETENTION_DAYS)."""
    result: Any = session.execute(
        delete(DemoRun)
        .where(DemoRun.status.not_in(ACTIVE), DemoRun.created_at < cutoff)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


def upkeep(
    db: Database,
    *,
    queue: JobQueue,
    timeout_seconds: float,
    retention_days: float,
    recording_retention_days: float,
    session_idle: timedelta,
    audit_retention_days: float,
    # As KEEP_RECORDINGS: audio is kept only when told to keep it.
    keep_recordings: bool = False,
) -> dict[str, int]:
    """What workers do now and then: store stale runs as interrupted, put lost runs back on the
    queue, delete finished runs past their retention, retry or fail the recordings dead workers
    left running, delete kept audio past its day (all of it without `keep_recordings`) and
    recordings past theirs (app/speech/recordings.py), and forget ended
    sign-ins, spent invites and audit rows past theirs (app/accounts/upkeep.py). Returns how many
    of each."""
    with db.write_sessions() as session:
        requeue = retry_recordings(session, timeout_seconds=timeout_seconds)
        done = {
            "interrupted": sweep_stale(session, timeout_seconds),
            "deleted": delete_finished_before(session, utcnow() - timedelta(days=retention_days)),
            "recording audio deleted": recordings.delete_kept_audio(session, keeping=keep_recordings),
            "recordings deleted": recordings.delete_finished_before(
                session, utcnow() - timedelta(days=recording_retention_days)
            ),
            **purge(session, session_idle=session_idle, audit_retention_days=audit_retention_days),
        }
        session.commit()
    with db.read_sessions() as session:
        done["requeued"] = requeue_lost(session, queue=queue)
        requeue += recordings.lost(session, queue=queue)
    done["recordings requeued"] = recordings.enqueue_all(queue, requeue)
    if done["recording audio deleted"] or done["recordings deleted"]:
        db.erase_deleted()
    return done
