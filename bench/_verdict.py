"""A benchmark's PASS and FAIL lines, and the exit status they add up to, written once: every
verdict goes through `verdict`, and every benchmark's entry point is `run(main)`, so a missed
target is never read as a success by `make bench` or a script that runs it."""

import sys
from collections.abc import Callable
from typing import NoReturn

# What each FAIL line said, in order; `run` exits 1 when there is any.
failures: list[str] = []


def verdict(ok: bool, *what: object) -> bool:
    """Print `PASS` or `FAIL` followed by `what` (as print would), remember a FAIL; return `ok`."""
    print("PASS" if ok else "FAIL", *what)
    if not ok:
        failures.append(" ".join(map(str, what)))
    return ok


def run(main: Callable[[], object]) -> NoReturn:
    """Call `main` and exit: with its own status when it returns a non-zero int (gpu_check's 3 for
    no GPU, say), else 1 if any verdict failed, else 0. A bool is a verdict's, not a status."""
    status = main()
    if isinstance(status, int) and not isinstance(status, bool) and status:
        sys.exit(status)
    sys.exit(1 if failures else 0)
