"""What /metrics says about demos: runs by status, the queue's depth and the workers alive.

These are shared by every web replica (the database, the queue), so they are read when /metrics
is asked, never counted in a process: every replica reports the same figures.
"""

from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.demos.models import DemoRun
from app.demos.runs import ACTIVE, alive_workers
from app.jobs.queue import JobKind, JobQueue


@dataclass(frozen=True)
class DemoFigures:
    # Stored runs by status (finished ones are kept DEMO_RETENTION_DAYS). A run whose worker died
    # counts as running until a worker's upkeep stores it as interrupted.
    runs: dict[str, int]
    workers_alive: int


def demo_figures(session: Session, heartbeat_timeout: float) -> DemoFigures:
    counts = session.execute(select(DemoRun.status, func.count()).group_by(DemoRun.status)).all()
    # The active statuses are always reported, so "nothing queued" is a 0, not a missing series.
    runs = dict.fromkeys(ACTIVE, 0) | {status: count for status, count in counts}
    return DemoFigures(runs, len(alive_workers(session, timeout_seconds=heartbeat_timeout)))


def queue_depth(queue: JobQueue, kind: JobKind = "demo") -> int:
    """Jobs of `kind` waiting on the queue: on its lanes or in their schedule (demo runs by default;
    "speech": recordings waiting to be transcribed)."""
    return len(queue.run_ids(kind))


def gauges(figures: DemoFigures | None, depth: int | None) -> Iterator[Metric]:
    """The figures as Prometheus gauges; a figure that could not be read (None) is left out."""
    if figures is not None:
        runs = GaugeMetricFamily("tiercards_demo_runs", "Demo runs stored, by status.", labels=["status"])
        for status, count in sorted(figures.runs.items()):
            runs.add_metric([status], count)
        yield runs
        yield GaugeMetricFamily(
            "tiercards_demo_workers_alive",
            "Demo workers that reported within DEMO_HEARTBEAT_TIMEOUT_SECONDS.",
            value=figures.workers_alive,
        )
    if depth is not None:
        yield GaugeMetricFamily(
            "tiercards_demo_queue_depth", "Demo runs waiting on the job queue.", value=depth
        )
