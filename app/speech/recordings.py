"""Recordings as the workers take and keep them: the claim, how a transcription ended, the
recordings dead workers left behind, lost jobs, and kept audio past its day.

- a worker claims a recording with one UPDATE … WHERE status = 'queued', so two workers can never
  both take it, and a recording queued twice is still transcribed once;
- the audio is deleted in the same transaction that stores the transcript or the failure, unless
  KEEP_RECORDINGS (then it is kept until `keep_audio_until`, or until an upkeep finds
  KEEP_RECORDINGS off);
- a running recording whose worker is no longer alive goes back on the queue once; the second
  time it fails with a sentence and its audio is deleted.

Which workers are alive is the caller's to say (the workers' rows are the demo domain's).
"""

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.jobs.queue import JobQueue, speech_lane
from app.speech.models import Recording, RecordingAudio
from app.storage.base import utcnow

# A recording is taken at most this many times: one retry after its worker died.
MAX_TRIES = 2
STOPPED_TWICE = "The worker stopped twice while transcribing this recording; record it again."
AUDIO_GONE = "The recording's sound is no longer stored, so it cannot be transcribed; record it again."
# A queued recording missing from the queue for this long was taken by a worker that died before
# it could claim it: the upkeep puts it back (as demo runs, app/demos/claims.py).
LOST_AFTER_S = 30.0

Requeue = tuple[str, str]  # (recording id, lane)


@dataclass(frozen=True)
class Claimed:
    recording_id: str
    card_id: str
    kind: str
    tries: int
    audio: bytes


def _fail(session: Session, *, ids: Collection[str], error: str) -> None:
    """Part of the caller's unit of work: these recordings failed with `error`; their audio goes."""
    session.execute(
        update(Recording)
        .where(Recording.id.in_(ids))
        .values(status="failed", error=error, finished_at=utcnow(), keep_audio_until=None)
        .execution_options(synchronize_session=False)
    )
    session.execute(delete(RecordingAudio).where(RecordingAudio.recording_id.in_(ids)))


def claim(session: Session, *, recording_id: str, worker: str) -> Claimed | None:
    """Take a queued recording for `worker`, with its audio; None when it is not queued (taken by
    another worker, already ended, deleted) or its audio is gone (then it fails)."""
    result: Any = session.execute(
        update(Recording)
        .where(Recording.id == recording_id, Recording.status == "queued")
        .values(status="running", tries=Recording.tries + 1, worker=worker, started_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        session.commit()
        return None
    audio = session.scalar(select(RecordingAudio.data).where(RecordingAudio.recording_id == recording_id))
    if audio is None:
        _fail(session, ids=[recording_id], error=AUDIO_GONE)
        session.commit()
        return None
    row = session.execute(
        select(Recording.card_id, Recording.kind, Recording.tries).where(Recording.id == recording_id)
    ).one()
    session.commit()
    return Claimed(recording_id, row.card_id, row.kind, row.tries, audio)


def _running_under(worker: str, recording_id: str) -> Any:
    return (Recording.id == recording_id) & (Recording.worker == worker) & (Recording.status == "running")


def store_transcript(
    session: Session, *, recording_id: str, worker: str, result: dict[str, Any], keep_days: float | None
) -> None:
    """Store what the speech child found; the audio is deleted now, or with `keep_days`
    (KEEP_RECORDINGS) kept that many days."""
    now = utcnow()
    stored: Any = session.execute(
        update(Recording)
        .where(_running_under(worker, recording_id))
        .values(
            status="done",
            transcript=result["transcript"],
            words=result["words"],
            duration_s=result["duration_s"],
            delivery=result["delivery"],
            model=result["model"],
            real_time_factor=result["real_time_factor"],
            error=None,
            finished_at=now,
            keep_audio_until=now + timedelta(days=keep_days) if keep_days is not None else None,
        )
        .execution_options(synchronize_session=False)
    )
    if stored.rowcount == 1 and keep_days is None:
        session.execute(delete(RecordingAudio).where(RecordingAudio.recording_id == recording_id))
    session.commit()


def store_failure(session: Session, *, recording_id: str, worker: str, error: str) -> None:
    """The recording could not be transcribed (`error` says why, to its owner); its audio goes."""
    failed = session.scalars(select(Recording.id).where(_running_under(worker, recording_id))).all()
    if failed:
        _fail(session, ids=failed, error=error)
    session.commit()


def _retry_or_fail(session: Session, *, ids: Collection[str], gpu_alive: bool, error: str) -> list[Requeue]:
    """Part of the caller's unit of work: of these running recordings, those taken fewer than
    MAX_TRIES times go back to queued (returned, for the caller to enqueue once committed); the
    others fail with `error`."""
    rows = session.execute(select(Recording.id, Recording.tries).where(Recording.id.in_(ids))).all()
    again = [recording_id for recording_id, tries in rows if tries < MAX_TRIES]
    spent = [recording_id for recording_id, tries in rows if tries >= MAX_TRIES]
    lane = speech_lane(gpu_alive)
    if again:
        session.execute(
            update(Recording)
            .where(Recording.id.in_(again), Recording.status == "running")
            .values(status="queued", worker=None, started_at=None, lane=lane)
            .execution_options(synchronize_session=False)
        )
    if spent:
        _fail(session, ids=spent, error=error)
    return [(recording_id, lane) for recording_id in again]


def retry_after_crash(
    session: Session, *, recording_id: str, worker: str, gpu_alive: bool, error: str
) -> list[Requeue]:
    """The speech child died under this recording: once more on the queue, or failed with `error`."""
    running = session.scalars(select(Recording.id).where(_running_under(worker, recording_id))).all()
    again = _retry_or_fail(session, ids=running, gpu_alive=gpu_alive, error=error)
    session.commit()
    return again


def give_back(session: Session, *, recording_id: str, worker: str, lane: str) -> bool:
    """A worker that is stopping hands a recording it took back to the queue, its try not counted;
    returns whether it was still this worker's to give back."""
    result: Any = session.execute(
        update(Recording)
        .where(_running_under(worker, recording_id))
        .values(status="queued", worker=None, started_at=None, tries=Recording.tries - 1, lane=lane)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return bool(result.rowcount)


def _dead(
    worker: str | None, *, alive: Collection[str], host: str | None, pid_alive: Callable[[int], bool]
) -> bool:
    if worker is None or worker not in alive:
        return True
    name, _, pid = worker.rpartition(":")
    return name == host and pid.isdigit() and not pid_alive(int(pid))


def retry_left_behind(
    session: Session,
    *,
    alive: Collection[str],
    gpu_alive: bool,
    host: str | None = None,
    pid_alive: Callable[[int], bool] = lambda _pid: True,
    own_name: str | None = None,
) -> list[Requeue]:
    """Part of the caller's unit of work: running recordings whose worker is not among `alive`
    (it beat too long ago, or its row is gone), or is a process gone from this `host`, or has this
    worker's own name (a restarted container keeps its pid), are queued again or fail: see
    `_retry_or_fail`. Returns what to enqueue once committed."""
    running = session.execute(
        select(Recording.id, Recording.worker).where(Recording.status == "running")
    ).all()
    left = [
        recording_id
        for recording_id, worker in running
        if worker == own_name or _dead(worker, alive=alive, host=host, pid_alive=pid_alive)
    ]
    return _retry_or_fail(session, ids=left, gpu_alive=gpu_alive, error=STOPPED_TWICE) if left else []


def move_off_gpu_lane(session: Session) -> list[Requeue]:
    """Part of the caller's unit of work, when no GPU worker is alive: recordings waiting on the
    GPU speech lane move to the lane every transcribing worker reads."""
    lane = speech_lane(False)
    waiting = session.scalars(
        select(Recording.id).where(Recording.status == "queued", Recording.lane != lane)
    ).all()
    if waiting:
        session.execute(
            update(Recording)
            .where(Recording.id.in_(waiting))
            .values(lane=lane)
            .execution_options(synchronize_session=False)
        )
    return [(recording_id, lane) for recording_id in waiting]


def lost(session: Session, *, queue: JobQueue, grace_seconds: float = LOST_AFTER_S) -> list[Requeue]:
    """Queued recordings older than `grace_seconds` that are on no speech lane of the queue."""
    cutoff = utcnow() - timedelta(seconds=grace_seconds)
    waiting = session.execute(
        select(Recording.id, Recording.lane).where(
            Recording.status == "queued", Recording.created_at < cutoff
        )
    ).all()
    if not waiting:
        return []
    present = queue.run_ids("speech")
    return [(recording_id, lane) for recording_id, lane in waiting if recording_id not in present]


def delete_kept_audio(session: Session, *, keeping: bool) -> int:
    """Part of the caller's unit of work: the audio of recordings kept past `keep_audio_until`, or
    all kept audio once KEEP_RECORDINGS (`keeping`) is off: turning it off is taking back the
    consent to keep it. Audio still waiting to be transcribed is never kept audio."""
    query = select(Recording.id).where(Recording.keep_audio_until.is_not(None))
    if keeping:
        query = query.where(Recording.keep_audio_until < utcnow())
    expired = session.scalars(query).all()
    if not expired:
        return 0
    session.execute(delete(RecordingAudio).where(RecordingAudio.recording_id.in_(expired)))
    session.execute(
        update(Recording)
        .where(Recording.id.in_(expired))
        .values(keep_audio_until=None)
        .execution_options(synchronize_session=False)
    )
    return len(expired)


def delete_finished_before(session: Session, cutoff: datetime) -> int:
    """Part of the caller's unit of work: recordings that ended before `cutoff`
    (RECORDING_RETENTION_DAYS), transcripts and all. An answer saved from one keeps its text and
    figures; its recording_id becomes null (the foreign key says so)."""
    result: Any = session.execute(
        delete(Recording)
        .where(Recording.status.in_(("done", "failed")), Recording.finished_at < cutoff)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


def enqueue_all(queue: JobQueue, requeue: Collection[Requeue]) -> int:
    """Put these recordings on their lanes (after the commit that queued them)."""
    for recording_id, lane in requeue:
        queue.enqueue(recording_id, lane=lane)
    return len(requeue)
