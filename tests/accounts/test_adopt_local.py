"""`tiercards users adopt-local NAME`: someone who practised alone (AUTH_MODE=single) keeps their
history when the server becomes a team's, in one audited step that moves all of it or nothing."""

import subprocess
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.accounts import service
from app.accounts.models import LOCAL_USER_ID, AuditEvent
from app.demos.models import DemoRun
from app.factory import create_app
from app.practice.models import Attempt, PracticeDay, QuizTally, ReviewLog, ReviewState, UserSettings
from app.storage.base import utcnow
from app.team.models import Assignment
from tests.factories import OWNER_CARD, make_attempt
from tests.helpers.accounts import accounts_settings, users_cli

OWNED = (Attempt, ReviewState, ReviewLog, DemoRun, UserSettings, Assignment)


@pytest.fixture
def solo_then_team(tmp_path: Path) -> Iterator[FastAPI]:
    """A server that was one person's (history on the solo user) and now has accounts."""
    app = create_app(accounts_settings(tmp_path))
    now = utcnow()
    with app.state.db.write_sessions() as session:
        attempt = make_attempt()
        session.add(attempt)
        session.flush()
        session.add_all(
            [
                ReviewState(
                    user_id=LOCAL_USER_ID,
                    card_id=OWNER_CARD,
                    tier="middle",
                    state=2,
                    due=now + timedelta(days=3),
                    first_review=now,
                    last_review=now,
                ),
                ReviewLog(
                    user_id=LOCAL_USER_ID,
                    card_id=OWNER_CARD,
                    tier="middle",
                    rating=3,
                    review_datetime=now,
                    attempt_id=attempt.id,
                ),
                DemoRun(
                    id=uuid.uuid4().hex, user_id=LOCAL_USER_ID, preset="prefetch", params={}, status="done"
                ),
                UserSettings(user_id=LOCAL_USER_ID, target_tier="senior"),
                Assignment(
                    user_id=LOCAL_USER_ID,
                    created_by=LOCAL_USER_ID,
                    tier="middle",
                    card_ids=[OWNER_CARD],
                    due=date.today(),
                ),
            ]
        )
        service.create_user(session, name="ada", role="admin", password="a sturdy admin phrase")
        session.commit()
    yield app
    app.state.db.dispose()


def cli(app: FastAPI, *args: str) -> subprocess.CompletedProcess[str]:
    return users_cli(app.state.settings, *args)


def owners(app: FastAPI) -> dict[str, set[int]]:
    """Whose rows each table of a person's history holds."""
    with app.state.db.read_sessions() as session:
        return {
            model.__tablename__: set(session.scalars(select(model.user_id).distinct())) for model in OWNED
        }


def ada_id(app: FastAPI) -> int:
    with app.state.db.read_sessions() as session:
        user = service.user_named(session, name="ada")
        assert user is not None
        return user.id


def test_adopting_moves_the_whole_solo_history_to_the_account_and_audits_it(
    solo_then_team: FastAPI,
) -> None:
    done = cli(solo_then_team, "adopt-local", "ada")
    assert done.returncode == 0, done.stderr
    ada = ada_id(solo_then_team)
    assert owners(solo_then_team) == {model.__tablename__: {ada} for model in OWNED}
    with solo_then_team.state.db.read_sessions() as session:
        event = session.scalar(select(AuditEvent).where(AuditEvent.kind == "history_adopted"))
        assert event is not None and event.user_id == ada and event.detail["attempts"] == 1
        assert session.get(UserSettings, ada).target_tier == "senior"  # type: ignore[union-attr]
    assert "ada" in done.stdout and "attempts: 1" in done.stdout


def test_adopting_into_nobody_is_refused_and_moves_nothing(solo_then_team: FastAPI) -> None:
    before = owners(solo_then_team)
    refused = cli(solo_then_team, "adopt-local", "nobody")
    assert refused.returncode == 1 and "no user named 'nobody'" in refused.stderr
    assert owners(solo_then_team) == before


def test_a_card_both_have_a_schedule_on_is_refused_and_moves_nothing(solo_then_team: FastAPI) -> None:
    ada = ada_id(solo_then_team)
    with solo_then_team.state.db.write_sessions() as session:
        now = utcnow()
        session.add(
            ReviewState(user_id=ada, card_id=OWNER_CARD, tier="middle", state=2, due=now, first_review=now)
        )
        session.commit()
    before = owners(solo_then_team)
    refused = cli(solo_then_team, "adopt-local", "ada")
    assert refused.returncode == 1
    assert OWNER_CARD in refused.stderr and "schedule" in refused.stderr
    assert owners(solo_then_team) == before
    with solo_then_team.state.db.read_sessions() as session:
        assert not session.scalar(
            select(func.count()).select_from(AuditEvent).where(AuditEvent.kind == "history_adopted")
        )


def test_adopting_adds_the_solo_counts_to_the_account_s_own(solo_then_team: FastAPI) -> None:
    ada = ada_id(solo_then_team)
    today, yesterday = date(2026, 3, 2), date(2026, 3, 1)
    statement = {"card_id": OWNER_CARD, "item_id": "p-one"}
    with solo_then_team.state.db.write_sessions() as session:
        session.add_all(
            [
                PracticeDay(user_id=LOCAL_USER_ID, day=today, answers=2, reviews=1, quiz_score=0.5),
                PracticeDay(user_id=LOCAL_USER_ID, day=yesterday, answers=1),
                PracticeDay(user_id=ada, day=today, answers=3, quizzes=1, quiz_score=0.25),
                QuizTally(user_id=LOCAL_USER_ID, **statement, seen=3, missed=1),
                QuizTally(user_id=LOCAL_USER_ID, card_id=OWNER_CARD, item_id="p-two", seen=1, missed=1),
                QuizTally(user_id=ada, **statement, seen=1, missed=0),
            ]
        )
        session.commit()
    done = cli(solo_then_team, "adopt-local", "ada")
    assert done.returncode == 0, done.stderr
    with solo_then_team.state.db.read_sessions() as session:
        days = session.execute(
            select(PracticeDay.user_id, PracticeDay.day, PracticeDay.answers, PracticeDay.reviews)
            .add_columns(PracticeDay.quizzes, PracticeDay.quiz_score)
            .order_by(PracticeDay.day)
        ).all()
        tallies = session.execute(
            select(QuizTally.user_id, QuizTally.item_id, QuizTally.seen, QuizTally.missed).order_by(
                QuizTally.item_id
            )
        ).all()
    assert [tuple(d) for d in days] == [(ada, yesterday, 1, 0, 0, 0.0), (ada, today, 5, 1, 1, 0.75)]
    assert [tuple(t) for t in tallies] == [(ada, "p-one", 4, 1), (ada, "p-two", 1, 1)]
