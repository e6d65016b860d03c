"""The benchmarks as `make bench` sees them, without running one: it runs every benchmark the
table of docs/benchmarks.md lists and no other, and a FAIL anywhere makes a benchmark exit non-zero, because
every PASS/FAIL line goes through bench/_verdict.py."""

import re
from collections.abc import Callable

import pytest

from app import PROJECT_ROOT
from bench import _servers, _verdict
from tests.helpers.docs import DOCS

pytestmark = pytest.mark.engine_agnostic

BENCH = PROJECT_ROOT / "bench"
# A literal that prints a verdict by itself: "PASS", 'FAIL', f"  FAIL  {line}", ...
VERDICT_LITERAL = re.compile(r"""["']\s*(?:PASS|FAIL)\b""")


def _run_by_the_script() -> set[str]:
    """What scripts/run-benchmarks.sh runs, found as it finds them: each bench/[a-z]*.py with a
    `if __name__ == "__main__":` block at the top level."""
    main_block = re.compile(r'^if __name__ == "__main__":', re.M)
    return {
        path.stem for path in BENCH.glob("[a-z]*.py") if main_block.search(path.read_text(encoding="utf-8"))
    }


def _in_the_docs_table() -> set[str]:
    """The `bench/NAME.py` of each row of docs/benchmarks.md's "## Benchmarks" table (its script column)."""
    lines = (DOCS / "benchmarks.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Benchmarks") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("## "))
    row = re.compile(r"^\|\s*`bench/([a-z_]+)\.py\b")
    return {match[1] for line in lines[start:end] if (match := row.match(line))}


def test_make_bench_runs_every_benchmark_the_docs_list_and_no_other() -> None:
    run, listed = _run_by_the_script(), _in_the_docs_table()
    assert run, "found no benchmark with a __main__ block"
    unlisted, not_run = sorted(run - listed), sorted(listed - run)
    assert not unlisted, (
        f"run by make bench but missing from docs/benchmarks.md's Benchmarks table: {unlisted}"
    )
    assert not not_run, (
        f"in docs/benchmarks.md's Benchmarks table but not a benchmark make bench runs: {not_run}"
    )


def test_the_script_finds_benchmarks_the_same_way() -> None:
    # The test above computes the run set itself; this holds it to the script's own rule.
    script = (PROJECT_ROOT / "scripts" / "run-benchmarks.sh").read_text(encoding="utf-8")
    assert "for file in bench/[a-z]*.py; do" in script
    assert """grep -q '^if __name__ == "__main__":' "$file" || continue""" in script


def test_every_verdict_is_printed_through_bench_verdict() -> None:
    offenders = [
        f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()}"
        for path in sorted(BENCH.glob("*.py"))
        if path.name != "_verdict.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if VERDICT_LITERAL.search(line)
    ]
    assert offenders == [], "print PASS/FAIL with bench._verdict.verdict, so that a FAIL sets the exit status"


@pytest.fixture(autouse=True)
def _no_verdicts_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    # What an earlier case (or an import) left behind must not decide this one's exit status.
    monkeypatch.setattr(_verdict, "failures", [])


def _exit_status(main: Callable[[], object]) -> object:
    with pytest.raises(SystemExit) as exited:
        _verdict.run(main)
    return exited.value.code


def test_a_failed_verdict_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    def main() -> None:
        _verdict.verdict(True, "fine")
        _verdict.verdict(False, "p99", 60, "ms")

    assert _exit_status(main) == 1
    assert capsys.readouterr().out == "PASS fine\nFAIL p99 60 ms\n"


def test_only_passes_exit_0() -> None:
    # A main that hands back its last verdict's True has not asked for status 1.
    assert _exit_status(lambda: _verdict.verdict(True, "fine")) == 0
    assert _exit_status(lambda: None) == 0
    assert _exit_status(lambda: 0) == 0


def test_a_main_s_own_status_passes_through() -> None:
    # gpu_check's 3: no GPU here, which the run script reports as not run rather than failed.
    assert _exit_status(lambda: 3) == 3
    assert _exit_status(lambda: _verdict.verdict(False, "missed") and 0) == 1


def test_verdict_returns_what_it_was_given() -> None:
    assert _verdict.verdict(True) is True
    assert _verdict.verdict(False) is False
    assert _verdict.failures == [""]


WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:8123/cards/tf-data-prefetch-last
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     7.91ms    2.03ms  41.22ms   72.99%
    Req/Sec     3.17k   210.45     3.61k    68.50%
  Latency Distribution
     50%    7.62ms
     75%    8.71ms
     90%   10.12ms
     99%   13.84ms
  63120 requests in 10.01s, 2.69GB read
Requests/sec:   6305.69
Transfer/sec:    275.11MB
"""


def test_wrk_s_p99_is_read_from_its_distribution_not_from_a_stdev_that_ends_in_99() -> None:
    result = _servers.wrk_result(WRK_OUTPUT)
    assert (result.requests_per_second, result.p99_ms, result.errors) == (6305.69, 13.84, 0)
