"""How much a server grows while it takes an import (target: at most 3x the file's size), as the
ratio peak RSS growth / file size, on a fresh `tiercards serve` (SQLite) for each file:
  - the bad file: 400,000 review logs that each break the rules (5.2 MB; once 32 s, a 213 MB
    answer and 800 MB of growth),
  - a good file: `--rows` rows of rated answers with their reviews.
The server's resident memory (with its child processes) is sampled every 2 ms from before the
request is sent until its answer is in; the baseline is taken after a small import warmed it up.

    .venv/bin/python -m bench.import_memory [--bad-rows 400000] [--rows 200000]
"""

import argparse
import contextlib
import tempfile
import threading
import time
from pathlib import Path

import psutil

from bench._import_files import bad_file, good_file, post_file, signed_client
from bench._servers import migrated_data_dir, tiercards_serve
from bench._verdict import run, verdict

MAX_GROWTH = 3.0


def _rss(process: psutil.Process) -> int:
    total = 0
    for part in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):  # a child that just ended
            total += part.memory_info().rss
    return total


def measure(folder: Path, file: Path, name: str) -> None:
    size = file.stat().st_size
    env = migrated_data_dir(folder / f"data-{name}") | {"MAX_IMPORT_BYTES": str(4 * size)}
    with tiercards_serve(env) as (url, pid):
        server = psutil.Process(pid)
        client = signed_client(url)
        post_file(client, good_file(folder / "warm-up.json", 200))
        time.sleep(0.5)
        baseline = _rss(server)
        peak = [baseline]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], _rss(server))
                time.sleep(0.002)

        sampler = threading.Thread(target=sample)
        sampler.start()
        start = time.perf_counter()
        response = post_file(client, file)
        took = time.perf_counter() - start
        done.set()
        sampler.join()
    growth = peak[0] - baseline
    verdict(
        growth <= MAX_GROWTH * size,
        f"{name}: {size / 1e6:.1f} MB file, answered {response.status_code} with {len(response.content):,} bytes"
        f" in {took:.1f} s; server {baseline / 1e6:.0f} MB -> peak {peak[0] / 1e6:.0f} MB:"
        f" growth {growth / 1e6:.1f} MB = {growth / size:.2f}x the file's size (target <= {MAX_GROWTH:.0f}x)",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bad-rows", type=int, default=400_000)
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        measure(folder, bad_file(folder / "bad.json", args.bad_rows), "bad file")
        measure(folder, good_file(folder / "good.json", args.rows), "good file")


if __name__ == "__main__":
    run(main)
