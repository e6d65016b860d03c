"""The due queue for one person with 5,000 cards and 200,000 review logs (target: under 50 ms),
as a ratio to a plain indexed SELECT of the same rows, in the same run. Then the rated answer POST
that writes those tables, with scheduling.record_review's ORM loads and flushes against the same
review in three textual statements: scheduling.py had that raw-SQL fast path and dropped it,
because the POST was only ~1.2x faster with it (1.65x for its write transaction alone).

A temporary SQLite file is migrated with Alembic and filled; then, interleaved, each of these is
timed `--runs` times and the medians are printed:
  - due queue:       app.practice.scheduling.due_queue (what /practice and /api/practice/due start from: the cards
                     due now at the person's tier, most overdue first, retired cards left out)
  - practice queue:  app.practice.scheduling.practice_queue (the due queue plus new-card allowance, today's count
                     and the unseen cards: everything the /practice page needs)
  - plain SELECT:    the same rows with one raw indexed SELECT on the same engine
then `--answers` rated answer POSTs (in process, through the app) with each way of reviewing,
alternating, and as many of their write transactions (an attempt, its review, the commit) alone.

    .venv/bin/python bench/due_queue.py [--cards 5000] [--logs 200000] [--runs 21] [--answers 300]
"""

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

from fastapi.testclient import TestClient
from fsrs import Rating
from sqlalchemy import bindparam, insert, text
from sqlalchemy.orm import Session

from app.factory import create_app
from app.practice import scheduling
from app.practice.models import Attempt, ReviewLog, ReviewState
from app.practice.preferences import PracticeSettings
from app.settings import Settings
from app.storage import migrations
from app.storage.base import UTCDateTime
from app.storage.database import Database
from app.web.security import CSRF_COOKIE
from bench._verdict import run, verdict

USER = 1
TIER = "middle"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
PLAIN = (
    "SELECT card_id, due, state FROM review_states "
    "WHERE user_id = ? AND due <= ? AND tier = ? ORDER BY due, card_id"
)
ANSWER = {
    "tier": TIER,
    "kind": "solid",
    "text": "prefetch overlaps input with compute " * 8,
    "seconds": 41.5,
    "rating": "good",
    "points": [0, 1, 4],
}

# The baseline of the answer write: scheduling.record_review done with one textual read and two
# textual writes instead of ORM loads and flushes (in-order reviews only: all this bench makes).
_FIELDS = ("state", "step", "stability", "difficulty", "due", "last_review", "first_review", "reps", "lapses")
_DATETIMES = ("due", "last_review", "first_review")
_READ_STATE = text(
    f"SELECT s.id, {', '.join(f's.{field}' for field in _FIELDS)},"
    " (SELECT u.desired_retention FROM user_settings u WHERE u.user_id = :user_id) AS retention"
    " FROM (SELECT 1 AS one) q LEFT JOIN review_states s"
    " ON s.user_id = :user_id AND s.card_id = :card_id AND s.tier = :tier"
).columns(**{name: UTCDateTime() for name in _DATETIMES})
_INSERT_LOG = text(
    "INSERT INTO review_logs (user_id, card_id, tier, rating, review_datetime, review_duration_ms, attempt_id)"
    " VALUES (:user_id, :card_id, :tier, :rating, :review_datetime, :review_duration_ms, :attempt_id)"
).bindparams(bindparam("review_datetime", type_=UTCDateTime()))
_INSERT_STATE = text(
    f"INSERT INTO review_states (user_id, card_id, tier, {', '.join(_FIELDS)})"
    f" VALUES (:user_id, :card_id, :tier, {', '.join(f':{field}' for field in _FIELDS)})"
).bindparams(*(bindparam(name, type_=UTCDateTime()) for name in _DATETIMES))
_UPDATE_STATE = text(
    f"UPDATE review_states SET {', '.join(f'{field} = :{field}' for field in _FIELDS)} WHERE id = :id"
).bindparams(*(bindparam(name, type_=UTCDateTime()) for name in _DATETIMES))


def textual_review(
    session: Session,
    *,
    user_id: int,
    card_id: str,
    tier: str,
    rating: Rating | int,
    duration_ms: int | None,
    at: datetime,
    attempt_id: int | None = None,
) -> ReviewState:
    """scheduling.record_review's work in three textual statements (its signature, so it can stand in)."""
    key = {"user_id": user_id, "card_id": card_id, "tier": tier}
    found = session.execute(_READ_STATE, key).one()
    log = {"rating": int(rating), "review_datetime": at, "review_duration_ms": duration_ms}
    session.execute(_INSERT_LOG, key | log | {"attempt_id": attempt_id})
    row = ReviewState(id=found.id, **key)
    if found.id is None:
        scheduling._fresh_state(row, at)
    else:
        for field in _FIELDS:
            setattr(row, field, getattr(found, field))
    sched = scheduling.scheduler(found.retention or PracticeSettings().desired_retention)
    scheduling._apply(sched, row=row, rating=Rating(int(rating)), at=at)
    values = {field: getattr(row, field) for field in _FIELDS}
    if found.id is None:
        session.execute(_INSERT_STATE, key | values)
    else:
        session.execute(_UPDATE_STATE, values | {"id": found.id})
    return row


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


def timed(function: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    function(*args)
    return (time.perf_counter() - start) * 1000


REVIEWS = {"ORM": scheduling.record_review, "textual": textual_review}


def time_answers(settings: Settings, ids: list[str], count: int) -> dict[str, list[float]]:
    """Rated answer POSTs and bare answer write transactions, with each way of reviewing in turn."""
    samples: dict[str, list[float]] = {f"{what} {way}": [] for what in ("post", "write") for way in REVIEWS}
    app = create_app(settings)
    db: Database = app.state.db
    with TestClient(app, base_url="http://localhost") as client:
        client.get("/healthz")
        client.headers["X-CSRF-Token"] = client.cookies[CSRF_COOKIE]
        served = [card["id"] for card in client.get("/api/cards").json()["cards"]]

        def post(n: int) -> None:
            client.post(f"/api/cards/{served[n % len(served)]}/attempts", json=ANSWER).raise_for_status()

        def write(card_id: str, n: int) -> None:
            # After every filled review (NOW + n), so the review is in order.
            at = NOW + timedelta(seconds=n)
            with db.write_sessions() as session:
                attempt = Attempt(
                    user_id=USER,
                    card_id=card_id,
                    tier=TIER,
                    kind="solid",
                    seconds=41.5,
                    points=[0, 1, 4],
                    rating="good",
                    created_at=at,
                )
                session.add(attempt)
                scheduling.review_attempt(session, attempt=attempt)
                session.commit()

        ways = list(REVIEWS.items())
        for n in range(-3, count):  # the first three warm up
            for i, (way, review) in enumerate(ways if n % 2 else ways[::-1]):
                with mock.patch.object(scheduling, "record_review", review):
                    post_ms = timed(post, n)
                    write_ms = timed(write, ids[(2 * n + i) % len(ids)], n)
                if n >= 0:
                    samples[f"post {way}"].append(post_ms)
                    samples[f"write {way}"].append(write_ms)
    db.dispose()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=5_000)
    parser.add_argument("--logs", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--answers", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            data_dir=Path(folder), secret_key="bench-only-secret-key-long-enough-000", content_poll_seconds=0
        )
        migrations.upgrade(settings)
        db = Database(settings)
        ids = fill(db, args.cards, args.logs)
        known = set(ids)
        practice = PracticeSettings(target_tier=TIER, new_per_day=10)
        naive_now = NOW.replace(tzinfo=None)  # UTCDateTime stores naive UTC; the raw query binds it so

        def due_queue() -> object:
            with db.read_sessions() as session:
                return scheduling.due_queue(session, user_id=USER, tier=TIER, now=NOW, known=known)

        def practice_queue() -> object:
            with db.read_sessions() as session:
                return scheduling.practice_queue(session, user_id=USER, settings=practice, cards=ids, now=NOW)

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
        answers = {
            name: statistics.median(times)
            for name, times in time_answers(settings, ids, args.answers).items()
        }
    due, full, bare = (statistics.median(samples[k]) for k in ("due", "practice", "plain"))
    print(
        f"one person, {args.cards} cards, {logs} review logs; {len(rows)} due now; median of {args.runs} runs"
    )
    print(f"plain indexed SELECT:  {bare:6.2f} ms   plan: {plan}")
    print(f"due queue:             {due:6.2f} ms   ratio {due / bare:.2f}x the plain SELECT")
    print(f"practice queue:        {full:6.2f} ms   ratio {full / bare:.2f}x the plain SELECT")
    print(f"answers, median of {args.answers} each (ORM review / textual review):")
    for what, label in (("post", "rated answer POST"), ("write", "its write transaction")):
        orm, textual = answers[f"{what} ORM"], answers[f"{what} textual"]
        print(f"  {label + ':':23}{orm:6.2f} ms / {textual:6.2f} ms   ratio {orm / textual:.2f}x")
    verdict(due < 50 and full < 50, "target: due queue under 50 ms")


if __name__ == "__main__":
    run(main)
