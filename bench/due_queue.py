"""The due queue for one person with 5,000 cards and 200,000 review logs (target: under 50 ms),
as a ratio to a plain indexed SELECT of the same rows, in the same run.

A temporary SQLite file is migrated with Alembic and filled; then, interleaved, each of these is
timed `--runs` times and the medians are printed:
  - due queue:       app.practice.scheduling.due_queue (what /practice and /api/practice/due start from: the cards
                     due now at the person's tier, most overdue first, retired cards left out)
  - practice queue:  app.practice.scheduling.practice_queue (the due queue plus new-card allowance, today's count
                     and the unseen cards: everything the /practice page needs)
  - plain SELECT:    the same rows with one raw indexed SELECT on the same engine

    .venv/bin/python bench/due_queue.py [--cards 5000] [--logs 200000] [--runs 21]
"""

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import insert, text

from app.practice import scheduling
from app.practice.models import ReviewLog, ReviewState
from app.practice.preferences import PracticeSettings
from app.settings import Settings
from app.storage import migrations
from app.storage.database import Database

USER = 1
TIER = "middle"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PLAIN = (
    "SELECT card_id, due, state FROM review_states "
    "WHERE user_id = ? AND due <= ? AND tier = ? ORDER BY due, card_id"
)


def fill(db: Database, cards: int, logs: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    ids = [f"card-{i:05d}" for i in range(cards)]
    states, log_rows = [], []
    per_card = logs // cards
    for n, card_id in enumerate(ids):
        first = NOW - timedelta(days=rng.uniform(60, 720))
        last = NOW - timedelta(days=rng.uniform(0.5, 50))
        # A fifth are due now (up to a month overdue); the rest fall due over the next year.
        due = (
            NOW + timedelta(days=rng.uniform(0.01, 365))
            if n % 5
            else NOW - timedelta(days=rng.uniform(0, 30))
        )
        states.append(
            {
                "user_id": USER,
                "card_id": card_id,
                "tier": TIER,
                "state": 2,
                "step": None,
                "stability": rng.uniform(1, 200),
                "difficulty": rng.uniform(1, 10),
                "due": due,
                "last_review": last,
                "first_review": first,
                "reps": per_card,
                "lapses": rng.randint(0, 3),
            }
        )
        span = (last - first).total_seconds()
        for k in range(per_card):
            log_rows.append(
                {
                    "user_id": USER,
                    "card_id": card_id,
                    "tier": TIER,
                    "rating": rng.randint(1, 4),
                    "review_datetime": first + timedelta(seconds=span * k / max(1, per_card - 1)),
                    "review_duration_ms": rng.randint(2_000, 90_000),
                    "attempt_id": None,
                }
            )
    with db.write_sessions() as session:
        session.execute(insert(ReviewState), states)
        for start in range(0, len(log_rows), 20_000):
            session.execute(insert(ReviewLog), log_rows[start : start + 20_000])
        session.commit()
    with db.engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
    return ids


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=5_000)
    parser.add_argument("--logs", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), secret_key="bench-only-secret-key-long-enough-000")
        migrations.upgrade(settings)
        db = Database(settings)
        ids = fill(db, args.cards, args.logs)
        known = set(ids)
        practice = PracticeSettings(target_tier=TIER, new_per_day=10)
        naive_now = NOW.replace(tzinfo=None)  # UTCDateTime stores naive UTC; the raw query binds it so

        def due_queue() -> object:
            with db.read_sessions() as session:
                return scheduling.due_queue(session, USER, TIER, NOW, known)

        def practice_queue() -> object:
            with db.read_sessions() as session:
                return scheduling.practice_queue(session, USER, practice, ids, NOW)

        def plain() -> object:
            with db.engine.connect() as connection:
                return connection.exec_driver_sql(PLAIN, (USER, naive_now, TIER)).fetchall()

        rows = due_queue()
        plain_rows = plain()
        assert isinstance(rows, list) and isinstance(plain_rows, list)
        assert [d.card_id for d in rows] == [r[0] for r in plain_rows], "not the same rows"
        with db.engine.connect() as connection:
            plan = " / ".join(
                str(r[-1])
                for r in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + PLAIN, (USER, naive_now, TIER))
            )
            logs = connection.execute(text("SELECT count(*) FROM review_logs")).scalar()
        samples: dict[str, list[float]] = {"due": [], "practice": [], "plain": []}
        for _ in range(3):  # warm up caches and the connection pool
            due_queue(), practice_queue(), plain()
        for _ in range(args.runs):
            samples["due"].append(timed(due_queue))
            samples["practice"].append(timed(practice_queue))
            samples["plain"].append(timed(plain))
        db.dispose()
    due, full, bare = (statistics.median(samples[k]) for k in ("due", "practice", "plain"))
    print(
        f"one person, {args.cards} cards, {logs} review logs; {len(rows)} due now; median of {args.runs} runs"
    )
    print(f"plain indexed SELECT:  {bare:6.2f} ms   plan: {plan}")
    print(f"due queue:             {due:6.2f} ms   ratio {due / bare:.2f}x the plain SELECT")
    print(f"practice queue:        {full:6.2f} ms   ratio {full / bare:.2f}x the plain SELECT")
    verdict = "PASS" if due < 50 and full < 50 else "FAIL"
    print(f"target: due queue under 50 ms: {verdict}")
    if verdict == "FAIL":
        raise SystemExit(1)


if __name__ == "__main__":
    main()
