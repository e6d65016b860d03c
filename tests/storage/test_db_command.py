"""`tiercards db upgrade`, as a container's migrate step runs it: its output goes to logs."""

import os
import secrets
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app import PROJECT_ROOT
from app.accounts.models import LOCAL_USER_ID
from app.practice.models import PracticeDay, QuizTally, ReviewLog
from app.settings import Settings
from app.storage import migrations
from app.storage.database import make_engine
from tests.factories import OWNER_CARD, make_attempt
from tests.servers import tiercards_on
from tests.services import database_on, database_url


def test_db_upgrade_names_the_database_but_never_its_password(postgres_url: str, tmp_path: Path) -> None:
    # The test server trusts loopback, so any password connects; the point is where it shows.
    url = make_url(database_on(postgres_url, f"cli_{secrets.token_hex(6)}")).set(password="s3cret-word")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "db", "upgrade"],
        cwd=PROJECT_ROOT,
        env={
            **os.environ,
            "DATA_DIR": str(tmp_path),
            "DATABASE_URL": url.render_as_string(hide_password=False),
        },
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "database is up to date" in done.stdout and url.database in done.stdout
    assert "s3cret-word" not in done.stdout + done.stderr


# Every command that upgrades the database, as an operator may first run one after updating.
UPGRADING = (("db", "upgrade"), ("users", "list"))


@pytest.mark.parametrize("command", UPGRADING, ids=" ".join)
def test_upgrading_past_the_practice_aggregates_counts_the_practice_already_there(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    settings = Settings(data_dir=tmp_path, database_url=database_url(tmp_path), secret_key="x" * 40)
    migrations.upgrade(settings, "0020")
    engine = make_engine(settings)
    at = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
    with Session(engine) as session:
        session.add_all(
            [
                make_attempt(created_at=at, seconds=1.0),
                make_attempt(
                    created_at=at + timedelta(days=1), kind="quiz", text=None, choices=[], score=0.5
                ),
            ]
        )
        session.add(
            ReviewLog(user_id=LOCAL_USER_ID, card_id=OWNER_CARD, tier="middle", rating=1, review_datetime=at)
        )
        session.commit()
    done = tiercards_on(tmp_path, *command)
    assert done.returncode == 0, done.stderr
    assert "practice aggregates rebuilt for" in done.stdout
    with Session(engine) as session:
        days = session.execute(
            select(
                PracticeDay.day,
                PracticeDay.answers,
                PracticeDay.rated_alone,
                PracticeDay.in_time,
                PracticeDay.quizzes,
            ).order_by(PracticeDay.day)
        ).all()
        tallies = session.scalar(select(func.sum(QuizTally.seen)))
    engine.dispose()
    assert [tuple(day) for day in days] == [
        (at.date(), 1, 1, 1, 0),
        ((at + timedelta(days=1)).date(), 1, 0, 0, 1),
    ]
    assert tallies  # the quiz's statements, each judged: marked with the deck
    # Once at the newest revision, an upgrade has nothing to count again; the command still can.
    again = tiercards_on(tmp_path, *command)
    assert again.returncode == 0 and "rebuilt" not in again.stdout
    rebuilt = tiercards_on(tmp_path, "db", "rebuild-aggregates")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "practice aggregates rebuilt for" in rebuilt.stdout
