"""Where a server's CPU goes under a benchmark's load: py-spy samples the server process while the
load runs, then the top costs are printed, by own time (the function itself, not what it calls)
and by total time (with everything it calls). Used by the benchmarks' `--profile` option."""

import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = 10
# Where a thread waits rather than works: the loop in select(), a pool thread for a job, a lock,
# a writer for SQLite's one write turn (app/storage/database.py).
WAITING = frozenset({"select", "wait", "acquire", "_wait_for_tstate_lock", "_WriterTurn.begin"})
# Frames in nearly every busy sample (the server's loop, the interpreter's start) say nothing.
EVERYWHERE = 0.95
SAMPLES_PER_SECOND = 250


def _py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(found).exists():
        raise SystemExit("--profile needs py-spy, which make dev installs")
    return found


@contextmanager
def profiled(pid: int, out: Path, seconds: int) -> Iterator[None]:
    """Sample `pid` for `seconds` while the body runs; print the top costs once it has."""
    recorder = subprocess.Popen(
        [
            _py_spy(),
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(seconds),
            "--rate",
            str(SAMPLES_PER_SECOND),
            "--format",
            "raw",
            "--nonblocking",
            "--output",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        recorder.wait(timeout=seconds + 60)
    print_top(out)


def _frame_name(frame: str) -> str:
    """'handle (/…/site-packages/starlette/routing.py:74)' → 'starlette/routing.py:handle': short,
    and line-free, so one function's samples add up whatever line they were on."""
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    for root in ("site-packages/", f"{ROOT}/"):
        path = path.split(root, 1)[-1]
    return f"{path}:{name}"


def print_top(raw: Path) -> None:
    """Top costs from py-spy's raw output ("frame;frame;… count" per line, outermost first)."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_frame_name(f) for f in stack.split(";")]
        # A waiting thread costs no request anything; py-spy sometimes counts it busy.
        function = frames[-1].rsplit(":", 1)[-1]
        if function in WAITING or function.rsplit(".", 1)[-1] in WAITING:
            continue
        samples += count
        own[frames[-1]] += count
        for name in set(frames):
            total[name] += count
    print(f"profile: {samples} busy samples at {SAMPLES_PER_SECOND}/s")
    for title, counter in (("own time", own), ("total time", total)):
        print(f"  top {TOP} by {title}:")
        shown = [(n, c) for n, c in counter.most_common() if c < EVERYWHERE * samples][:TOP]
        for name, count in shown:
            print(f"    {100 * count / max(samples, 1):5.1f} %  {name}")
