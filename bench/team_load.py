"""A realistic team: 1,000 simulated people (bench/team_locustfile.py) thinking 20 to 60 s between
clicks (browse, answer, quiz, practice, progress, now and then a demo), ten of them leads who open
/team, for 5 minutes against two web replicas behind nginx on PostgreSQL and Redis with one demo
worker (bench/_topology.py). People arrive over the first think time, as a team does in the
morning. Reports requests, errors, p50 and p99 per route and a PASS/FAIL per route: 0 errors and
p99 under 250 ms; and that every acknowledged answer is in the database afterwards.

The baseline, in the same run and deployment: /healthz, the cheapest request through nginx and a
replica, which every simulated person sends once as they arrive; each route's p50 is printed as a
ratio to its p50.

    .venv/bin/python -m bench.team_load [--people 1000] [--minutes 5] [--leads 10]
"""

import argparse
import tempfile
from pathlib import Path

from bench import _verdict  # by module: `run` here is scale_out's load run
from bench._topology import scaled_out
from bench.scale_out import run, table

THINK = (20, 60)
MAX_P99_MS = 250.0
BASELINE = "/healthz"
# A core kept half busy leaves room for bursts (everyone opening /practice at 9:00).
BUSY = 0.5


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--people", type=int, default=1_000)
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--leads", type=int, default=10)
    args = parser.parse_args()
    seconds = int(args.minutes * 60)
    settings = {"GROUP_ROLES": "leads=lead"}
    with (
        tempfile.TemporaryDirectory() as folder,
        scaled_out(Path(folder) / "team", settings=settings) as deployment,
    ):
        before = deployment.cpu_seconds()
        results = {
            f"{args.people} people, 2 replicas": run(
                deployment,
                args.people,
                seconds,
                "team",
                env={"BENCH_THINK": ",".join(map(str, THINK)), "BENCH_LEADS": str(args.leads)},
                spawn_rate=args.people / THINK[0],
            )
        }
        used = {part: cpu_now - before[part] for part, cpu_now in deployment.cpu_seconds().items()}
    stats, acknowledged, missing = next(iter(results.values()))
    table(results)
    baseline = stats[BASELINE]
    print(
        f"baseline {BASELINE}: {baseline.requests} requests, p50 {baseline.p50_ms:.0f} ms, p99 {baseline.p99_ms:.0f} ms"
    )
    ok = True
    for name, route in sorted(stats.items()):
        if name in ("Aggregated", BASELINE):
            continue
        ratio = route.p50_ms / baseline.p50_ms if baseline.p50_ms else float("nan")
        ok &= _verdict.verdict(
            route.failures == 0 and route.p99_ms < MAX_P99_MS,
            f"{name}: {route.requests} requests, {route.failures} errors, "
            f"p50 {route.p50_ms:.0f} ms ({ratio:.1f}x {BASELINE}), p99 {route.p99_ms:.0f} ms",
        )
    total = stats["Aggregated"]
    print(
        f"{total.requests} requests in {seconds} s ({total.per_second:.1f}/s); acknowledged answers "
        f"{acknowledged}, missing afterwards {missing}"
    )
    # What capacity planning starts from (docs/capacity.md): CPU per request, and requests per person.
    per_person = total.per_second / args.people
    print(f"requests per person per second: {per_person:.4f}")
    for part, cpu in used.items():
        per_request_ms = 1000 * cpu / total.requests
        people = BUSY / (per_request_ms / 1000 * per_person)
        print(
            f"{part}: {cpu:.1f} CPU s, {per_request_ms:.2f} CPU ms a request; "
            f"people per core at {BUSY:.0%} busy: {people:.0f}"
        )
    print("(machine: 2 cores shared with other work; the load tool, nginx, both replicas, PostgreSQL, Redis")
    print(" and the demo worker all run on it)")
    ok &= missing == 0
    _verdict.verdict(ok, f"(targets: 0 errors and p99 < {MAX_P99_MS:.0f} ms on every route, no answer lost)")


if __name__ == "__main__":
    _verdict.run(main)
