"""How much a server grows while it streams a long history out (target: under 100 MB above idle
for 100,000 attempts), and how long the export takes, on a fresh `tiercards serve`. The export is
written to a file in the data folder before it is sent: the file's size is on disk, not in RSS.
  - the database is migrated and seeded with `--attempts` answers of the local person, each with
    its review, by a bulk insert;
  - idle: the server's resident memory (with its child processes) after a small export warmed up
    the export code;
  - peak: the highest of VmRSS sampled every 2 ms from /proc/<pid>/status while
    /api/export.json, then /api/export.csv (the attempts table), is read and thrown away, and
    VmHWM (the kernel's own high-water mark, between two samples too) when the export raised it;
  - the time to the first byte (the whole file is written first) and to the last;
  - the baseline time: the same rows read, ordered as the export orders them, by the database's
    bare driver (sqlite3 or psycopg) in this process: the export's time is printed as a ratio to
    it, its growth as a ratio to the target.

    .venv/bin/python -m bench.export_memory [--attempts 100000] [--database sqlite|postgres]
"""

import argparse
import contextlib
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psutil
import psycopg
from sqlalchemy import create_engine, insert

from app.accounts.models import LOCAL_USER_ID
from app.content.catalogue import load
from app.practice.models import Attempt, ReviewLog
from bench._servers import ROOT, free_port, migrated_data_dir, tiercards_serve
from bench._timing import timed
from bench._topology import postgres
from bench._verdict import run, verdict

TARGET_BYTES = 100 * 1024 * 1024
START = datetime(2025, 3, 2, 9, 30, tzinfo=UTC)
INSERT_ROWS = 10_000
SAMPLE_SECONDS = 0.002
# The statements the export runs for the two long lists, as the bare driver's baseline.
BARE_READS = (
    "SELECT * FROM attempts WHERE user_id = {p} ORDER BY created_at, id",
    "SELECT * FROM review_logs WHERE user_id = {p} ORDER BY review_datetime, id",
)


def _status_kb(pid: int, field: str) -> int:
    """A figure of /proc/<pid>/status, in kB (VmRSS: resident now, VmHWM: the most it has been)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _rss(pid: int) -> int:
    """The server's resident bytes, with those of its child processes."""
    pids = [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
    total = 0
    for each in pids:
        with contextlib.suppress(FileNotFoundError):  # a child that just ended
            total += _status_kb(each, "VmRSS") * 1024
    return total


def seed(url: str, attempts: int) -> None:
    """`attempts` typed, rated answers a minute apart, each with its review, in bulk."""
    cards = sorted(load(ROOT / "content").cards)
    engine = create_engine(url)

    def rows(make: Callable[[int], dict[str, object]]) -> Iterator[list[dict[str, object]]]:
        for first in range(0, attempts, INSERT_ROWS):
            yield [make(i) for i in range(first, min(first + INSERT_ROWS, attempts))]

    def attempt(i: int) -> dict[str, object]:
        return {
            "id": i + 1,
            "user_id": LOCAL_USER_ID,
            "card_id": cards[i % len(cards)],
            "tier": "middle",
            "kind": "solid",
            "text": f"answer {i}: prefetch overlaps the input pipeline with the training step.",
            "seconds": 41.5,
            "points": [],
            "rating": "good",
            "revealed": False,
            "created_at": START + timedelta(minutes=i),
        }

    def review(i: int) -> dict[str, object]:
        return {
            "user_id": LOCAL_USER_ID,
            "card_id": cards[i % len(cards)],
            "tier": "middle",
            "rating": 3,
            "review_datetime": START + timedelta(minutes=i),
            "review_duration_ms": 41_500,
            "attempt_id": i + 1,
        }

    try:
        with engine.begin() as connection:
            for batch in rows(attempt):
                connection.execute(insert(Attempt), batch)
            for batch in rows(review):
                connection.execute(insert(ReviewLog), batch)
    finally:
        engine.dispose()


def bare_read(url: str) -> Callable[[], object]:
    """Reading the export's rows with the bare driver, every row fetched and dropped."""
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")

        def read_sqlite() -> None:
            with contextlib.closing(sqlite3.connect(path)) as connection:
                for statement in BARE_READS:
                    for _ in connection.execute(statement.format(p="?"), (LOCAL_USER_ID,)):
                        pass

        return read_sqlite
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")

    def read_postgres() -> None:
        with psycopg.connect(conninfo) as connection, connection.transaction():
            for statement in BARE_READS:
                with connection.cursor(name="bare") as cursor:  # streamed, as the export's is
                    cursor.execute(statement.format(p="%s"), (LOCAL_USER_ID,))
                    for _ in cursor:
                        pass

    return read_postgres


def export(url: str, path: str, pid: int) -> tuple[int, int, int, float, float]:
    """Read `path` from the server and throw it away: bytes read, peak sampled RSS, VmHWM after,
    seconds to the first byte, seconds taken."""
    peak = [_rss(pid)]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss(pid))
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample)
    sampler.start()
    size = 0
    first = 0.0
    start = time.perf_counter()
    try:
        with httpx.stream("GET", url + path, timeout=600) as response:
            response.raise_for_status()
            for chunk in response.iter_raw():
                first = first or time.perf_counter() - start
                size += len(chunk)
        took = time.perf_counter() - start
    finally:
        done.set()
        sampler.join()
    return size, peak[0], _status_kb(pid, "VmHWM") * 1024, first, took


def measure(env: dict[str, str], url: str, attempts: int) -> None:
    started = time.perf_counter()
    seed(url, attempts)
    print(f"seeded {attempts:,} attempts and their reviews in {time.perf_counter() - started:.1f} s")
    baseline = timed(bare_read(url))
    print(f"baseline: the same rows read by the bare driver in {baseline:.2f} s")
    with tiercards_serve(env) as (server, pid):
        # Warms the export's code up without reading the long lists.
        httpx.get(server + "/api/export.csv", params={"table": "schedule"}, timeout=60).raise_for_status()
        time.sleep(0.5)
        idle = _rss(pid)
        print(f"idle: {idle / 1e6:.0f} MB")
        for name, path in (("JSON", "/api/export.json"), ("CSV", "/api/export.csv")):
            before = _status_kb(pid, "VmHWM") * 1024
            size, peak, high_water, first, took = export(server, path, pid)
            # The high-water mark counts only if this export raised it (start-up may have set it).
            growth = max(peak, high_water if high_water > before else 0) - idle
            verdict(
                growth < TARGET_BYTES,
                f"{name}: {size / 1e6:.1f} MB in {took:.1f} s = {took / baseline:.1f}x the bare read"
                f" (first byte after {first / baseline:.1f}x);"
                f" peak RSS {peak / 1e6:.0f} MB (VmHWM {high_water / 1e6:.0f} MB):"
                f" growth {growth / 1e6:.1f} MB = {growth / TARGET_BYTES:.2f}x the 100 MB target",
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if args.database == "sqlite":
            env = migrated_data_dir(folder / "data")
            measure(env, f"sqlite:///{folder / 'data' / 'tiercards.db'}", args.attempts)
        else:
            url = postgres("start", folder / "postgres", str(free_port()))
            try:
                env = migrated_data_dir(folder / "data", database_url=url)
                measure(env, url, args.attempts)
            finally:
                postgres("destroy", folder / "postgres")


if __name__ == "__main__":
    run(main)
