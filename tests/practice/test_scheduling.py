"""FSRS scheduling: fixed-time determinism, the quiz rule, the re-rating rule, time zones."""

import time
from datetime import UTC, datetime, timedelta, timezone

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from fsrs import Rating

from app.practice import scheduling
from app.practice.dependencies import get_now
from app.practice.models import Attempt, ReviewState
from app.practice.preferences import PracticeSettings
from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX
from tests.helpers.practice import T0, logs, post_attempt, quiz_ids, review, state, write_session


def test_a_new_card_again_is_due_sooner_than_good_and_good_sooner_than_easy(app: FastAPI) -> None:
    due = {
        rating: review(app, rating, T0, card_id=f"card-{rating}").due for rating in scheduling.RATING_BY_NAME
    }
    assert due["again"] < due["hard"] < due["good"] < due["easy"]
    # FSRS-6 defaults, no fuzz: learning steps of 1 and 10 minutes, easy graduates at once.
    assert due["again"] == T0 + timedelta(minutes=1)
    assert due["good"] == T0 + timedelta(minutes=10)
    assert due["easy"] - T0 >= timedelta(days=1)


def test_a_reviewed_card_again_is_due_sooner_than_good_and_good_sooner_than_easy(app: FastAPI) -> None:
    later = T0 + timedelta(days=20)
    due = {}
    for rating in scheduling.RATING_BY_NAME:
        card_id = f"card-{rating}"
        review(app, "easy", T0, card_id=card_id)  # graduates to the review state
        due[rating] = review(app, rating, later, card_id=card_id).due
    assert due["again"] < due["hard"] < due["good"] < due["easy"]
    assert due["again"] == later + timedelta(minutes=10)  # relearning step
    again = state(app, "card-again")
    assert again is not None and again.state == 3 and again.lapses == 1


def test_the_same_reviews_at_the_same_times_give_the_same_schedule(app: FastAPI) -> None:
    plan = [
        ("good", T0),
        ("good", T0 + timedelta(minutes=12)),
        ("hard", T0 + timedelta(days=3)),
        ("good", T0 + timedelta(days=9)),
    ]
    results = []
    for card_id in ("first", "second"):
        for rating, at in plan:
            row = review(app, rating, at, card_id=card_id)
        results.append((row.state, row.due, row.stability, row.difficulty, row.reps))
    assert results[0] == results[1]
    assert results[0][4] == 4


def test_a_higher_desired_retention_schedules_sooner() -> None:
    row = ReviewState(card_id="x", tier="middle")
    scheduling._fresh_state(row, T0)
    scheduling._apply(scheduling.scheduler(0.9), row=row, rating=Rating.Easy, at=T0)
    relaxed = scheduling.preview(row, sched=scheduling.scheduler(0.8), now=T0 + timedelta(days=10))["good"]
    strict = scheduling.preview(row, sched=scheduling.scheduler(0.97), now=T0 + timedelta(days=10))["good"]
    assert strict < relaxed


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1.0, Rating.Easy),
        (0.95, Rating.Good),
        (0.8, Rating.Good),
        (0.79, Rating.Hard),
        (0.5, Rating.Hard),
        (0.49, Rating.Again),
        (0.0, Rating.Again),
    ],
)
def test_the_quiz_rule(score: float, expected: Rating) -> None:
    assert scheduling.quiz_rating(score) == expected


def test_what_an_attempt_feeds_the_schedule() -> None:
    assert scheduling.attempt_rating(Attempt(kind="solid", rating=None)) is None
    assert scheduling.attempt_rating(Attempt(kind="follow-up", rating="hard")) == Rating.Hard
    assert scheduling.attempt_rating(Attempt(kind="quiz", score=0.6, rating=None)) == Rating.Hard
    # A self-rating given to a quiz afterwards wins over its score.
    assert scheduling.attempt_rating(Attempt(kind="quiz", score=0.6, rating="easy")) == Rating.Easy


def test_answers_follow_ups_and_quizzes_feed_the_card_at_the_tier_answered(
    app: FastAPI, client: TestClient
) -> None:
    post_attempt(client, tier="middle", rating="good", seconds=41.5)
    post_attempt(client, tier="senior", kind="follow-up", follow_up=1, points=[], rating="hard")
    perfect_quiz, _ = quiz_ids(client)  # every pitfall marked, no true statement
    post_attempt(client, tier="junior", kind="quiz", text=None, choices=perfect_quiz, points=[], rating=None)
    post_attempt(client, tier="principal", rating=None)  # not rated: nothing scheduled yet
    for tier in ("middle", "senior", "junior"):
        row = state(app, tier=tier)
        assert row is not None and row.reps == 1, tier
    assert state(app, tier="principal") is None
    by_tier = {log.tier: log for log in logs(app)}
    assert by_tier["middle"].rating == 3 and by_tier["middle"].review_duration_ms == 41_500
    assert by_tier["senior"].rating == 2
    assert by_tier["junior"].rating == 4  # a perfect quiz is easy


def test_rating_an_answer_later_schedules_it_at_the_time_it_was_given(
    app: FastAPI, client: TestClient
) -> None:
    attempt = post_attempt(client, rating=None)
    assert state(app) is None
    response = client.post(
        f"/attempts/{attempt['id']}/assessment", data={"rating": "good", "points": ["0"]}, headers=HTMX
    )
    assert response.status_code == 200, response.text
    (log,) = logs(app)
    assert log.attempt_id == attempt["id"] and log.rating == 3
    assert log.review_datetime == datetime.fromisoformat(attempt["created_at"])


def test_re_rating_an_attempt_replaces_its_review_instead_of_counting_twice(
    app: FastAPI, client: TestClient
) -> None:
    attempt = post_attempt(client, rating="again")
    for rating in ("hard", "easy", "easy"):
        response = client.post(f"/attempts/{attempt['id']}/assessment", data={"rating": rating}, headers=HTMX)
        assert response.status_code == 200, response.text
    (log,) = logs(app)
    assert log.rating == 4
    row = state(app)
    assert row is not None and row.reps == 1
    # Exactly as if it had been rated easy in the first place.
    fresh = review(app, "easy", datetime.fromisoformat(attempt["created_at"]), card_id="reference")
    assert (row.state, row.due, row.stability, row.difficulty) == (
        fresh.state,
        fresh.due,
        fresh.stability,
        fresh.difficulty,
    )


def test_a_review_older_than_the_last_one_is_replayed_in_time_order(app: FastAPI) -> None:
    review(app, "good", T0 + timedelta(days=2), card_id="late-first")
    late = review(app, "hard", T0, card_id="late-first")
    review(app, "hard", T0, card_id="in-order")
    ordered = review(app, "good", T0 + timedelta(days=2), card_id="in-order")
    assert (late.due, late.stability, late.reps) == (ordered.due, ordered.stability, ordered.reps)


def test_retrievability_falls_with_time(app: FastAPI) -> None:
    row = review(app, "easy", T0)
    values = [scheduling.retrievability(row, T0 + timedelta(days=d)) for d in (0, 5, 30, 200)]
    assert values[0] == pytest.approx(1.0)
    assert values == sorted(values, reverse=True) and values[-1] < 0.7


# --- time zones -------------------------------------------------------------------------------


def test_naive_datetimes_are_refused(app: FastAPI) -> None:
    with pytest.raises(ValueError, match="naive"):
        review(app, "good", datetime(2026, 3, 2, 9, 30))
    with pytest.raises(ValueError, match="naive"):
        scheduling.utc_day_start(datetime(2026, 3, 2))
    row = review(app, "good", T0)
    with pytest.raises(ValueError, match="naive"):
        scheduling.retrievability(row, datetime(2026, 3, 3))


def test_an_aware_time_in_another_zone_is_the_same_instant_in_utc(app: FastAPI) -> None:
    kiritimati = timezone(timedelta(hours=14))
    row = review(app, "good", T0.astimezone(kiritimati))
    assert row.last_review == T0 and row.due == T0 + timedelta(minutes=10)
    assert row.due.tzinfo == UTC


def test_the_new_card_allowance_renews_at_midnight_utc(app: FastAPI) -> None:
    just_before = datetime(2026, 3, 2, 23, 59, 30, tzinfo=UTC)
    review(app, "good", just_before)
    with app.state.db.read_sessions() as session:
        assert (
            scheduling.new_introduced_today(
                session, user_id=1, tier="middle", now=just_before + timedelta(seconds=29)
            )
            == 1
        )
        assert (
            scheduling.new_introduced_today(
                session, user_id=1, tier="middle", now=datetime(2026, 3, 3, tzinfo=UTC)
            )
            == 0
        )
        # 23:59:30 UTC is already 3 March in UTC+14; the day is still the UTC day.
        local = datetime(2026, 3, 3, 13, 59, 45, tzinfo=timezone(timedelta(hours=14)))
        assert scheduling.new_introduced_today(session, user_id=1, tier="middle", now=local) == 1


def test_a_card_due_just_before_midnight_utc_is_due_at_that_instant_not_at_local_midnight(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's local zone must not matter: run this under UTC+14.
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    try:
        due_at = datetime(2026, 3, 2, 23, 58, tzinfo=UTC)
        review(app, "good", due_at - timedelta(minutes=10))  # good on a new card: due in 10 minutes
        with app.state.db.read_sessions() as session:
            before = scheduling.due_queue(
                session, user_id=1, tier="middle", now=due_at - timedelta(seconds=1)
            )
            at = scheduling.due_queue(session, user_id=1, tier="middle", now=due_at)
            after_midnight = scheduling.due_queue(
                session, user_id=1, tier="middle", now=datetime(2026, 3, 3, 0, 1, tzinfo=UTC)
            )
        assert before == [] and [d.card_id for d in at] == [OWNER_CARD] and len(after_midnight) == 1
        assert at[0].due == due_at
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_queue_serves_due_cards_most_overdue_first_then_new_ones(app: FastAPI) -> None:
    now = T0 + timedelta(days=30)
    review(app, "good", T0 + timedelta(days=5), card_id="b")
    review(app, "good", T0, card_id="a")
    review(app, "easy", now - timedelta(days=3), card_id="c")  # not due yet (easy: ~8 days)
    review(app, "good", T0, card_id="retired")  # due, but no longer in the catalogue
    settings = PracticeSettings(new_per_day=2)
    with app.state.db.read_sessions() as session:
        queue = scheduling.practice_queue(
            session, user_id=1, settings=settings, cards=["a", "b", "c", "d", "e", "f"], now=now
        )
    assert [d.card_id for d in queue.due] == ["a", "b"]
    assert queue.new == ["d", "e"] and queue.unseen == 3
    assert queue.next_card == ("a", False)


def test_a_rated_review_stores_the_duration_and_refuses_a_negative_one(app: FastAPI) -> None:
    review(app, "good", T0, duration_ms=2_345)
    assert logs(app)[0].review_duration_ms == 2_345
    with pytest.raises(ValueError, match="negative"), write_session(app) as session:
        scheduling.review(
            session, user_id=1, card_id=OWNER_CARD, tier="middle", rating=Rating.Good, duration_ms=-1, at=T0
        )


def test_an_answer_read_before_another_was_written_is_reviewed_after_it(
    app: FastAPI, client: TestClient
) -> None:
    """Two answers of one card at once: the one whose request was read first but written second
    (its clock earlier than the other's review) is reviewed when it is written, just after it, so
    no two answers share a time (an export restored keeps both); a clock equal to it too."""
    tick = timedelta(microseconds=1)
    app.dependency_overrides[get_now] = lambda: T0 + timedelta(minutes=5)
    post_attempt(client, rating="good")
    app.dependency_overrides[get_now] = lambda: T0  # read before the answer above was written
    later = post_attempt(client, rating="hard")
    app.dependency_overrides[get_now] = lambda: T0 + timedelta(minutes=5) + tick  # the same time
    last = post_attempt(client, rating="good")
    assert datetime.fromisoformat(later["created_at"]) == T0 + timedelta(minutes=5) + tick
    assert datetime.fromisoformat(last["created_at"]) == T0 + timedelta(minutes=5) + 2 * tick
    assert [(log.rating, log.review_datetime) for log in logs(app)] == [
        (3, T0 + timedelta(minutes=5)),
        (2, T0 + timedelta(minutes=5) + tick),
        (3, T0 + timedelta(minutes=5) + 2 * tick),
    ]
    row = state(app)
    review(app, "good", T0 + timedelta(minutes=5), card_id="reference")
    review(app, "hard", T0 + timedelta(minutes=5) + tick, card_id="reference")
    in_order = review(app, "good", T0 + timedelta(minutes=5) + 2 * tick, card_id="reference")
    assert row is not None and (row.reps, row.due, row.stability) == (3, in_order.due, in_order.stability)
