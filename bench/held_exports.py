"""What a person can make the server hold on disk by opening export downloads and never reading
them (the way it was attacked: eight downloads left unread), on a fresh `tiercards serve`.

  - the database is seeded with `--attempts` answers of one person (bench/export_memory.py's seed);
  - baseline: the size of one export, read whole;
  - then `--downloads` downloads of /api/export.json are opened at once, each read for its first
    chunk only, and left: their statuses, and the bytes the server holds for them in its data
    folder's tmp/, printed as a ratio to one export. PASS when it holds at most
    EXPORTS_HELD_PER_PERSON exports' worth and refuses the rest with 429;
  - once EXPORT_DOWNLOAD_SECONDS (`--deadline`, short here) has passed, the bytes still held:
    PASS at 0, the unread downloads cut off.

    .venv/bin/python -m bench.held_exports [--attempts 100000] [--downloads 8] [--deadline 15]
"""

import argparse
import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx

from app.settings import Settings
from bench._servers import migrated_data_dir, tiercards_serve
from bench._verdict import run, verdict
from bench.export_memory import seed


def held_bytes(pid: int, folder: Path) -> int:
    """The bytes of the files the server holds open in its data folder's tmp/: an export's file is
    deleted as soon as it is made, so only the process's descriptors still reach it."""
    total = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(FileNotFoundError):
            if os.readlink(fd).startswith(str(folder / "tmp")):
                total += fd.stat().st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--downloads", type=int, default=8)
    parser.add_argument("--deadline", type=float, default=15.0)
    args = parser.parse_args()
    per_person = Settings.model_fields["exports_held_per_person"].default
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        env = migrated_data_dir(folder)
        env["EXPORT_DOWNLOAD_SECONDS"] = str(args.deadline)
        seed(f"sqlite:///{folder / 'tiercards.db'}", args.attempts)
        with tiercards_serve(env) as (server, pid):
            one = len(httpx.get(server + "/api/export.json", timeout=600).content)
            print(f"baseline: one export of {args.attempts:,} answers is {one / 1e6:.1f} MB")
            statuses: list[int] = []
            readers: list[Iterator[bytes]] = []
            with ExitStack() as unread, httpx.Client(base_url=server, timeout=600) as client:
                written_at = time.monotonic()
                for _ in range(args.downloads):
                    response = unread.enter_context(client.stream("GET", "/api/export.json"))
                    statuses.append(response.status_code)
                    if response.status_code == 200:
                        # Kept: a reader dropped unfinished closes its connection.
                        readers.append(response.iter_raw(64 * 1024))
                        next(readers[-1])
                        # Its deadline counts from when its file was written: its headers' arrival.
                        written_at = time.monotonic()
                time.sleep(1.0)
                held = held_bytes(pid, folder)
                served = statuses.count(200)
                verdict(
                    served <= per_person and statuses.count(429) == args.downloads - served,
                    f"{args.downloads} downloads opened and left unread: statuses {statuses}",
                )
                verdict(
                    held <= per_person * one * 1.01,
                    f"held on disk: {held / 1e6:.1f} MB = {held / one:.2f}x one export"
                    f" (at most {per_person}x: EXPORTS_HELD_PER_PERSON)",
                )
                time.sleep(max(0.0, args.deadline + 2.0 - (time.monotonic() - written_at)))
                after = held_bytes(pid, folder)
                verdict(
                    after == 0,
                    f"after EXPORT_DOWNLOAD_SECONDS ({args.deadline:.0f} s), still unread: {after / 1e6:.1f} MB"
                    f" = {after / one:.2f}x one export",
                )


if __name__ == "__main__":
    run(main)
