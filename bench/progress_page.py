"""GET /progress for one person with 1,000, 10,000 and 50,000 answers over a year
(bench/_history.py), each size a person of their own in one database, against a bare indexed SELECT
of that person's year of practice_days and their review states, in the same run. Target: the
largest history's page within 1.5x of the 1,000-answer one.

    .venv/bin/python -m bench.progress_page [--engine sqlite|postgres] [--sizes 1000,10000,50000]
        [--runs 7]
"""

import tempfile
from pathlib import Path

from bench._history import (
    YEAR,
    History,
    growth,
    migrated,
    page_arguments,
    page_ms,
    rebuild_aggregates,
    verdicts,
)
from bench._servers import tiercards_serve
from bench._verdict import run

# What /progress reads once the aggregates are kept on write: a row a day, and the schedule.
PERSON_ROWS = """
SELECT d.day, d.answers, d.reviews, d.timed, d.in_time, d.quizzes, d.quiz_score
FROM practice_days d JOIN users u ON u.id = d.user_id WHERE u.name = :name AND d.day >= :since
UNION ALL
SELECT r.due, r.reps, r.lapses, r.again, r.state, NULL, r.stability
FROM review_states r JOIN users u ON u.id = r.user_id WHERE u.name = :name
"""
MAX_GROWTH = 1.5


def main() -> None:
    args = page_arguments("1000,10000,50000").parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as folder, migrated(Path(folder), args.engine) as env:
        history = History(env["DATABASE_URL"])
        for size in sizes:
            history.person(f"person{size}", attempts=size)
        history.finish()
        rebuilt = rebuild_aggregates(env)
        since = (history.now - YEAR).date()
        with tiercards_serve(env) as (url, _):
            for size in sizes:
                name = f"person{size}"
                app_ms = page_ms(url, "/progress", name=name, runs=args.runs)
                bare_ms = history.bare_ms(PERSON_ROWS, args.runs, name=name, since=since)
                figures[size] = (app_ms, bare_ms)
                print(
                    f"{size:>6} answers: GET /progress {app_ms:8.1f} ms median, bare SELECT "
                    f"{bare_ms:6.2f} ms, ratio to bare {app_ms / bare_ms:8.1f}",
                    flush=True,
                )
    ratio = growth(figures, engine=args.engine, rebuilt=rebuilt, unit="answers")
    smallest, largest = min(figures), max(figures)
    verdicts([(f"{largest}-answer page within {MAX_GROWTH}x of {smallest}", ratio <= MAX_GROWTH)])


if __name__ == "__main__":
    run(main)
