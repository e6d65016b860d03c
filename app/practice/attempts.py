"""Recording answers: checking an attempt against its card, storing it, rating it, history."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from app.accounts.service import lock_person
from app.content.cards import Card
from app.exceptions import Conflict, Invalid
from app.metrics import answer_recorded
from app.practice import quiz, readings, scheduling, suggestions, totals
from app.practice.models import Attempt, ReviewLog
from app.practice.readings import Reader
from app.practice.schemas import Assessment, AttemptIn, AttemptOut
from app.practice.suggestions import Suggestion
from app.speech import service as speech


def point_ids(card: Card, points: list[int | str]) -> list[str]:
    """The ids of the points named by position or by id, in the card's order; unknown ones refused."""
    if any(isinstance(p, int) and p >= len(card.points) for p in points):
        raise Invalid("points", f"this card has answer points 0 to {len(card.points) - 1}")
    unknown = [p for p in points if isinstance(p, str) and p not in card.point_ids]
    if unknown:
        raise Invalid("points", f"unknown answer points: {', '.join(unknown[:5])}")
    named = {card.point_ids[p] if isinstance(p, int) else p for p in points}
    return [key for key in card.point_ids if key in named]


def check_against_card(card: Card, data: AttemptIn | Assessment) -> None:
    """What only the card can tell: answer points, follow-up index and quiz item ids exist."""
    point_ids(card, data.points)
    if isinstance(data, Assessment):
        return
    if data.follow_up is not None and data.follow_up >= len(card.follow_ups):
        raise Invalid("follow_up", f"this card has follow-ups 0 to {len(card.follow_ups) - 1}")
    if data.choices is not None:
        unknown = quiz.unknown_choices(card, data.choices)
        if unknown:
            raise Invalid("choices", f"unknown quiz items: {', '.join(unknown[:5])}")


@dataclass(frozen=True)
class Recorded:
    """A stored attempt, and the checker's suggestion on it (None for a reveal, a quiz or an
    answer without text)."""

    attempt: Attempt
    suggestion: Suggestion | None
    # How an answer given aloud was said (its recording's `Delivery.to_doc()`), shown beside it.
    delivery: dict[str, Any] | None = None


def record(
    session: Session,
    *,
    card: Card,
    user_id: int,
    data: AttemptIn,
    now: datetime,
    beside: Callable[[Attempt], None] | None = None,
    reader: Reader | None = None,
) -> Recorded:
    """Store the attempt as made at `now` and feed it to the card's schedule. `beside` stores what
    the caller keeps with the attempt (a mock interview's question it answers), in the same
    transaction, under the person's lock. With `reader`, the entailment model's reading of its
    answer is queued once it is committed (app/practice/readings.py). Returns it with the
    suggestion the page shows after "Submit answer", made from what was just stored rather than
    read back."""
    check_against_card(card, data)
    # Checked before the lock: on SQLite the lock is the one writer's turn, which others wait for.
    coverage = (
        None
        if data.revealed
        else suggestions.checked(card, kind=data.kind, follow_up=data.follow_up, text=data.text)
    )
    # First, before anything is written: the schedule this attempt feeds is the person's own.
    lock_person(session, user_id)
    # The answer is made when its write turn comes: one read before another answer of the card
    # was written goes after it, rather than replaying the card's whole history.
    turn = scheduling.in_turn(session, user_id=user_id, card_id=card.id, tier=data.tier, at=now)
    spoken, delivery = (
        _spoken(session, card=card, user_id=user_id, data=data)
        if data.recording_id is not None
        else ({}, None)
    )
    score = quiz.score(quiz.mark(card, choices=data.choices)) if data.choices is not None else None
    attempt = Attempt(
        user_id=user_id,
        card_id=card.id,
        tier=data.tier,
        kind=data.kind,
        follow_up=data.follow_up,
        text=data.text,
        choices=sorted(set(data.choices)) if data.choices is not None else None,
        score=score,
        points=point_ids(card, data.points),
        rating=data.rating,
        revealed=data.revealed,
        created_at=turn.at,
        **({"seconds": round(data.seconds, 2)} | spoken),
    )
    session.add(attempt)
    # A rated answer or a quiz feeds the card's schedule, as `turn` read it.
    scheduling.review_attempt(session, attempt=attempt, turn=turn)
    totals.count_answers(session, user_id=user_id, answers=[attempt], cards={card.id: card})
    suggestion, lane = None, None
    if coverage is not None:
        lane = readings.lane_for(session, reader) if reader is not None else None
        row = suggestions.add(session, attempt=attempt, coverage=coverage)
        if reader is not None:
            readings.ask(row, lane)
        suggestion = suggestions.as_shown(row, card=card, attempt=attempt)
    if beside is not None:
        beside(attempt)
    session.commit()
    answer_recorded(attempt.kind)
    if reader is not None and lane is not None:
        readings.send(reader, attempt_id=attempt.id, lane=lane)
    return Recorded(attempt, suggestion, delivery)


def _spoken(
    session: Session, *, card: Card, user_id: int, data: AttemptIn
) -> tuple[dict[str, object], dict[str, Any]]:
    """What an answer given aloud stores from its recording (the recording's duration as its
    seconds, and how it was said), and the recording's delivery. A recording makes one attempt;
    the person's lock is held."""
    recording = speech.spoken(
        session,
        user_id=user_id,
        recording_id=str(data.recording_id),
        card_id=card.id,
        tier=data.tier,
        kind=data.kind,
        follow_up=data.follow_up,
    )
    if session.scalar(select(exists().where(Attempt.recording_id == recording.id))):
        raise Invalid("recording_id", "this recording_id is already saved as an answer")
    delivery = recording.delivery or {}
    return {
        "recording_id": recording.id,
        "seconds": round(recording.duration_s or 0.0, 2),
        "words_per_minute": delivery.get("words_per_minute"),
        "filler_count": delivery.get("filler_count"),
        "long_pauses": len(delivery.get("pauses") or []),
    }, delivery


def assess(session: Session, *, card: Card, attempt: Attempt, data: Assessment) -> Attempt:
    """Rate an attempt (again: the latest rating counts); a reveal takes none."""
    if attempt.revealed:
        raise Invalid("attempt", "an answer revealed without answering counts as a miss and is not rated")
    check_against_card(card, data)
    attempt.points = point_ids(card, data.points)
    attempt.rating = data.rating
    scheduling.review_attempt(session, attempt=attempt)  # re-rating replaces this attempt's review
    suggestions.assessed(session, attempt)
    session.commit()
    return attempt


def take_back(
    session: Session,
    *,
    user_id: int,
    card_id: str,
    review_id: int | None = None,
    attempt_id: int | None = None,
) -> ReviewLog:
    """Undo the person's latest rating of the card, named by its review log row (`review_id`, which
    the page showed) or by the attempt it rated (`attempt_id`, which the API knows), or both: the
    row goes, the card's schedule is replayed from the reviews left, and the attempt it rated is
    unrated again. Returns the removed row (its attempt_id says which attempt)."""
    if review_id is None and attempt_id is None:
        raise ValueError("name the rating to undo: an undo sent twice must not take back two")
    lock_person(session, user_id)  # two undos at once: one takes the rating back, the other is stale
    latest = scheduling.latest_review(session, user_id=user_id, card_id=card_id)
    if latest is None or review_id not in (None, latest.id) or attempt_id not in (None, latest.attempt_id):
        raise Conflict("only your latest rating of this card can be undone, and this one is not it any more")
    attempt = session.get(Attempt, latest.attempt_id) if latest.attempt_id is not None else None
    if attempt is not None and (attempt.rating is None or attempt.kind == "quiz"):
        # A reveal counts as a miss and a quiz as its score: neither is a rating the person gave.
        raise Conflict("that review is a reveal or a quiz's score, not a rating to undo")
    if attempt is not None:
        attempt.rating = None
    totals.uncount_review(session, latest)
    session.delete(latest)
    session.flush()
    scheduling.replay(session, user_id=user_id, card_id=card_id, tier=latest.tier)
    session.commit()
    return latest


def awaiting_rating(history: list[Attempt]) -> list[Attempt]:
    """Of a card's attempts, newest first: its newest answer and the newest answer to each
    follow-up, those not rated yet (left before rating, or reloaded), so they can still be."""
    seen: set[int | None] = set()
    waiting = []
    for attempt in history:
        if attempt.kind == "quiz":
            continue
        slot = attempt.follow_up if attempt.kind == "follow-up" else None
        if slot in seen:
            continue
        seen.add(slot)
        if attempt.rating is None and not attempt.revealed:
            waiting.append(attempt)
    return waiting


def unrated_since(
    session: Session, *, user_id: int, card_id: str, tier: str, since: datetime | None
) -> Attempt | None:
    """The person's newest answer to the card at `tier` when it is unrated and newer than the card's
    last review (`since`): a /practice reveal the person left before rating."""
    newest = session.scalar(
        select(Attempt)
        .where(
            Attempt.user_id == user_id,
            Attempt.card_id == card_id,
            Attempt.tier == tier,
            Attempt.kind.in_(("basics", "solid")),
        )
        .order_by(Attempt.created_at.desc(), Attempt.id.desc())
        .limit(1)
    )
    if newest is None or newest.rating is not None or newest.revealed:
        return None
    return newest if since is None or newest.created_at > since else None


def as_out(attempt: Attempt, card: Card | None) -> AttemptOut:
    """How the API shows an attempt: its stored point ids, and their positions in `card` as served
    now (none when the card is gone)."""
    ids = list(attempt.points)
    fields = {
        name: getattr(attempt, name) for name in AttemptOut.model_fields.keys() - {"points", "point_ids"}
    }
    return AttemptOut(**fields, points=card.point_positions(ids) if card else [], point_ids=ids)


def history(session: Session, *, user_id: int, card_id: str | None = None, limit: int = 200) -> list[Attempt]:
    """The person's attempts, newest first."""
    query = select(Attempt).where(Attempt.user_id == user_id)
    if card_id is not None:
        query = query.where(Attempt.card_id == card_id)
    query = query.order_by(Attempt.created_at.desc(), Attempt.id.desc()).limit(limit)
    return list(session.scalars(query))
