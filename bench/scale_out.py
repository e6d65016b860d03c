"""A team of 200 simulated people (bench/team_locustfile.py: browse, answer, quiz, practice, now
and then a demo) for 60 s, with locust, against two web replicas behind nginx on PostgreSQL and
Redis with one demo worker, and then against the embedded default (`tiercards serve`, SQLite) on
the same machine in the same run. Reports errors, p50 and p99 per route, answers per second, and
whether every acknowledged answer is in the database afterwards. The ratio is scaled-out / embedded.

    .venv/bin/python -m bench.scale_out [--users 200] [--seconds 60]
"""

import argparse
import tempfile
from pathlib import Path

from bench import _verdict  # by module: `run` here is one load run
from bench._servers import RouteStats, locust
from bench._topology import Deployment, embedded, scaled_out

WRITES = ("POST answer", "POST quiz")


def run(
    deployment: Deployment,
    users: int,
    seconds: int,
    name: str,
    *,
    env: dict[str, str] | None = None,
    spawn_rate: float | None = None,
) -> tuple[dict[str, RouteStats], int, int]:
    """Per-route figures, acknowledged answers, and how many of those the database lacks; `env`
    goes to the locustfile (bench/team_locustfile.py reads its think times and leads there)."""
    acks = deployment.folder / f"{name}-acks.txt"
    stats = locust(
        deployment.url,
        users,
        seconds,
        deployment.folder / name,
        {"BENCH_ACKS": str(acks), **(env or {})},
        locustfile="team_locustfile.py",
        spawn_rate=spawn_rate,
    )
    acknowledged = {int(line) for line in acks.read_text().split()}
    return stats, len(acknowledged), len(acknowledged - deployment.attempt_ids())


def table(results: dict[str, tuple[dict[str, RouteStats], int, int]]) -> None:
    """Requests, errors, p50 and p99 per route, a column group per deployment."""
    names = list(results)
    routes = sorted({r for stats, _, _ in results.values() for r in stats} - {"Aggregated", "/healthz"})
    print(f"{'route':<22}" + "".join(f" | {n:^36}" for n in names))
    print(f"{'':<22}" + " | {:>8} {:>6} {:>9} {:>9}".format("req", "errors", "p50 ms", "p99 ms") * len(names))
    for route in routes:
        cells = []
        for stats, _, _ in results.values():
            s = stats.get(route)
            cells.append(
                f" | {s.requests:>8} {s.failures:>6} {s.p50_ms:>9.0f} {s.p99_ms:>9.0f}"
                if s
                else f" | {'-':>36}"
            )
        print(f"{route:<22}" + "".join(cells))


def report(results: dict[str, tuple[dict[str, RouteStats], int, int]], seconds: int) -> bool:
    names = list(results)
    table(results)
    ok = True
    answers_per_s = {}
    for name, (stats, acknowledged, missing) in results.items():
        errors = sum(s.failures for r, s in stats.items() if r != "Aggregated")
        total = stats["Aggregated"]
        answers_per_s[name] = (
            sum(stats[w].requests - stats[w].failures for w in WRITES if w in stats) / seconds
        )
        print(
            f"{name}: {total.requests} requests ({total.per_second:.0f}/s), errors {errors}, "
            f"answers {answers_per_s[name]:.1f}/s, acknowledged {acknowledged}, missing afterwards {missing}"
        )
        ok &= errors == 0 and missing == 0
    first, second = names
    if answers_per_s[second]:
        print(f"answers/s {first} / {second}: {answers_per_s[first] / answers_per_s[second]:.2f}")
    return _verdict.verdict(ok, "(targets: 0 errors, every acknowledged answer stored)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        with scaled_out(Path(folder) / "scaled") as deployment:
            results["2 replicas + Postgres + Redis"] = run(deployment, args.users, args.seconds, "scaled")
        with embedded(Path(folder) / "embedded") as deployment:
            results["embedded (SQLite)"] = run(deployment, args.users, args.seconds, "embedded")
    report(results, args.seconds)


if __name__ == "__main__":
    _verdict.run(main)
