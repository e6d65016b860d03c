"""The practice aggregates (per day, per quiz statement, reviews rated again per schedule) kept on
every write agree with their rebuild from the attempts and the review log, and the months of days
practised the database keeps agree with the days."""

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import delete, event, select
from sqlalchemy.orm import ORMExecuteState, Session

from app.accounts.models import User
from app.content.catalogue import load
from app.practice import attempts, scheduling, totals
from app.practice.dependencies import get_now
from app.practice.models import PracticeDay, PracticeMonth, QuizTally, ReviewState
from app.settings import Settings
from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of
from tests.helpers.practice import T0, post_attempt, quiz_ids, write_session

CARDS = (OWNER_CARD, "tf-data-cache-shuffle-order", "tf-data-interleave-reads", "tf-data-map-determinism")
TIERS = ("junior", "middle", "senior", "principal")
RATINGS = ("again", "hard", "good", "easy")
GONE = "a-card-no-longer-served"


class Clock:
    """The time the app's routes take as now, from T0 on."""

    def __init__(self, app: FastAPI) -> None:
        self.at = T0
        app.dependency_overrides[get_now] = lambda: self.at

    def advance(self, rng: random.Random) -> None:
        # Now minutes, now most of a day: the history crosses many UTC days, some twice an hour.
        self.at += timedelta(minutes=rng.choice((1, 7, 45, 300, 900, 1500)))


def snapshot(app: FastAPI) -> dict[str, list[tuple[Any, ...]]]:
    with app.state.db.read_sessions() as session:
        days = session.scalars(select(PracticeDay).order_by(PracticeDay.user_id, PracticeDay.day))
        tallies = session.scalars(
            select(QuizTally).order_by(QuizTally.user_id, QuizTally.card_id, QuizTally.item_id)
        )
        states = session.execute(
            select(ReviewState.user_id, ReviewState.card_id, ReviewState.tier, ReviewState.again).order_by(
                ReviewState.user_id, ReviewState.card_id, ReviewState.tier
            )
        )
        months = session.scalars(
            select(PracticeMonth)
            .where(PracticeMonth.days != 0)
            .order_by(PracticeMonth.user_id, PracticeMonth.month)
        )
        return {
            "months": [(m.user_id, m.month, m.days) for m in months],
            "days": [
                # Scores added in another order differ in the last bits.
                (
                    d.user_id,
                    d.day,
                    d.answers,
                    d.rated_alone,
                    d.reviews,
                    d.timed,
                    d.in_time,
                    d.quizzes,
                    round(d.quiz_score, 9),
                )
                for d in days
            ],
            "tallies": [(t.user_id, t.card_id, t.item_id, t.seen, t.missed) for t in tallies],
            "again": [tuple(row) for row in states],
        }


def months_of(days: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """practice_months as it should be: for each person's month, a bit a day with an answer or a
    rating given alone (bit d - 1 for day d)."""
    bits: dict[tuple[int, Any], int] = {}
    for user_id, day, answers, rated_alone, *_ in days:
        if answers + rated_alone:
            key = (user_id, day.replace(day=1))
            bits[key] = bits.get(key, 0) | 1 << (day.day - 1)
    return [(*key, value) for key, value in sorted(bits.items())]


# The statement that takes a person's lock, as SQL without its values.
LOCK = str(select(User.id).where(User.id == 1).with_for_update(key_share=True))


def recording(sessions: Callable[[], Session]) -> tuple[Callable[[], Session], list[list[str]]]:
    """Sessions from `sessions` that note each statement they run (a query as SQL without its
    values, a write by its kind) in a list of their own: the lists, in the order opened."""
    opened: list[list[str]] = []

    def recorded() -> Session:
        session = sessions()
        statements: list[str] = []
        opened.append(statements)
        event.listen(session, "do_orm_execute", lambda state: statements.append(_shown(state)))
        return session

    return recorded, opened


def _shown(state: ORMExecuteState) -> str:
    # An ORM write cannot be compiled outside its execution.
    return str(state.statement) if state.is_select else type(state.statement).__name__


def rebuild(app: FastAPI, settings: Settings) -> None:
    totals.rebuild(app.state.db.write_sessions, cards=load(settings.content_dir).cards)


def user_id(app: FastAPI, name: str) -> int:
    with app.state.db.read_sessions() as session:
        found = session.scalar(select(User.id).where(User.name == name))
        assert found is not None
        return found


def answer(client: TestClient, rng: random.Random, card_id: str) -> dict[str, Any]:
    kind = rng.choice(("basics", "solid", "follow-up", "quiz", "reveal"))
    tier = rng.choice(TIERS)
    rating = rng.choice((*RATINGS, None))
    seconds = rng.choice((3.0, 19.5, 20.0, 44.0, 90.0, 400.0))
    if kind == "reveal":
        overrides = {"kind": rng.choice(("basics", "solid")), "text": None, "rating": None, "revealed": True}
        return post_attempt(client, card_id, tier=tier, seconds=seconds, points=[], **overrides)
    if kind == "quiz":
        pitfalls, truths = quiz_ids(client, card_id)
        choices = rng.sample(pitfalls + truths, rng.randint(0, 4))
        return post_attempt(
            client, card_id, tier=tier, kind="quiz", text=None, choices=choices, points=[], rating=rating
        )
    follow_up = {"follow_up": rng.randint(0, 1)} if kind == "follow-up" else {}
    return post_attempt(client, card_id, tier=tier, kind=kind, seconds=seconds, rating=rating, **follow_up)


def rate_alone(client: TestClient, card_id: str, rating: str) -> None:
    """A rating on /practice after revealing without typing: a review with no answer."""
    reveal = client.post(
        "/practice/reveal",
        headers=HTMX,
        data={"card_id": card_id, "tier": "middle", "seconds": "12", "text": ""},
    )
    soup = soup_of(reveal)
    form = {i["name"]: i.get("value", "") for i in soup.select(".practice-rate input[type=hidden]")}
    assert "attempt_id" not in form
    assert client.post("/practice/rate", headers=HTMX, data=form | {"rating": rating}).status_code == 200


def undo_latest(app: FastAPI, client: TestClient, *, person: int, card_id: str) -> bool:
    """Take back the person's latest rating of the card where it is one they gave; whether it was."""
    with app.state.db.read_sessions() as session:
        latest = scheduling.latest_review(session, user_id=person, card_id=card_id)
        if latest is None:
            return False
        if latest.attempt_id is None:
            review_id = latest.id
        else:
            attempt = attempts.history(session, user_id=person, card_id=card_id, limit=10_000)
            rated = {a.id: a for a in attempt if a.rating is not None and a.kind != "quiz"}
            if latest.attempt_id not in rated:
                return False
            response = client.delete(
                f"/api/cards/{card_id}/reviews/latest", params={"attempt_id": latest.attempt_id}
            )
            assert response.status_code == 200, response.text
            return True
    with write_session(app) as session:
        attempts.take_back(session, user_id=person, card_id=card_id, review_id=review_id)
    return True


def with_a_card_gone(doc: dict[str, Any]) -> dict[str, Any]:
    """The export with answers, a quiz and a review of a card the deck no longer serves."""
    at = doc["attempts"][-1]["created_at"]
    gone = {"card_id": GONE, "tier": "middle", "created_at": at, "points": [], "seconds": 5.0}
    extra = [
        gone | {"id": 10**9, "kind": "solid", "text": "an answer", "rating": "again"},
        gone | {"id": 10**9 + 1, "kind": "quiz", "choices": ["p-something"], "score": 0.5},
    ]
    log = {"card_id": GONE, "tier": "middle", "rating": 1, "review_datetime": at, "attempt_id": 10**9}
    return doc | {"attempts": doc["attempts"] + extra, "review_logs": doc["review_logs"] + [log]}


def test_what_is_counted_on_write_is_what_the_rebuild_counts(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    clock = Clock(team_app)
    rng = random.Random(20261202)
    names = ("alice", "bob", "root")
    clients = {name: signed_in(name) for name in names}
    ids = {name: user_id(team_app, name) for name in names}
    made: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for step in range(140):
        clock.advance(rng)
        name = rng.choice(names)
        client, card_id = clients[name], rng.choice(CARDS)
        roll = rng.random()
        if roll < 0.55 or not made[name]:
            made[name].append(answer(client, rng, card_id))
        elif roll < 0.7:
            rate_alone(client, card_id, rng.choice(RATINGS))
        elif roll < 0.85:  # re-rated: the review is replaced, not added
            rated = [a for a in made[name] if not a["revealed"] and a["kind"] != "quiz"]
            if rated:
                target = rng.choice(rated)
                response = client.post(
                    f"/attempts/{target['id']}/assessment", headers=HTMX, data={"rating": rng.choice(RATINGS)}
                )
                assert response.status_code == 200, (step, response.text)
        else:
            undo_latest(team_app, client, person=ids[name], card_id=card_id)
    exported = clients["alice"].get("/api/export.json").json()
    response = clients["bob"].post("/api/import", json=with_a_card_gone(exported))
    assert response.status_code == 200, response.text
    # Bob goes on practising after the import, on his own cards and alice's.
    for _ in range(10):
        clock.advance(rng)
        made["bob"].append(answer(clients["bob"], rng, rng.choice(CARDS)))
    with write_session(team_app) as session:
        session.execute(delete(User).where(User.id == ids["root"]))

    kept = snapshot(team_app)
    days, tallies, again = kept["days"], kept["tallies"], kept["again"]
    assert {row[0] for row in days} == {ids["alice"], ids["bob"]}  # root's went with the account
    assert sum(row[3] for row in days) and sum(row[6] for row in days) < sum(row[5] for row in days)
    assert any(row[4] for row in tallies) and any(row[3] > row[4] for row in tallies)
    assert any(row[3] for row in again) and not any(row[1] == GONE for row in tallies)
    assert kept["months"] == months_of(days)
    assert len({month for _, month, _ in kept["months"]}) > 1  # the history crosses months

    rebuild(team_app, team_app.state.settings)
    assert snapshot(team_app) == kept


@pytest.fixture
def budget(client: TestClient) -> int:
    """The solid answer's time budget of the card the single-person tests answer."""
    card = load(client.app.state.settings.content_dir).cards[OWNER_CARD]  # type: ignore[attr-defined]
    return card.time_budget("solid")


def days(app: FastAPI) -> list[tuple[int, int, int, int, int, int]]:
    with app.state.db.read_sessions() as session:
        rows = session.scalars(select(PracticeDay).order_by(PracticeDay.day))
        return [(d.answers, d.rated_alone, d.reviews, d.timed, d.in_time, d.quizzes) for d in rows]


def test_an_answer_in_time_and_one_over_its_budget(app: FastAPI, client: TestClient, budget: int) -> None:
    post_attempt(client, seconds=budget)
    post_attempt(client, seconds=budget + 0.5)
    post_attempt(client, text=None, rating=None, points=[], revealed=True, seconds=1)  # not timed
    post_attempt(client, kind="follow-up", follow_up=0, seconds=1)  # follow-ups are not timed
    assert days(app) == [(4, 0, 4, 2, 1, 0)]  # the reveal is reviewed as again


def test_undo_takes_the_review_off_its_day(app: FastAPI, client: TestClient) -> None:
    clock = Clock(app)
    attempt = post_attempt(client, rating="hard")
    assert days(app) == [(1, 0, 1, 1, 1, 0)]
    response = client.delete(f"/api/cards/{OWNER_CARD}/reviews/latest", params={"attempt_id": attempt["id"]})
    assert response.status_code == 200
    assert days(app) == [(1, 0, 0, 1, 1, 0)]
    clock.at += timedelta(days=1)
    rate_alone(client, OWNER_CARD, "again")
    assert days(app)[1] == (0, 1, 1, 0, 0, 0)
    with write_session(app) as session:
        latest = scheduling.latest_review(session, user_id=1, card_id=OWNER_CARD)
        assert latest is not None
        attempts.take_back(session, user_id=1, card_id=OWNER_CARD, review_id=latest.id)
    assert days(app) == [(1, 0, 0, 1, 1, 0)]  # nothing left on the second day: it is gone
    assert snapshot(app)["months"] == [(1, T0.date().replace(day=1), 1 << (T0.day - 1))]


def test_a_quiz_counts_each_statement_dealt_and_those_judged_wrong(app: FastAPI, client: TestClient) -> None:
    pitfalls, truths = quiz_ids(client)
    # Flags two pitfalls (right) and a true statement (wrong); the pitfalls left unflagged are wrong.
    post_attempt(client, kind="quiz", text=None, choices=[*pitfalls[:2], truths[0]], points=[], rating=None)
    post_attempt(client, kind="quiz", text=None, choices=pitfalls, points=[], rating=None)
    with app.state.db.read_sessions() as session:
        tallies = {t.item_id: (t.seen, t.missed) for t in session.scalars(select(QuizTally))}
        (day,) = session.scalars(select(PracticeDay))
    assert set(tallies) == set(pitfalls + truths)
    assert tallies[truths[0]] == (2, 1) and tallies[truths[1]] == (2, 0)
    assert tallies[pitfalls[0]] == (2, 0) and all(tallies[p] == (2, 1) for p in pitfalls[2:])
    assert day.quizzes == 2 and day.quiz_score < 2 and day.timed == 0


def test_reviews_rated_again_follow_re_ratings(app: FastAPI, client: TestClient) -> None:
    attempt = post_attempt(client, rating="again")
    assert again_counts(app) == [1]
    client.post(f"/attempts/{attempt['id']}/assessment", headers=HTMX, data={"rating": "good"})
    assert again_counts(app) == [0]
    post_attempt(client, text=None, rating=None, points=[], revealed=True)  # a reveal is rated again
    assert again_counts(app) == [1]


def again_counts(app: FastAPI) -> list[int]:
    with app.state.db.read_sessions() as session:
        return list(session.scalars(select(ReviewState.again)))


def test_undoing_a_review_counted_nowhere_counts_nothing(app: FastAPI, client: TestClient) -> None:
    attempt = post_attempt(client, rating="hard")
    with write_session(app) as session:  # as on a day no rebuild has counted yet
        session.execute(delete(PracticeDay))
    response = client.delete(f"/api/cards/{OWNER_CARD}/reviews/latest", params={"attempt_id": attempt["id"]})
    assert response.status_code == 200
    assert days(app) == []


def test_every_write_of_an_import_holds_the_person_first(
    app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild recounts a person under their lock: an import batch written without it could be
    counted by the batch and again by the rebuild."""
    post_attempt(client, rating="again")
    exported = client.get("/api/export.json").json()
    sessions, opened = recording(app.state.db.write_sessions)
    monkeypatch.setattr(app.state.db, "write_sessions", sessions)
    response = client.post("/api/import", json=with_a_card_gone(exported))
    assert response.status_code == 200, response.text
    assert len(opened) > 3 and all(statements[:1] == [LOCK] for statements in opened if statements)


def test_a_rebuild_recounts_one_person_a_transaction(
    team_app: FastAPI, signed_in: Callable[[str], TestClient]
) -> None:
    """Each transaction holds the one write turn (SQLite) for one person's history, not many's."""
    for name in ("alice", "bob"):
        post_attempt(signed_in(name), rating="good")
    sessions, opened = recording(team_app.state.db.write_sessions)
    done = totals.rebuild(sessions, cards=load(team_app.state.settings.content_dir).cards)
    locked = [statements.count(LOCK) for statements in opened]
    with team_app.state.db.read_sessions() as session:
        people = len(session.scalars(select(User.id)).all())
    assert done.people == people > 1 and locked.count(1) == people and set(locked) <= {0, 1}
