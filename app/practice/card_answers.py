"""What the card page does with a person's answers besides storing them (attempts.py): the card's
history with the answers it still offers to rate, each with the suggestion its panel showed; a
reveal or a quiz stored with the history it joins; a rating with what comes after it; and Undo."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.content.cards import Card, Entry
from app.content.catalogue import Snapshot
from app.content.tiers import Tier, parse_tier
from app.practice import attempts, preferences, scheduling, suggestions
from app.practice.assigned import AssignedCards
from app.practice.models import Attempt, ReviewLog
from app.practice.schemas import Assessment, AttemptIn
from app.practice.suggestions import Suggestion

HISTORY_LIMIT = 20


@dataclass(frozen=True)
class Waiting:
    """An answer the history offers to rate, with what its panel showed after "Submit answer"."""

    attempt: Attempt
    tier: Tier
    follow_up: Entry | None
    suggestion: Suggestion | None


@dataclass(frozen=True)
class History:
    """The person's recent attempts at the card, newest first, and the answers still to rate (None:
    not asked for)."""

    attempts: list[Attempt]
    waiting: list[Waiting] | None


def history(
    session: Session, *, user_id: int, card: Card, to_rate: bool = False, asked: Attempt | None = None
) -> History:
    """The card's history; `to_rate`: with the newest answer of each kind left unrated, and `asked`,
    one the person chose from the list."""
    made = attempts.history(session, user_id=user_id, card_id=card.id, limit=HISTORY_LIMIT)
    return History(made, _waiting(session, card=card, history=made, asked=asked) if to_rate else None)


def _waiting(session: Session, *, card: Card, history: list[Attempt], asked: Attempt | None) -> list[Waiting]:
    chosen = attempts.awaiting_rating(history)
    if asked is not None and asked not in chosen and asked in attempts.awaiting_rating([asked]):
        chosen.insert(0, asked)
    shown = []
    for attempt in chosen:
        index = attempt.follow_up
        if attempt.kind == "follow-up" and (index is None or not 0 <= index < len(card.follow_ups)):
            continue  # a follow-up the card no longer has: nothing to compare the answer with
        shown.append(
            Waiting(
                attempt=attempt,
                tier=parse_tier(attempt.tier, card.level) or card.level,
                follow_up=card.follow_ups[index]
                if attempt.kind == "follow-up" and index is not None
                else None,
                suggestion=suggestions.shown(session, card=card, attempt=attempt),
            )
        )
    return shown


@dataclass(frozen=True)
class Answered:
    attempt: Attempt
    history: History


def record(session: Session, *, card: Card, user_id: int, data: AttemptIn, now: datetime) -> Answered:
    """A reveal or a quiz stored (attempts.record), with the history beside it: it is final, so
    the history shows it at once."""
    recorded = attempts.record(session, card=card, user_id=user_id, data=data, now=now)
    return Answered(recorded.attempt, history(session, user_id=user_id, card=card))


@dataclass(frozen=True)
class After:
    """What a saved rating says: when the card comes back, the Undo of this rating while it is the
    card's latest, and the card to practise next (for a main answer: the one /practice would
    serve, assigned new cards first)."""

    comes_back: datetime | None
    undo: ReviewLog | None
    next_card: Card | None = None
    next_is_new: bool = False
    next_tier: Tier | None = None


@dataclass(frozen=True)
class Assessed:
    after: After
    history: History


def assess(
    session: Session,
    *,
    user_id: int,
    card: Card,
    attempt: Attempt,
    data: Assessment,
    snapshot: Snapshot,
    assigned: AssignedCards,
    now: datetime,
    to_rate: bool,
) -> Assessed:
    """Rate the attempt (attempts.assess), then what comes after it, and the card's history
    (`to_rate`: with the answers still to rate, for a form that stood in the history)."""
    attempts.assess(session, card=card, attempt=attempt, data=data)
    after = _after(
        session, user_id=user_id, card=card, attempt=attempt, snapshot=snapshot, assigned=assigned, now=now
    )
    return Assessed(after, history(session, user_id=user_id, card=card, to_rate=to_rate))


def _after(
    session: Session,
    *,
    user_id: int,
    card: Card,
    attempt: Attempt,
    snapshot: Snapshot,
    assigned: AssignedCards,
    now: datetime,
) -> After:
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=attempt.tier)
    latest = scheduling.latest_review(session, user_id=user_id, card_id=card.id)
    comes_back = row.due if row is not None else None
    undo = latest if latest is not None and latest.attempt_id == attempt.id else None
    if attempt.kind == "follow-up":  # the card is still open: the next one is offered with its answer
        return After(comes_back, undo)
    queue = scheduling.served_queue(
        session,
        user_id=user_id,
        cards=snapshot.cards.values(),
        settings=preferences.load(session, user_id),
        now=now,
        first=assigned(session=session, user_id=user_id, snapshot=snapshot, now=now),
    )
    following = queue.next_other_than(card.id)
    return After(
        comes_back,
        undo,
        next_card=snapshot.cards.get(following) if following else None,
        next_is_new=following in queue.new,
        next_tier=queue.tier,
    )


@dataclass(frozen=True)
class TakenBack:
    suggestion: Suggestion | None
    history: History


def take_back(
    session: Session, *, user_id: int, card: Card, attempt: Attempt, review_id: int, to_rate: bool
) -> TakenBack:
    """Undo the attempt's rating while it is the card's latest (attempts.take_back): the answer is
    to rate again, beside its suggestion or (`to_rate`) in the history, first among those to rate."""
    attempts.take_back(session, user_id=user_id, card_id=card.id, review_id=review_id, attempt_id=attempt.id)
    if to_rate:
        return TakenBack(None, history(session, user_id=user_id, card=card, to_rate=True, asked=attempt))
    suggestion = suggestions.shown(session, card=card, attempt=attempt)
    return TakenBack(suggestion, history(session, user_id=user_id, card=card))
