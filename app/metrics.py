"""The app's Prometheus metrics, counted in each process and added up when /metrics is read.

`tiercards serve --workers N` answers from N processes, so each counts into files of its own in
PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode, chosen when it is first imported:
`serve` sets the folder before that) and a scrape adds up every process's files, those of a worker
that died included. Without the variable (tests, one process) the counts live in this process.

Figures that every replica shares (demo runs, recordings, the queue, workers) are not counted here
but read at scrape time (app/demos/figures.py, app/speech/figures.py) and handed to `exposition`.
"""

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import Metric
from prometheus_client.multiprocess import MultiProcessCollector

MULTIPROCESS_FOLDER = "PROMETHEUS_MULTIPROC_DIR"
# Label values come from short fixed lists, never from what a client sends, so a client cannot
# make the series grow without bound.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

REQUESTS = Counter(
    "tiercards_http_requests",
    "HTTP requests answered, by route template, method and status class.",
    ["route", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "tiercards_http_request_duration_seconds",
    "Time from a request's arrival to the end of its response, by route template, method and status class.",
    ["route", "method", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
ANSWERS = Counter("tiercards_answers_recorded", "Answers and quizzes recorded, by kind.", ["kind"])


# `labels()` checks its values and takes a lock on every call, several microseconds on each
# request; the series of one label set never change, so they are looked up once.
_series: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}


def observe_request(route: str, *, method: str, status: int, seconds: float) -> None:
    labels = (route, method if method in METHODS else "other", f"{status // 100}xx")
    series = _series.get(labels)
    if series is None:
        series = _series[labels] = (REQUESTS.labels(*labels), REQUEST_SECONDS.labels(*labels))
    series[0].inc()
    series[1].observe(seconds)


def answer_recorded(kind: str) -> None:
    ANSWERS.labels(kind).inc()


@dataclass(frozen=True, eq=False)  # hashed by identity, as a registry keeps its collectors
class SharedFigures:
    """Figures read for one scrape, as a registry collects them."""

    metrics: tuple[Metric, ...]

    def collect(self) -> Iterator[Metric]:
        return iter(self.metrics)


def exposition(shared: Iterable[Metric]) -> bytes:
    """The Prometheus text of every process's counts, followed by the `shared` figures."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROCESS_FOLDER):
        MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)
    registry.register(SharedFigures(tuple(shared)))
    return generate_latest(registry)
