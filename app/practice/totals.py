"""Practice counted as it is written (practice_days, quiz_tallies), so pages read a row a day or
a row a quiz statement instead of every answer ever given; and their rebuild from the attempts
and the review log (`tiercards db rebuild-aggregates`).

Counts that need the deck are made with the card as served when the answer is written: an
answer's time budget (in time or not) and its quiz statements (each dealt one judged right or
wrong). An answer on a card the deck no longer has still counts as an answer and as a quiz, but
not as timed and not in the tallies: it has no budget and no statements. The rebuild counts with
the deck as served when it runs, so it agrees with what was counted on write whenever the deck
is unchanged since; after the deck changed it counts the history as the new deck would have.

Reviews rated again per schedule (review_states.again) are kept by the schedule itself
(app/practice/scheduling.py): a replay recounts them with the rest of the state.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol

from fsrs import Rating
from sqlalchemy import Date, and_, case, delete, func, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import ScalarSelect

from app.accounts.models import User
from app.accounts.service import lock_person
from app.content.cards import Card
from app.practice import quiz
from app.practice.models import Attempt, PracticeDay, PracticeMonth, QuizTally, ReviewLog, ReviewState
from app.storage import counting

TIMED_KINDS = ("basics", "solid")
DAY_KEY = ("user_id", "day")
TALLY_KEY = ("user_id", "card_id", "item_id")
DAY_COUNTS = ("answers", "rated_alone", "reviews", "timed", "in_time", "quizzes", "quiz_score")
TALLY_COUNTS = ("seen", "missed")


class Answer(Protocol):
    """What counting needs of an attempt: a stored one, or one an import is about to store."""

    @property
    def card_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def revealed(self) -> bool: ...
    @property
    def seconds(self) -> float: ...
    @property
    def score(self) -> float | None: ...
    @property
    def choices(self) -> list[Any] | None: ...
    @property
    def created_at(self) -> datetime: ...


def _utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def count_answers(
    session: Session, *, user_id: int, answers: Iterable[Answer], cards: Mapping[str, Card]
) -> None:
    """Part of the caller's unit of work. Count new attempts of one person: per UTC day of their
    `created_at`, and each quiz statement dealt; `cards` are the cards as served now."""
    days: list[dict[str, Any]] = []
    tallies: list[dict[str, Any]] = []
    for answer in answers:
        card = cards.get(answer.card_id)
        row: dict[str, Any] = {"user_id": user_id, "day": _utc_day(answer.created_at), "answers": 1}
        if answer.kind in TIMED_KINDS and not answer.revealed and card is not None:
            row["timed"] = 1
            row["in_time"] = int(answer.seconds <= card.time_budget(answer.kind))
        if answer.kind == "quiz" and answer.score is not None:
            row["quizzes"] = 1
            row["quiz_score"] = answer.score
        days.append(row)
        if answer.kind == "quiz" and answer.choices is not None and card is not None:
            for marked in quiz.mark(card, choices=list(answer.choices)):
                key = {"user_id": user_id, "card_id": card.id, "item_id": marked.item.id}
                tallies.append(key | {"seen": 1, "missed": int(not marked.correct)})
    counting.add(session, model=PracticeDay, key=DAY_KEY, rows=days)
    counting.add(session, model=QuizTally, key=TALLY_KEY, rows=tallies)


def count_reviews(session: Session, *, user_id: int, reviews: Iterable[tuple[datetime, bool]]) -> None:
    """Part of the caller's unit of work. Count new review-log rows of one person, each given as
    (review time, whether it was rated alone: no attempt behind it)."""
    rows = [
        {"user_id": user_id, "day": _utc_day(at), "reviews": 1, "rated_alone": int(alone)}
        for at, alone in reviews
    ]
    counting.add(session, model=PracticeDay, key=DAY_KEY, rows=rows)


def uncount_review(session: Session, log: ReviewLog) -> None:
    """Part of the caller's unit of work. A review-log row deleted (an undo): its day counts one
    review fewer, and the day goes when nothing is left on it. A day never counted (no row) stays
    without one rather than get negative counts."""
    day = _utc_day(log.review_datetime)
    this_day = (PracticeDay.user_id == log.user_id, PracticeDay.day == day)
    session.execute(
        update(PracticeDay)
        .where(*this_day)
        .values(
            reviews=PracticeDay.reviews - 1,
            rated_alone=PracticeDay.rated_alone - int(log.attempt_id is None),
        ),
        execution_options={"synchronize_session": False},
    )
    empty = [getattr(PracticeDay, column) == 0 for column in DAY_COUNTS]
    session.execute(delete(PracticeDay).where(*this_day, *empty))


def move_counts(session: Session, *, from_id: int, to_id: int) -> None:
    """Part of the caller's unit of work, with both people locked. Add the counts of `from_id` to
    those of `to_id` and delete theirs: both may have a row for the same day or statement, which
    a change of user_id would store twice under one key."""
    for model, key, counts in ((PracticeDay, DAY_KEY, DAY_COUNTS), (QuizTally, TALLY_KEY, TALLY_COUNTS)):
        columns = [getattr(model, column) for column in (*key[1:], *counts)]
        rows = session.execute(select(*columns).where(model.user_id == from_id))
        moved = ({"user_id": to_id} | dict(row._mapping) for row in rows)
        counting.add(session, model=model, key=key, rows=list(moved))
        session.execute(delete(model).where(model.user_id == from_id))


def again_count() -> ScalarSelect[int]:
    """The reviews rated again of the schedule being updated, as SQL: review_states.again recounted."""
    return (
        select(func.count())
        .where(
            ReviewLog.user_id == ReviewState.user_id,
            ReviewLog.card_id == ReviewState.card_id,
            ReviewLog.tier == ReviewState.tier,
            ReviewLog.rating == int(Rating.Again),
        )
        .scalar_subquery()
    )


# --- the rebuild -------------------------------------------------------------------------------


@dataclass
class Rebuilt:
    people: int = 0
    days: int = 0
    tallies: int = 0
    schedules: int = 0


def rebuild(sessions: Callable[[], Session], *, cards: Mapping[str, Card]) -> Rebuilt:
    """Recount practice_days, quiz_tallies and review_states.again of everyone from the attempts
    and the review log; `cards` are the cards as served now. One person a transaction: the write
    turn (SQLite has one) is held for one person's history, so live writes never wait long."""
    done = Rebuilt()
    with sessions() as session:
        people = list(session.scalars(select(User.id).order_by(User.id)))
    for user_id in people:
        with sessions() as session:
            # No answer of theirs is counted twice or lost while they are recounted.
            lock_person(session, user_id)
            _rebuild_person(session, user_id=user_id, cards=cards, done=done)
            session.commit()
        done.people += 1
    return done


def _budget(cards: Mapping[str, Card]) -> ColumnElement[Any]:
    """An attempt's time budget from its card and kind, as SQL; NULL when the deck lacks the card."""
    by_kind = {
        kind: case({c.id: c.time_budget(kind) for c in cards.values()}, value=Attempt.card_id, else_=None)
        if cards
        else None
        for kind in TIMED_KINDS
    }
    return case((Attempt.kind == "basics", by_kind["basics"]), else_=by_kind["solid"])


def _rebuild_person(session: Session, *, user_id: int, cards: Mapping[str, Card], done: Rebuilt) -> None:
    """Part of the caller's unit of work: recount the person `user_id`, whose lock is held."""
    # The database sets each month's bits again as the days are written back.
    session.execute(delete(PracticeMonth).where(PracticeMonth.user_id == user_id))
    session.execute(delete(PracticeDay).where(PracticeDay.user_id == user_id))
    session.execute(delete(QuizTally).where(QuizTally.user_id == user_id))
    days: dict[date, dict[str, Any]] = {}

    def day_row(day: date) -> dict[str, Any]:
        return days.setdefault(day, {"user_id": user_id, "day": day} | dict.fromkeys(DAY_COUNTS, 0))

    budget = _budget(cards)
    timed = and_(Attempt.kind.in_(TIMED_KINDS), Attempt.revealed.is_(False), budget.is_not(None))
    scored = and_(Attempt.kind == "quiz", Attempt.score.is_not(None))
    attempt_day = func.date(Attempt.created_at, type_=Date)
    answers = (
        select(
            attempt_day,
            func.count(),
            func.sum(case((timed, 1), else_=0)),
            func.sum(case((and_(timed, Attempt.seconds <= budget), 1), else_=0)),
            func.sum(case((scored, 1), else_=0)),
            func.sum(case((scored, Attempt.score), else_=0.0)),
        )
        .where(Attempt.user_id == user_id)
        .group_by(attempt_day)
    )
    for day, count, timed_n, in_time, quizzes, quiz_score in session.execute(answers):
        day_row(day).update(
            answers=count,
            timed=timed_n,
            in_time=in_time,
            quizzes=quizzes,
            quiz_score=float(quiz_score or 0.0),
        )
    log_day = func.date(ReviewLog.review_datetime, type_=Date)
    reviews = (
        select(
            log_day,
            func.count(),
            func.sum(case((ReviewLog.attempt_id.is_(None), 1), else_=0)),
        )
        .where(ReviewLog.user_id == user_id)
        .group_by(log_day)
    )
    for day, count, alone in session.execute(reviews):
        day_row(day).update(reviews=count, rated_alone=alone)
    counting.add(session, model=PracticeDay, key=DAY_KEY, rows=days.values())
    done.days += len(days)

    # The statements judged need the card's quiz: marked here, the attempts read as they come.
    seen: Counter[tuple[str, str]] = Counter()
    missed: Counter[tuple[str, str]] = Counter()
    quizzes_query = select(Attempt.card_id, Attempt.choices).where(
        Attempt.user_id == user_id, Attempt.kind == "quiz", Attempt.choices.is_not(None)
    )
    for card_id, choices in session.execute(quizzes_query.execution_options(yield_per=1000)):
        card = cards.get(card_id)
        if card is None:
            continue
        for marked in quiz.mark(card, choices=list(choices or [])):
            key = (card_id, marked.item.id)
            seen[key] += 1
            missed[key] += int(not marked.correct)
    counting.add(
        session,
        model=QuizTally,
        key=TALLY_KEY,
        rows=(
            {"user_id": user_id, "card_id": c, "item_id": i, "seen": n, "missed": missed[c, i]}
            for (c, i), n in seen.items()
        ),
    )
    done.tallies += len(seen)

    updated: Any = session.execute(
        update(ReviewState).where(ReviewState.user_id == user_id).values(again=again_count()),
        execution_options={"synchronize_session": False},
    )
    done.schedules += updated.rowcount
