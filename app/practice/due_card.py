"""/practice's card: the one the queue serves next, with its answer shown to rate once it is
revealed (a typed answer recorded as it is) or while an answer waits for its rating; a rating and
Undo, each with the page that follows; the practice settings saved."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.content.cards import Card
from app.content.catalogue import Snapshot
from app.content.tiers import Tier, parse_tier
from app.practice import attempts, preferences, rating, scheduling, suggestions
from app.practice.assigned import AssignedCards, none_assigned
from app.practice.models import Attempt, ReviewLog, ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.readings import Reader
from app.practice.scheduling import PracticeQueue
from app.practice.schemas import AttemptIn
from app.practice.suggestions import Suggestion


@dataclass(frozen=True)
class Shown:
    """The card's answer shown, to rate: the answer it was revealed with (if any), the
    suggestion on it, the time taken, and when each rating would bring the card back."""

    attempt: Attempt | None
    suggestion: Suggestion | None
    seconds: float
    previews: dict[str, timedelta]
    # How an answer given aloud was said, shown beside it (`Recorded.delivery`).
    delivery: dict[str, Any] | None = None


@dataclass(frozen=True)
class Turn:
    """What /practice shows: the person's settings and queue, and the card to practise (None:
    nothing now) at `tier` with its schedule `row`, its answer `shown` once it is."""

    settings: PracticeSettings
    queue: PracticeQueue
    card: Card | None = None
    tier: Tier = "middle"
    row: ReviewState | None = None
    shown: Shown | None = None


def _queue(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    settings: PracticeSettings,
    now: datetime,
    first: list[str],
) -> PracticeQueue:
    return scheduling.served_queue(
        session, user_id=user_id, cards=snapshot.cards.values(), settings=settings, now=now, first=first
    )


def next_card(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    now: datetime,
    settings: PracticeSettings | None = None,
    assigned: AssignedCards = none_assigned,
) -> Turn:
    """The page with the queue's next card (`assigned` orders the new ones), its answer shown when
    one waits for its rating: answered, then left or reloaded before rating, it is rated now."""
    settings = settings or preferences.load(session, user_id)
    first = assigned(session=session, user_id=user_id, snapshot=snapshot, now=now)
    queue = _queue(session, user_id=user_id, snapshot=snapshot, settings=settings, now=now, first=first)
    following = queue.next_card
    card = snapshot.cards.get(following[0]) if following is not None else None
    if card is None:
        return Turn(settings, queue)
    tier = settings.target_tier
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    waiting = attempts.unrated_since(
        session, user_id=user_id, card_id=card.id, tier=tier, since=row.last_review if row else None
    )
    if waiting is None:
        return Turn(settings, queue, card, tier, row)
    suggestion = suggestions.shown(session, card=card, attempt=waiting)
    shown = _shown(
        row, settings=settings, attempt=waiting, suggestion=suggestion, seconds=waiting.seconds, now=now
    )
    return Turn(settings, queue, card, tier, row, shown)


def _shown(
    row: ReviewState | None,
    *,
    settings: PracticeSettings,
    attempt: Attempt | None,
    suggestion: Suggestion | None,
    seconds: float,
    now: datetime,
    delivery: dict[str, Any] | None = None,
) -> Shown:
    sched = scheduling.scheduler(settings.desired_retention)
    return Shown(attempt, suggestion, seconds, scheduling.preview(row, sched=sched, now=now), delivery)


def showing(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    card: Card,
    tier: Tier,
    settings: PracticeSettings,
    now: datetime,
    answered: tuple[Attempt | None, float] | None = None,
) -> Turn:
    """The page with a card of the caller's own instead of the queue's next, its answer shown
    when `answered` (the attempt it was answered with, if any, and the time taken)."""
    queue = _queue(session, user_id=user_id, snapshot=snapshot, settings=settings, now=now, first=[])
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    if answered is None:
        return Turn(settings, queue, card, tier, row)
    attempt, seconds = answered
    suggestion = suggestions.shown(session, card=card, attempt=attempt) if attempt else None
    shown = _shown(row, settings=settings, attempt=attempt, suggestion=suggestion, seconds=seconds, now=now)
    return Turn(settings, queue, card, tier, row, shown)


def reveal(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    card: Card,
    tier: Tier,
    settings: PracticeSettings,
    seconds: float,
    data: AttemptIn | None,
    now: datetime,
    reader: Reader | None = None,
) -> Turn:
    """Show the card's answer; `data`, a typed answer, is recorded first (rated on the next
    step), its model reading asked of `reader`. The queue is as it stood before the answer."""
    queue = _queue(session, user_id=user_id, snapshot=snapshot, settings=settings, now=now, first=[])
    recorded = (
        attempts.record(session, card=card, user_id=user_id, data=data, now=now, reader=reader)
        if data
        else None
    )
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    shown = _shown(
        row,
        settings=settings,
        attempt=recorded.attempt if recorded else None,
        suggestion=recorded.suggestion if recorded else None,
        seconds=seconds,
        now=now,
        delivery=recorded.delivery if recorded else None,
    )
    return Turn(settings, queue, card, tier, row, shown)


@dataclass(frozen=True)
class Rated:
    """The page after a rating: the next card, whether this rating counted (a form sent twice
    counts once), when the rated card comes back, and the review Undo would take back."""

    turn: Turn
    counted: bool
    due: datetime | None
    undo: ReviewLog | None


def rate(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    card: Card,
    tier: Tier,
    settings: PracticeSettings,
    chosen: str,
    seconds: float | None,
    token: str,
    attempt: Attempt | None,
    points: list[str],
    assigned: AssignedCards,
    now: datetime,
) -> Rated:
    """Rate the card (rating.rate; its refusals raise), then the page with the next card."""
    counted = rating.rate(
        session,
        user_id=user_id,
        card=card,
        tier=tier,
        rating=chosen,
        seconds=seconds,
        token=token,
        attempt=attempt,
        points=points,
        now=now,
    )
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    turn = next_card(
        session, user_id=user_id, snapshot=snapshot, now=now, settings=settings, assigned=assigned
    )
    undo = scheduling.latest_review(session, user_id=user_id, card_id=card.id) if counted else None
    return Rated(turn, counted, row.due if row is not None else None, undo)


def undo(
    session: Session, *, user_id: int, snapshot: Snapshot, card: Card, review_id: int, now: datetime
) -> Turn:
    """Take back the card's latest rating (attempts.take_back): the card comes back with its
    answer shown, to rate again."""
    removed = attempts.take_back(session, user_id=user_id, card_id=card.id, review_id=review_id)
    attempt = session.get(Attempt, removed.attempt_id) if removed.attempt_id is not None else None
    settings = preferences.load(session, user_id)
    tier = parse_tier(removed.tier, settings.target_tier) or settings.target_tier
    seconds = attempt.seconds if attempt is not None else (removed.review_duration_ms or 0) / 1000
    return showing(
        session,
        user_id=user_id,
        snapshot=snapshot,
        card=card,
        tier=tier,
        settings=settings,
        now=now,
        answered=(attempt, seconds),
    )


def save_settings(
    session: Session,
    *,
    user_id: int,
    settings: PracticeSettings,
    snapshot: Snapshot,
    assigned: AssignedCards,
    now: datetime,
) -> Turn:
    """Save the person's practice settings, then the page as they now serve it."""
    preferences.save(session, user_id=user_id, settings=settings)
    return next_card(
        session, user_id=user_id, snapshot=snapshot, now=now, settings=settings, assigned=assigned
    )
