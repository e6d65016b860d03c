"""How long an answer waits while a 500,000-row import runs (target: at most 100 ms), as a ratio
to the same answer with no import running, in the same run, on one `tiercards serve` (SQLite).

The import is of rated answers on the served cards with their reviews (bench/_import_files.py),
so it also replays those cards' schedules. Answers are posted one after another: first
`--answers` of them with the server idle, then for as long as the import runs.

    .venv/bin/python -m bench.import_wait [--rows 500000] [--answers 200]
"""

import argparse
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench._import_files import good_file, post_file, signed_client
from bench._servers import migrated_data_dir, tiercards_serve
from bench._verdict import run, verdict

CARD = "tf-data-prefetch-last"
ANSWER = {"tier": "senior", "kind": "solid", "text": "prefetch overlaps input with compute", "seconds": 41.5}
MAX_WAIT_MS = 100.0


def _answer(client: httpx.Client) -> float:
    start = time.perf_counter()
    response = client.post(f"/api/cards/{CARD}/attempts", json=ANSWER)
    elapsed = time.perf_counter() - start
    assert response.status_code == 201, response.text
    return elapsed * 1000


def _figures(waits: list[float]) -> str:
    ordered = sorted(waits)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms ({len(waits)} answers)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--answers", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        file = good_file(Path(folder) / "export.json", args.rows)
        size = file.stat().st_size
        os.sync()  # the file's own writeback is not the server's doing
        env = migrated_data_dir(Path(folder) / "data") | {"MAX_IMPORT_BYTES": str(4 * size)}
        with tiercards_serve(env) as (url, _pid):
            client = signed_client(url)
            idle = [_answer(client) for _ in range(args.answers)]
            outcome: list[httpx.Response] = []
            importer = threading.Thread(target=lambda: outcome.append(post_file(signed_client(url), file)))
            started = time.perf_counter()
            importer.start()
            busy, at = [], []
            while importer.is_alive():
                at.append(time.perf_counter() - started)
                busy.append(_answer(client))
            took = time.perf_counter() - started
            importer.join()
    assert outcome[0].status_code == 200, outcome[0].text
    print(f"import of {args.rows:,} rows ({size / 1e6:.1f} MB): {took:.1f} s, {outcome[0].json()}")
    print(f"answer, no import running:   {_figures(idle)}")
    print(f"answer, while the import runs: {_figures(busy)}")
    slowest = sorted(zip(busy, at, strict=True), reverse=True)[:5]
    print("slowest while importing:", ", ".join(f"{ms:.0f} ms at {s:.1f} s" for ms, s in slowest))
    baseline = statistics.median(idle)
    print(
        f"worst wait while importing: {max(busy):.1f} ms = {max(busy) / baseline:.1f}x the idle median;"
        f" median {statistics.median(busy) / baseline:.1f}x"
    )
    verdict(max(busy) <= MAX_WAIT_MS, f"worst wait {max(busy):.1f} ms (target <= {MAX_WAIT_MS:.0f} ms)")


if __name__ == "__main__":
    run(main)
