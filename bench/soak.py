"""A soak: 20 simulated people (locust) against `tiercards serve` for five minutes. Prints the
server's resident memory and the p99 over the first and the last minute, as end / start ratios.
Memory may grow by the page cache's byte cap (it fills as pages are first served) and no more.

    .venv/bin/python -m bench.soak [--seconds 300] [--users 20]
"""

import argparse
import csv
import tempfile
import threading
import time
from pathlib import Path

import psutil

from app.web.page_cache import DEFAULT_MAX_BYTES
from bench._servers import locust, migrated_data_dir, tiercards_serve
from bench._verdict import run, verdict

WINDOW_S = 60


def _p99(history: Path, since: float, until: float) -> float:
    """The median of the per-interval p99s locust wrote for all routes in [since, until)."""
    values = []
    with history.open(newline="") as file:
        for row in csv.DictReader(file):
            moment = float(row["Timestamp"])
            p99 = row["99%"]
            if row["Name"] == "Aggregated" and since <= moment < until and p99 not in ("", "N/A", "0"):
                values.append(float(p99))
    values.sort()
    return values[len(values) // 2] if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=300)
    parser.add_argument("--users", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = migrated_data_dir(Path(folder))
        with tiercards_serve(env) as (url, pid):
            server = psutil.Process(pid)
            samples: list[tuple[float, float]] = []
            stop = threading.Event()

            def sample() -> None:
                while not stop.wait(5):
                    samples.append((time.time(), server.memory_info().rss / 2**20))

            sampler = threading.Thread(target=sample, daemon=True)
            started = time.time()
            sampler.start()
            stats = locust(url, args.users, args.seconds, Path(folder) / "soak", history=True)
            stop.set()
            ended = time.time()
        history = Path(folder) / "soak_stats_history.csv"
        p99_start = _p99(history, started, started + WINDOW_S)
        p99_end = _p99(history, ended - WINDOW_S, ended + 1)
    first = [rss for moment, rss in samples if moment < started + WINDOW_S]
    last = [rss for moment, rss in samples if moment >= ended - WINDOW_S]
    rss_start, rss_end = max(first), max(last)
    total = stats["Aggregated"]
    cap_mb = DEFAULT_MAX_BYTES / 2**20
    print(
        f"soak: {args.users} people for {args.seconds} s, {total.requests} requests, errors {total.failures}"
    )
    print(
        f"RSS first minute {rss_start:.0f} MB, last minute {rss_end:.0f} MB: end/start {rss_end / rss_start:.2f}"
    )
    print(
        f"p99 first minute {p99_start:.0f} ms, last minute {p99_end:.0f} ms: end/start {p99_end / max(p99_start, 1):.2f}"
    )
    grew = rss_end - rss_start
    verdict(
        total.failures == 0 and grew <= cap_mb,
        f"growth {grew:.0f} MB against the page cache's cap of {cap_mb:.0f} MB, errors {total.failures}",
    )


if __name__ == "__main__":
    run(main)
