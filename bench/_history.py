"""Long practice histories for the page benchmarks, written straight into a migrated database:
seeding a million answers through HTTP would take hours, so rows go in with executemany (SQLAlchemy
Core, the same statements on SQLite and PostgreSQL), then `tiercards db rebuild-aggregates`
recomputes the tables the pages read (practice days, quiz tallies, reviews rated again).

A history is spread over the last year: answers (basics, solid, quizzes) on several cards at two
depths, a review logged for every rated answer, and one review state per card and depth.
"""

import argparse
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import create_engine, func, insert, select, text
from sqlalchemy.engine import Engine

from app.accounts.models import User
from app.accounts.names import name_key
from app.content.catalogue import load
from app.practice.models import Attempt, ReviewLog, ReviewState
from bench._servers import ROOT, free_port
from bench._timing import timed
from bench._topology import _base_env, postgres
from bench._verdict import verdict

YEAR = timedelta(days=365)
TIERS = ("middle", "senior")
CARDS_PER_PERSON = 6
# Rows a statement: large enough that a round trip is cheap beside it, small enough for memory.
CHUNK = 20_000
RATINGS = ("again", "hard", "good", "easy")
Rows = list[dict[str, object]]


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


@contextmanager
def migrated(folder: Path, engine: str) -> Iterator[dict[str, str]]:
    """A migrated database on `engine` ("sqlite" or "postgres"), and the environment that serves it
    with people named by a proxy header (so any name is a person, no sign-in round trips)."""
    env = _base_env(folder / "data")
    if engine == "postgres":
        env["DATABASE_URL"] = postgres("start", folder / "postgres", str(free_port()))
    else:
        (folder / "data").mkdir(parents=True)
        env["DATABASE_URL"] = f"sqlite:///{folder / 'data' / 'tiercards.db'}"
    try:
        cli(env, "db", "upgrade").check_returncode()
        yield env
    finally:
        if engine == "postgres":
            postgres("destroy", folder / "postgres")


def rebuild_aggregates(env: dict[str, str]) -> bool:
    """Recompute the aggregates from the rows just inserted; False where this version of the app
    has no such command (its pages then read the answers and the review log themselves)."""
    done = cli(env, "db", "rebuild-aggregates")
    if done.returncode and "No such command" in done.stderr:
        return False
    done.check_returncode()
    return True


class History:
    """Writes people and their histories into one database; ids continue across calls, so a team
    can grow between measurements."""

    def __init__(self, database_url: str, seed: int = 7) -> None:
        self.engine: Engine = create_engine(database_url)
        self.rng = random.Random(seed)
        self.now = datetime.now(UTC)
        cards = sorted(load(ROOT / "content").cards)
        self.cards = cards
        with self.engine.connect() as connection:
            self.next_user = int(connection.scalar(select(func.max(User.id))) or 0) + 1
            self.next_attempt = int(connection.scalar(select(func.max(Attempt.id))) or 0) + 1

    def person(self, name: str, *, attempts: int, role: str = "member") -> None:
        self.people([name], attempts=attempts, role=role)

    def people(self, names: list[str], *, attempts: int, role: str = "member") -> None:
        """`names` as new people, each with `attempts` answers over the last year."""
        first = self.next_user
        self.next_user += len(names)
        users: Rows = [
            {"id": first + i, "name": n, "name_key": name_key(n), "role": role} for i, n in enumerate(names)
        ]
        self._insert(User, users)
        batch: dict[type, Rows] = {Attempt: [], ReviewLog: [], ReviewState: []}
        for user_id in range(first, self.next_user):
            for model, rows in self._history(user_id, attempts).items():
                batch[model].extend(rows)
            if len(batch[Attempt]) >= CHUNK:
                self._flush(batch)
        self._flush(batch)

    def _history(self, user_id: int, count: int) -> dict[type, Rows]:
        rng = self.rng
        cards = rng.sample(self.cards, CARDS_PER_PERSON)
        start = self.now - YEAR
        attempts: Rows = []
        logs: Rows = []
        for n in range(count):
            card_id, tier = cards[n % len(cards)], TIERS[n % 3 == 0]
            when = start + YEAR * (n + rng.random()) / count
            attempt_id = self.next_attempt
            self.next_attempt += 1
            quiz = n % 5 == 4
            rating = None if quiz else rng.choice(RATINGS)
            attempts.append(
                {
                    "id": attempt_id,
                    "user_id": user_id,
                    "card_id": card_id,
                    "tier": tier,
                    "kind": "quiz" if quiz else ("basics", "solid")[n % 2],
                    "text": None if quiz else "prefetch overlaps input with compute",
                    "choices": [] if quiz else None,
                    "score": rng.random() if quiz else None,
                    "seconds": rng.uniform(10, 200),
                    "points": [] if quiz else [0, 1],
                    "rating": rating,
                    "created_at": when,
                }
            )
            if rating is not None:
                logs.append(
                    {
                        "user_id": user_id,
                        "card_id": card_id,
                        "tier": tier,
                        "rating": RATINGS.index(rating) + 1,
                        "review_datetime": when,
                        "review_duration_ms": rng.randint(10_000, 200_000),
                        "attempt_id": attempt_id,
                    }
                )
        states: Rows = [
            {
                "user_id": user_id,
                "card_id": card_id,
                "tier": tier,
                "state": 2,
                "step": None,
                "stability": rng.uniform(1, 100),
                "difficulty": rng.uniform(1, 10),
                # About a third due now; the rest over the next month.
                "due": self.now + timedelta(days=rng.uniform(-10, 20)),
                "last_review": self.now - timedelta(days=rng.uniform(0, 10)),
                "first_review": start,
                "reps": max(1, count // (len(cards) * len(TIERS))),
                "lapses": rng.randint(0, 5),
                "again": rng.randint(0, 10),
            }
            for card_id in cards
            for tier in TIERS
            if count  # no answers, nothing scheduled
        ]
        return {Attempt: attempts, ReviewLog: logs, ReviewState: states}

    def _flush(self, batch: dict[type, Rows]) -> None:
        for model, rows in batch.items():
            self._insert(model, rows)
            rows.clear()

    def _insert(self, model: type, rows: Rows) -> None:
        with self.engine.begin() as connection:
            for first in range(0, len(rows), CHUNK):
                connection.execute(insert(model), rows[first : first + CHUNK])

    def finish(self) -> None:
        """Fresh planner statistics, and (PostgreSQL) sequences past the ids written here, so the
        app's own inserts afterwards get new ones."""
        with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                for table in ("users", "attempts", "review_logs", "review_states"):
                    connection.execute(
                        text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}")
                    )
            connection.exec_driver_sql("ANALYZE")

    def bare_ms(self, query: str, runs: int, **params: object) -> float:
        """The median of `runs` executions of one SELECT, fetched whole, straight on the driver."""
        with self.engine.connect() as connection:
            statement = text(query)
            return 1000 * timed(lambda: connection.execute(statement, params).all(), runs)


def page_ms(url: str, path: str, *, name: str, runs: int) -> float:
    """The median of `runs` GETs of `path` as `name` (after one not counted), in ms; fails on an
    answer other than 200."""
    with httpx.Client(base_url=url, headers={"Remote-User": name}, timeout=120) as client:

        def get() -> None:
            client.get(path).raise_for_status()

        get()
        return 1000 * timed(get, runs)


def page_arguments(sizes: str) -> argparse.ArgumentParser:
    """What a page-over-history benchmark takes: the engine, the sizes to seed and the GETs to time."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--sizes", default=sizes)
    parser.add_argument("--runs", type=int, default=7)
    return parser


def growth(figures: dict[int, tuple[float, float]], *, engine: str, rebuilt: bool, unit: str) -> float:
    """Print what the run stood on and the largest size's page time over the smallest's; return it."""
    print(f"engine {engine}; aggregates rebuilt: {'yes' if rebuilt else 'no (no rebuild-aggregates here)'}")
    print(
        f"(machine: {os.cpu_count()} cores shared with other work; big sizes run once, medians of few GETs)"
    )
    smallest, largest = min(figures), max(figures)
    ratio = figures[largest][0] / figures[smallest][0]
    print(f"ratio {largest}/{smallest} {unit}: {ratio:.2f}")
    return ratio


def verdicts(checks: list[tuple[str, bool]]) -> None:
    """A verdict line for each (target, met); the caller's `run(main)` exits 1 if any failed."""
    for target, ok in checks:
        verdict(ok, target)
