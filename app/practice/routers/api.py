"""The practice JSON API (OpenAPI at /docs): attempts, the due queue, a card's schedule, settings."""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, status
from pydantic import BaseModel

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep, TierQuery, chosen_tier
from app.content.tiers import TIERS
from app.exceptions import NotFound
from app.practice import attempts, preferences, scheduling
from app.practice.dependencies import NowDep
from app.practice.models import ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.schemas import AttemptIn, AttemptOut
from app.storage.dependencies import SessionDep, WriteSessionDep

router = APIRouter(prefix="/api", tags=["api"])


@router.post("/cards/{card_id}/attempts", status_code=status.HTTP_201_CREATED)
def create_attempt(
    *, card: CardDep, data: AttemptIn, session: WriteSessionDep, user_id: UserIdDep, now: NowDep
) -> AttemptOut:
    return attempts.as_out(attempts.record(session, card=card, user_id=user_id, data=data, now=now), card)


@router.get("/attempts")
def list_attempts(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    card_id: Annotated[str | None, Query(max_length=120)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[AttemptOut]:
    cards = catalogue.snapshot().cards
    made = attempts.history(session, user_id=user_id, card_id=card_id, limit=limit)
    return [attempts.as_out(a, cards.get(a.card_id)) for a in made]


class QueueItem(BaseModel):
    card_id: str
    title: str
    tier: str
    state: str
    due: datetime | None
    overdue_seconds: float | None
    retrievability: float | None
    stability: float | None


class DueOut(BaseModel):
    now: datetime
    tier: str
    due: list[QueueItem]
    new: list[QueueItem]
    due_count: int
    new_today: int
    new_per_day: int
    next_due: datetime | None


@router.get("/practice/due", tags=["practice"])
def api_due(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> DueOut:
    """Cards due now at the person's target tier (or `tier`), most overdue first, then new ones."""
    settings = preferences.load(session, user_id)
    settings = settings.model_copy(update={"target_tier": chosen_tier(tier, settings.target_tier)})
    cards = catalogue.snapshot().cards
    queue = scheduling.served_queue(
        session, user_id=user_id, cards=cards.values(), settings=settings, now=now
    )
    shown = [d.card_id for d in queue.due[:limit]]
    states = {
        row.card_id: row
        for row in scheduling.states_for(session, user_id=user_id, card_ids=shown)
        if row.tier == queue.tier
    }

    def item(card_id: str, row: ReviewState | None) -> QueueItem:
        return QueueItem(
            card_id=card_id,
            title=cards[card_id].title.markdown,
            tier=queue.tier,
            state=scheduling.state_name(row),
            due=row.due if row else None,
            overdue_seconds=(now - row.due).total_seconds() if row else None,
            retrievability=scheduling.retrievability(row, now) if row else None,
            stability=row.stability if row else None,
        )

    return DueOut(
        now=now,
        tier=queue.tier,
        due=[item(d.card_id, states.get(d.card_id)) for d in queue.due[:limit]],
        new=[item(card_id, None) for card_id in queue.new[:limit]],
        due_count=len(queue.due),
        new_today=queue.new_today,
        new_per_day=queue.new_per_day,
        next_due=queue.next_due,
    )


class TierSchedule(BaseModel):
    tier: str
    state: str
    due: datetime | None
    retrievability: float | None
    stability: float | None
    difficulty: float | None
    last_review: datetime | None
    reps: int
    lapses: int


class ScheduleOut(TierSchedule):
    card_id: str
    retired: bool
    tiers: dict[str, TierSchedule]


def tier_schedule(tier: str, *, row: ReviewState | None, now: datetime) -> TierSchedule:
    return TierSchedule(
        tier=tier,
        state=scheduling.state_name(row),
        due=row.due if row else None,
        retrievability=scheduling.retrievability(row, now) if row else None,
        stability=row.stability if row else None,
        difficulty=row.difficulty if row else None,
        last_review=row.last_review if row else None,
        reps=row.reps if row else 0,
        lapses=row.lapses if row else 0,
    )


@router.get("/cards/{card_id}/schedule", tags=["practice"])
def api_schedule(
    *,
    card_id: Annotated[str, Path(max_length=120)],
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery = None,
) -> ScheduleOut:
    """The card's FSRS schedule at `tier` (default: the target tier), and at every tier in `tiers`.

    A card never reviewed at a tier has state "new" and no due time. A card deleted from
    content/ that has history answers with `retired: true`.
    """
    rows = {row.tier: row for row in scheduling.states_for(session, user_id=user_id, card_ids=[card_id])}
    card = catalogue.get(card_id)
    if card is None and not rows:
        raise NotFound(f"no card with id '{card_id}'")
    chosen = chosen_tier(tier, preferences.load(session, user_id).target_tier)
    return ScheduleOut(
        card_id=card_id,
        retired=card is None,
        **tier_schedule(chosen, row=rows.get(chosen), now=now).model_dump(),
        tiers={t: tier_schedule(t, row=rows.get(t), now=now) for t in TIERS},
    )


@router.get("/settings", tags=["practice"])
def api_get_settings(session: SessionDep, user_id: UserIdDep) -> PracticeSettings:
    return preferences.load(session, user_id)


@router.put("/settings", tags=["practice"])
def api_put_settings(
    *, data: PracticeSettings, session: WriteSessionDep, user_id: UserIdDep
) -> PracticeSettings:
    preferences.save(session, user_id=user_id, settings=data)
    return data
