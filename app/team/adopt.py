"""A server one person practised on alone becomes a team's: `tiercards users adopt-local NAME`
gives the solo history (the local user of AUTH_MODE=single) to NAME's account, in one step.

Every table that keys a person's practice on their id moves: attempts, schedules (review states
and the review log), demo runs, practice settings and assignments; the practice counted per day
and per quiz statement is added to the account's own. Sign-in sessions and API
tokens made in single mode do not (they never sign anyone in outside single mode), nor does the
audit log, which keeps saying who did what.
"""

from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.orm import Session

from app.accounts import audit
from app.accounts.models import LOCAL_USER_ID
from app.accounts.service import account_named, lock_person
from app.demos.models import DemoRun
from app.exceptions import Conflict
from app.practice import totals
from app.practice.models import Attempt, ReviewLog, ReviewState, UserSettings
from app.team.models import Assignment

# What each count of the audit row and the CLI's sentence is about.
MOVED = {
    "attempts": Attempt,
    "schedules": ReviewState,
    "reviews": ReviewLog,
    "demo_runs": DemoRun,
    "settings": UserSettings,
    "assignments": Assignment,
}


def _move(session: Session, *, model: Any, to: int) -> int:
    result = session.execute(update(model).where(model.user_id == LOCAL_USER_ID).values(user_id=to))
    return int(cast(CursorResult[Any], result).rowcount)


def _shared_schedules(session: Session, user_id: int) -> list[str]:
    theirs = select(ReviewState.card_id, ReviewState.tier).where(ReviewState.user_id == user_id)
    solo = select(ReviewState.card_id, ReviewState.tier).where(ReviewState.user_id == LOCAL_USER_ID)
    return [f"{card} ({tier})" for card, tier in session.execute(solo.intersect(theirs).order_by("card_id"))]


def adopt_local(session: Session, name: str) -> dict[str, int]:
    """Move the solo history to the account `name`, all of it in one step (after a refusal,
    nothing); how many rows of each kind moved.

    Refused: NotFound when nobody is called `name`; Conflict when both have a schedule on the
    same card at the same depth, since two FSRS memory states of one card cannot be made one
    (adopt into an account that has none there, e.g. a new one). The account's own practice
    settings win over the solo ones; its attempts, reviews and runs simply join the solo ones."""
    user = account_named(session, name=name)
    # Both people's practice stays still while it moves (their row locks, on PostgreSQL).
    for user_id in sorted((LOCAL_USER_ID, user.id)):
        lock_person(session, user_id)
    shared = _shared_schedules(session, user.id)
    if shared:
        raise Conflict(
            f"'{name}' and the solo history both have a schedule on {', '.join(shared)}; "
            "schedules cannot be merged: adopt into an account with none on those cards"
        )
    if session.get(UserSettings, user.id) is not None:
        session.execute(delete(UserSettings).where(UserSettings.user_id == LOCAL_USER_ID))
    # A submit key names a run per person: one the account used too no longer names the solo run.
    session.execute(
        update(DemoRun)
        .where(
            DemoRun.user_id == LOCAL_USER_ID,
            DemoRun.idempotency_key.in_(select(DemoRun.idempotency_key).where(DemoRun.user_id == user.id)),
        )
        .values(idempotency_key=None)
    )
    # The counts first: the team's counts of quiz statements are taken before those of cards, as
    # every answer takes them (app/practice/scheduling.py record_review).
    totals.move_counts(session, from_id=LOCAL_USER_ID, to_id=user.id)
    moved = {what: _move(session, model=model, to=user.id) for what, model in MOVED.items()}
    session.execute(
        update(Assignment).where(Assignment.created_by == LOCAL_USER_ID).values(created_by=user.id)
    )
    audit.record(session, kind="history_adopted", user_id=user.id, **cast(dict[str, Any], moved))
    session.commit()
    return moved
