"""What /metrics says about recorded answers: recordings by status, those waiting on the queue, and
how fast the last ones were transcribed against their length (the real-time factor).

Read from the database when /metrics is asked, like the demo figures (app/demos/figures.py), so
every web replica reports the same; both reads are bounded (a GROUP BY on the status index, and
the last RTF_WINDOW done recordings).
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.speech.models import STATUSES, Recording

RTF_WINDOW = 100
QUANTILES = (0.5, 0.9)


@dataclass(frozen=True)
class RecordingFigures:
    # Every status, 0 when none: "nothing queued" is a value, not a missing series.
    recordings: dict[str, int]
    # The real-time factors of the last RTF_WINDOW done recordings, lowest first.
    real_time_factors: tuple[float, ...]


def recording_figures(session: Session) -> RecordingFigures:
    counts = session.execute(select(Recording.status, func.count()).group_by(Recording.status)).all()
    latest = (
        select(Recording.real_time_factor)
        .where(Recording.status == "done", Recording.real_time_factor.is_not(None))
        .order_by(Recording.finished_at.desc())
        .limit(RTF_WINDOW)
    )
    factors = sorted(float(value) for value in session.scalars(latest) if value is not None)
    return RecordingFigures(dict.fromkeys(STATUSES, 0) | dict(counts), tuple(factors))


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated between the two nearest ranks."""
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def gauges(figures: RecordingFigures | None, depth: int | None) -> Iterator[Metric]:
    """The figures as Prometheus gauges; figures that could not be read (None) are left out.
    `depth`: the recordings waiting on the speech lanes of the job queue."""
    if depth is not None:
        yield GaugeMetricFamily(
            "tiercards_recording_queue_depth",
            "Recordings waiting on the job queue's speech lanes to be transcribed.",
            value=depth,
        )
    if figures is None:
        return
    recordings = GaugeMetricFamily(
        "tiercards_recordings", "Recorded answers stored, by transcription status.", labels=["status"]
    )
    for status in STATUSES:
        recordings.add_metric([status], figures.recordings[status])
    yield recordings
    factors = figures.real_time_factors
    rtf = GaugeMetricFamily(
        "tiercards_recording_real_time_factor",
        f"Transcription time over the recording's length, of the last {RTF_WINDOW} transcribed.",
        labels=["quantile"],
    )
    for q in QUANTILES if factors else ():
        rtf.add_metric([str(q)], quantile(factors, q))
    yield rtf
    yield GaugeMetricFamily(
        "tiercards_recording_real_time_factor_count",
        "How many transcribed recordings the real-time factor quantiles are of.",
        value=len(factors),
    )
