"""GET /team for a lead as the team grows to 10, 100 and 1,000 members with 1,000 answers each
(bench/_history.py: rows inserted straight into the migrated database, aggregates rebuilt), against
a bare indexed SELECT of the same page's member rows from practice_days and review_states, in the
same run. Targets: under 150 ms median at 1,000 members, and the 1,000-member page within 2x of the
10-member one.

    .venv/bin/python -m bench.team_page [--engine sqlite|postgres] [--sizes 10,100,1000]
        [--attempts 1000] [--runs 7] [--profile]

With --profile, py-spy samples the server through 10 s of GETs at the largest size and prints its
top costs.
"""

import tempfile
import time
from datetime import timedelta
from pathlib import Path

import httpx

from bench._history import History, growth, migrated, page_arguments, page_ms, rebuild_aggregates, verdicts
from bench._profile import profiled
from bench._servers import tiercards_serve
from bench._verdict import run

LEAD = "lead"
PAGE = 50
# A page of members as the dashboard lists them (by name), each with their due cards now and their
# last 30 days of practice: what /team reads once the aggregates are kept on write.
MEMBER_ROWS = f"""
SELECT u.name,
       (SELECT count(*) FROM review_states r WHERE r.user_id = u.id AND r.due <= :now),
       (SELECT sum(r.again) FROM review_states r WHERE r.user_id = u.id),
       (SELECT sum(d.reviews) FROM practice_days d WHERE d.user_id = u.id AND d.day >= :month),
       (SELECT sum(d.timed) FROM practice_days d WHERE d.user_id = u.id AND d.day >= :month),
       (SELECT sum(d.quiz_score) FROM practice_days d WHERE d.user_id = u.id AND d.day >= :month)
FROM users u WHERE u.disabled_at IS NULL AND u.name <> :lead ORDER BY u.name LIMIT {PAGE}
"""
MAX_MS = 150.0
MAX_GROWTH = 2.0
PROFILE_SECONDS = 10


def main() -> None:
    parser = page_arguments("10,100,1000")
    parser.add_argument("--attempts", type=int, default=1_000)
    parser.add_argument("--profile", action="store_true", help="print where the server's CPU goes")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as folder, migrated(Path(folder), args.engine) as env:
        history = History(env["DATABASE_URL"])
        history.person(LEAD, attempts=0, role="lead")
        members = 0
        rebuilt = False
        for size in sizes:
            names = [f"member{n:05d}" for n in range(members, size)]
            history.people(names, attempts=args.attempts)
            members = size
            history.finish()
            rebuilt = rebuild_aggregates(env)
            with tiercards_serve(env) as (url, pid):
                app_ms = page_ms(url, "/team", name=LEAD, runs=args.runs)
                if args.profile and size == max(sizes):
                    with profiled(pid, Path(folder) / "profile.txt", PROFILE_SECONDS):
                        _keep_asking(url, PROFILE_SECONDS)
            bare_ms = history.bare_ms(
                MEMBER_ROWS,
                args.runs,
                now=history.now,
                month=(history.now - timedelta(days=30)).date(),
                lead=LEAD,
            )
            figures[size] = (app_ms, bare_ms)
            print(
                f"{size:>5} members x {args.attempts} answers: GET /team {app_ms:8.1f} ms median, "
                f"bare SELECT {bare_ms:6.2f} ms, ratio to bare {app_ms / bare_ms:8.1f}",
                flush=True,
            )
    ratio = growth(figures, engine=args.engine, rebuilt=rebuilt, unit="members")
    smallest, largest = min(figures), max(figures)
    verdicts(
        [
            (f"median at {largest} members < {MAX_MS:.0f} ms", figures[largest][0] < MAX_MS),
            (f"{largest}-member page within {MAX_GROWTH:.0f}x of {smallest}", ratio <= MAX_GROWTH),
        ]
    )


def _keep_asking(url: str, seconds: float) -> None:
    with httpx.Client(base_url=url, headers={"Remote-User": LEAD}, timeout=120) as client:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            client.get("/team").raise_for_status()


if __name__ == "__main__":
    run(main)
