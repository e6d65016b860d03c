"""The one way the benchmarks time a piece of work: the median of a few runs, in seconds."""

import statistics
import time
from collections.abc import Callable


def timed(work: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)
