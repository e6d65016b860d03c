"""Mixed read/write load at 20, 50 and 100 simulated people (locust): throughput, p50 and p99 per
route, and errors, against `tiercards serve` on the embedded SQLite default. The baseline is a
bare Starlette app doing the same two shared things (insert an answer with sqlite3, read the
newest five) under the same load in the same run; the ratio is app / bare.

    .venv/bin/python -m bench.mixed_load [--seconds 20] [--users 20 50 100]
"""

import argparse
import tempfile
from pathlib import Path

from bench._servers import RouteStats, locust, migrated_data_dir, tiercards_serve, uvicorn_server
from bench._verdict import run, verdict

SHARED = ("POST answer", "GET recent answers")


def _row(stats: RouteStats) -> str:
    return (
        f"  {stats.name:<22} {stats.requests:>7} req {stats.per_second:>7.1f}/s  "
        f"p50 {stats.p50_ms:>6.0f} ms  p99 {stats.p99_ms:>6.0f} ms  errors {stats.failures}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--users", type=int, nargs="+", default=[20, 50, 100])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = migrated_data_dir(Path(folder))
        for users in args.users:
            with tiercards_serve(env) as (url, _pid):
                app = locust(url, users, args.seconds, Path(folder) / f"app{users}")
            with uvicorn_server(
                "bench.bare_writes:app", {"BARE_DB": str(Path(folder) / "bare.db")}
            ) as bare_url:
                bare = locust(
                    bare_url, users, args.seconds, Path(folder) / f"bare{users}", {"BENCH_TARGET": "bare"}
                )
            print(f"{users} people, {args.seconds} s:")
            for name, stats in sorted(app.items()):
                if name not in ("Aggregated", "/healthz"):
                    print(_row(stats))
            errors = sum(s.failures for name, s in app.items() if name not in ("Aggregated", "/healthz"))
            for name in SHARED:
                ratio = app[name].per_second / bare[name].per_second if bare[name].per_second else 0.0
                print(
                    f"  {name}: app/bare throughput {ratio:.2f} "
                    f"(bare {bare[name].per_second:.0f}/s, p99 {bare[name].p99_ms:.0f} ms)"
                )
            verdict(errors == 0, f"{users} people: errors {errors} (target 0 errors)")


if __name__ == "__main__":
    run(main)
