"""Spaced repetition with FSRS (py-fsrs): the one place the scheduler is used.

What is scheduled is a card *at a tier* for a person: answering a card at the senior depth says
little about recalling it at the junior depth, so (user, card id, tier) has its own memory state.
The card id is the key, so a card whose file is edited or renamed keeps its schedule, and a card
deleted from content/ keeps it too (it shows as retired).

Where ratings come from (docs/scheduling.md has the same rules for people):
- A self-rating (again / hard / good / easy) on an answer or a follow-up maps one to one to
  FSRS's Again / Hard / Good / Easy.
- A basics or solid answer revealed without answering is Again, whatever else it carries: the
  person saw the model answer instead of recalling it.
- A pitfall quiz has no self-rating; its score (the share of items judged right) maps by
  `quiz_rating`: 1.0 → easy, ≥ 0.8 → good, ≥ 0.5 → hard, below → again. A self-rating given to a
  quiz attempt afterwards wins over the score.
- An attempt feeds the schedule once (review_logs.attempt_id is unique). Rating it again
  *replaces* its review: the log's rating changes and the card's state is replayed from all its
  logs, so the latest verdict counts and nothing counts twice.
- The review happens at the attempt's time, and its duration is the time the person took to
  answer, in milliseconds (the optimiser wants durations from the first review on).

Every datetime is timezone-aware UTC; naive datetimes are refused. "Today" is the UTC day, so
the new-card allowance renews at 00:00 UTC wherever the person is.

Fuzzing is off: intervals are exactly what the model says, so a schedule replayed from its logs
(re-ratings, imports) comes out the same every time.
"""

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.service import lock_person
from app.content.cards import Card
from app.content.tiers import IMPORTANCES, Tier
from app.practice import preferences, totals
from app.practice.models import Attempt, ReviewLog, ReviewState

RATING_BY_NAME: dict[str, Rating] = {
    "again": Rating.Again,
    "hard": Rating.Hard,
    "good": Rating.Good,
    "easy": Rating.Easy,
}
RATING_NAMES: dict[int, str] = {int(rating): name for name, rating in RATING_BY_NAME.items()}
STATE_NAMES: dict[int, str] = {
    int(State.Learning): "learning",
    int(State.Review): "review",
    int(State.Relearning): "relearning",
}
NEW = "new"  # the state name of a card that has never been reviewed at a tier (it has no row)

# The quiz rule: the lowest score that earns each rating, best first.
QUIZ_THRESHOLDS: tuple[tuple[float, Rating], ...] = (
    (1.0, Rating.Easy),
    (0.8, Rating.Good),
    (0.5, Rating.Hard),
)


def quiz_rating(score: float) -> Rating:
    """A pitfall quiz's score (0..1) as an FSRS rating: perfect is easy, below half is again."""
    for threshold, rating in QUIZ_THRESHOLDS:
        if score >= threshold:
            return rating
    return Rating.Again


def attempt_rating(attempt: Attempt) -> Rating | None:
    """The rating an attempt feeds the schedule with, or None when it has none (yet)."""
    if attempt.revealed:
        return Rating.Again  # seeing the answer first is not recalling it
    if attempt.rating is not None:
        return RATING_BY_NAME[attempt.rating]
    if attempt.kind == "quiz" and attempt.score is not None:
        return quiz_rating(attempt.score)
    return None


def require_utc(moment: datetime) -> datetime:
    """The same instant with tzinfo=UTC; naive datetimes are refused."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("naive datetime: pass a timezone-aware datetime (the app works in UTC)")
    return moment.astimezone(UTC)


def utc_day_start(moment: datetime) -> datetime:
    moment = require_utc(moment)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


@lru_cache(maxsize=32)
def scheduler(desired_retention: float = 0.9) -> Scheduler:
    """FSRS-6 with its default parameters at the person's desired retention; no fuzz."""
    return Scheduler(desired_retention=desired_retention, enable_fuzzing=False)


def scheduler_for(session: Session, user_id: int) -> Scheduler:
    return scheduler(preferences.load(session, user_id).desired_retention)


def duration_ms(seconds: float | None) -> int | None:
    return None if seconds is None else max(0, round(seconds * 1000))


# --- one card's memory state ------------------------------------------------------------------


def _fsrs_card(row: ReviewState) -> FsrsCard:
    return FsrsCard(
        card_id=row.id or 0,
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=row.due,
        last_review=row.last_review,
    )


def _fresh_state(row: ReviewState, at: datetime) -> None:
    """A card that has never been reviewed: FSRS's starting point (learning, step 0)."""
    row.state = int(State.Learning)
    row.step = 0
    row.stability = None
    row.difficulty = None
    row.due = at
    row.last_review = None
    row.first_review = at
    row.reps = 0
    row.lapses = 0
    row.again = 0


def _apply(sched: Scheduler, *, row: ReviewState, rating: Rating, at: datetime) -> None:
    before = row.state
    card, _log = sched.review_card(_fsrs_card(row), rating, review_datetime=at)
    row.state = int(card.state)
    row.step = card.step
    row.stability = card.stability
    row.difficulty = card.difficulty
    row.due = card.due
    row.last_review = card.last_review
    row.reps += 1
    if before == int(State.Review) and rating == Rating.Again:
        row.lapses += 1
    if rating == Rating.Again:
        row.again += 1


def get_state(session: Session, *, user_id: int, card_id: str, tier: str) -> ReviewState | None:
    return session.scalar(
        select(ReviewState).where(
            ReviewState.user_id == user_id, ReviewState.card_id == card_id, ReviewState.tier == tier
        )
    )


@dataclass(frozen=True)
class Turn:
    """When an answer is made, and the card's schedule as it stood then (None: never reviewed),
    read once under the person's lock and handed on to the review the answer feeds."""

    at: datetime
    state: ReviewState | None


def in_turn(session: Session, *, user_id: int, card_id: str, tier: str, at: datetime) -> Turn:
    """Part of the caller's unit of work, under the person's lock: `at`, or just after the card's
    last review when that is not earlier (a write that began first took its turn last). Never the
    last review's own time: an import takes answers of one card, kind and time for one answer."""
    state = get_state(session, user_id=user_id, card_id=card_id, tier=tier)
    last = state.last_review if state is not None else None
    return Turn(at if last is None or at > last else last + timedelta(microseconds=1), state)


def review(
    session: Session,
    *,
    user_id: int,
    card_id: str,
    tier: str,
    rating: Rating | int,
    duration_ms: int | None,
    at: datetime,
) -> ReviewState:
    """Record one review without an answer (a rating on /practice) and move the card's state on;
    returns the new state."""
    row = record_review(
        session, user_id=user_id, card_id=card_id, tier=tier, rating=rating, duration_ms=duration_ms, at=at
    )
    session.commit()
    return row


def record_review(
    session: Session,
    *,
    user_id: int,
    card_id: str,
    tier: str,
    rating: Rating | int,
    duration_ms: int | None,
    at: datetime,
    attempt_id: int | None = None,
    turn: Turn | None = None,
) -> ReviewState:
    """Part of the caller's unit of work: record one review and move the card's state on; returns
    the new state. `turn`: the state as this transaction already read it under the lock."""
    at = require_utc(at)
    rating = Rating(int(rating))
    if duration_ms is not None and duration_ms < 0:
        raise ValueError("review duration must not be negative")
    # Two answers of one person at once (two tabs, two replicas) must not both create the state.
    lock_person(session, user_id)
    row = turn.state if turn is not None else get_state(session, user_id=user_id, card_id=card_id, tier=tier)
    session.add(
        ReviewLog(
            user_id=user_id,
            card_id=card_id,
            tier=tier,
            rating=int(rating),
            review_datetime=at,
            review_duration_ms=duration_ms,
            attempt_id=attempt_id,
        )
    )
    totals.count_reviews(session, user_id=user_id, reviews=[(at, attempt_id is None)])
    if row is not None and row.last_review is not None and at < row.last_review:
        # Out of order (an older attempt rated late): replay the card's history in time order.
        replayed = replay(session, user_id=user_id, card_id=card_id, tier=tier)
        assert replayed is not None
        return replayed
    # Read before a new state is added: the read would flush it, and the card's team count with it,
    # ahead of the quiz statements' counts. Every answer takes those rows in one order (its
    # statements', then its card's), so two answers on PostgreSQL never wait on each other in a
    # circle.
    sched = scheduler_for(session, user_id)
    if row is None:
        row = ReviewState(user_id=user_id, card_id=card_id, tier=tier)
        session.add(row)
        _fresh_state(row, at)
    _apply(sched, row=row, rating=rating, at=at)
    return row


def replay(session: Session, *, user_id: int, card_id: str, tier: str) -> ReviewState | None:
    """Rebuild a card's state from its review logs, oldest first (after a re-rating or import)."""
    reviews = session.execute(
        select(ReviewLog.rating, ReviewLog.review_datetime)
        .where(ReviewLog.user_id == user_id, ReviewLog.card_id == card_id, ReviewLog.tier == tier)
        .order_by(ReviewLog.review_datetime, ReviewLog.id)
    ).all()
    row = get_state(session, user_id=user_id, card_id=card_id, tier=tier)
    if not reviews:
        if row is not None:
            session.delete(row)
        return None
    sched = scheduler_for(session, user_id)  # before a new state is added, as in record_review
    if row is None:
        row = ReviewState(user_id=user_id, card_id=card_id, tier=tier)
        session.add(row)
    rebuild(row, sched=sched, reviews=reviews)
    return row


def rebuild(row: ReviewState, *, sched: Scheduler, reviews: Iterable[tuple[int, datetime]]) -> None:
    """Set `row` to what its reviews (rating, time; oldest first) make of a new card (with none,
    `row` is left as it was). Reads `reviews` once, as they come."""
    fresh = True
    for rating, at in reviews:
        if fresh:
            _fresh_state(row, at)
            fresh = False
        _apply(sched, row=row, rating=Rating(rating), at=at)


def review_attempt(session: Session, *, attempt: Attempt, turn: Turn | None = None) -> ReviewState | None:
    """Part of the caller's unit of work: feed an attempt to its card's schedule at the tier it
    was answered; once per attempt. `turn`: a new attempt's, from `in_turn`."""
    rating = attempt_rating(attempt)
    if rating is None:
        return None
    new = attempt.id is None
    session.flush()  # the attempt's id and created_at
    # A brand-new attempt cannot have a review yet (this is the hot path of every answer POST).
    existing = None if new else session.scalar(select(ReviewLog).where(ReviewLog.attempt_id == attempt.id))
    if existing is None:
        return record_review(
            session,
            user_id=attempt.user_id,
            card_id=attempt.card_id,
            tier=attempt.tier,
            rating=rating,
            duration_ms=duration_ms(attempt.seconds),
            at=attempt.created_at,
            attempt_id=attempt.id,
            turn=turn,
        )
    user_id, card_id, tier = attempt.user_id, attempt.card_id, attempt.tier
    if existing.rating != int(rating):
        existing.rating = int(rating)
        session.flush()
        return replay(session, user_id=user_id, card_id=card_id, tier=tier)
    return get_state(session, user_id=user_id, card_id=card_id, tier=tier)


def latest_review(session: Session, *, user_id: int, card_id: str) -> ReviewLog | None:
    """The person's review of the card given last (at any tier): the one Undo takes back."""
    return session.scalar(
        select(ReviewLog)
        .where(ReviewLog.user_id == user_id, ReviewLog.card_id == card_id)
        .order_by(ReviewLog.id.desc())
        .limit(1)
    )


def retrievability(row: ReviewState, now: datetime) -> float:
    """Probability of recalling the card at `now` (FSRS's forgetting curve; 0 if never reviewed)."""
    # Retrievability depends on the model's parameters, not on the desired retention.
    return float(scheduler().get_card_retrievability(_fsrs_card(row), require_utc(now)))


def preview(row: ReviewState | None, *, sched: Scheduler, now: datetime) -> dict[str, timedelta]:
    """How long until the card is due again after each possible rating now."""
    now = require_utc(now)
    if row is None:
        row = ReviewState()
        _fresh_state(row, now)
    card = _fsrs_card(row)
    return {
        name: sched.review_card(card, rating, review_datetime=now)[0].due - now
        for name, rating in RATING_BY_NAME.items()
    }


# --- the practice queue -----------------------------------------------------------------------


def introduction_order(cards: Iterable[Card]) -> list[str]:
    """The order new cards are introduced in: must-know first, then the most often asked."""
    ranked = sorted(
        cards,
        key=lambda c: (
            IMPORTANCES.index(c.importance) if c.importance in IMPORTANCES else 99,
            -c.frequency,
            c.title.markdown.lower(),
        ),
    )
    return [card.id for card in ranked]


@dataclass(frozen=True)
class DueItem:
    card_id: str
    due: datetime
    state: int


@dataclass(frozen=True)
class PracticeQueue:
    tier: Tier
    now: datetime
    due: list[DueItem]  # due now, most overdue first
    new: list[str]  # never reviewed at this tier, in the order they will be introduced today
    new_today: int  # new cards already introduced today (UTC)
    new_per_day: int
    unseen: int  # served cards never reviewed at this tier, whether or not today's allowance has room
    next_due: datetime | None  # the next time something becomes available, when nothing is now

    @property
    def next_card(self) -> tuple[str, bool] | None:
        """(card id, is new) of what to practise now, or None."""
        if self.due:
            return self.due[0].card_id, False
        if self.new:
            return self.new[0], True
        return None

    def next_other_than(self, card_id: str) -> str | None:
        """What to practise after `card_id`: the first due or new card that is not it."""
        return next((c for c in [item.card_id for item in self.due] + self.new if c != card_id), None)


def due_queue(
    session: Session,
    *,
    user_id: int,
    tier: str,
    now: datetime,
    known: Collection[str] | None = None,
) -> list[DueItem]:
    """Cards at `tier` due at `now`, most overdue first; only those in `known` when given."""
    now = require_utc(now)
    rows = session.execute(
        select(ReviewState.card_id, ReviewState.due, ReviewState.state)
        .where(ReviewState.user_id == user_id, ReviewState.due <= now, ReviewState.tier == tier)
        .order_by(ReviewState.due, ReviewState.card_id)
    ).all()
    return [DueItem(card_id, due, state) for card_id, due, state in rows if known is None or card_id in known]


def new_introduced_today(session: Session, *, user_id: int, tier: str, now: datetime) -> int:
    """Cards whose first review at `tier` fell on the current UTC day."""
    start = utc_day_start(now)
    count = session.scalar(
        select(func.count())
        .select_from(ReviewState)
        .where(ReviewState.user_id == user_id, ReviewState.tier == tier, ReviewState.first_review >= start)
    )
    return int(count or 0)


def next_due_after(
    session: Session, *, user_id: int, tier: str, now: datetime, known: Collection[str] | None = None
) -> datetime | None:
    query = (
        select(ReviewState.card_id, ReviewState.due)
        .where(ReviewState.user_id == user_id, ReviewState.due > require_utc(now), ReviewState.tier == tier)
        .order_by(ReviewState.due)
    )
    for card_id, due in session.execute(query.execution_options(yield_per=100)):
        if known is None or card_id in known:
            return due
    return None


def practice_queue(
    session: Session,
    *,
    user_id: int,
    settings: preferences.PracticeSettings,
    cards: Sequence[str],
    now: datetime,
) -> PracticeQueue:
    """What /practice serves now: due cards first, then new ones up to the daily allowance.

    `cards` are the ids the catalogue serves, in the order new cards are introduced; cards no
    longer served (retired) are left out of the queue but keep their state.
    """
    now = require_utc(now)
    tier = settings.target_tier
    known = set(cards)
    due = due_queue(session, user_id=user_id, tier=tier, now=now, known=known)
    new_today = new_introduced_today(session, user_id=user_id, tier=tier, now=now)
    seen = set(
        session.scalars(
            select(ReviewState.card_id).where(ReviewState.user_id == user_id, ReviewState.tier == tier)
        )
    )
    unseen = [card_id for card_id in cards if card_id not in seen]
    allowance = max(0, settings.new_per_day - new_today)
    new = unseen[:allowance]
    next_due = None
    if not due and not new:
        candidates = [next_due_after(session, user_id=user_id, tier=tier, now=now, known=known)]
        if unseen and settings.new_per_day > 0:
            candidates.append(utc_day_start(now) + timedelta(days=1))
        next_due = min((c for c in candidates if c is not None), default=None)
    return PracticeQueue(
        tier=tier,
        now=now,
        due=due,
        new=new,
        new_today=new_today,
        new_per_day=settings.new_per_day,
        unseen=len(unseen),
        next_due=next_due,
    )


def served_queue(
    session: Session,
    *,
    user_id: int,
    cards: Iterable[Card],
    settings: preferences.PracticeSettings,
    now: datetime,
    first: Sequence[str] = (),
) -> PracticeQueue:
    """The practice queue over the cards served now, new ones in their introduction order but
    those in `first` (the person's assigned cards) before the others; due reviews stay ahead."""
    order = introduction_order(cards)
    served = set(order)
    ahead = [card_id for card_id in first if card_id in served]
    ordered = list(dict.fromkeys([*ahead, *order]))
    return practice_queue(session, user_id=user_id, settings=settings, cards=ordered, now=now)


def states_for(session: Session, *, user_id: int, card_ids: Iterable[str] | None = None) -> list[ReviewState]:
    query = select(ReviewState).where(ReviewState.user_id == user_id)
    if card_ids is not None:
        query = query.where(ReviewState.card_id.in_(list(card_ids)))
    return list(session.scalars(query.order_by(ReviewState.card_id, ReviewState.tier)))


def state_name(row: ReviewState | None) -> str:
    return NEW if row is None else STATE_NAMES[row.state]
