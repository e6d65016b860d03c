"""The practice JSON API (OpenAPI at /docs): attempts, the due queue, a card's schedule, settings
and progress."""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, status

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep, TierQuery, chosen_tier
from app.content.parser import ID_PATTERN
from app.content.tiers import TIERS
from app.exceptions import NotFound
from app.practice import attempts, preferences, scheduling, stats
from app.practice.dependencies import AssignedCardsDep, NowDep, ReaderDep, own_attempt
from app.practice.models import ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.schemas import (
    AttemptIn,
    AttemptOut,
    DueOut,
    ProgressOut,
    QueueItem,
    ScheduleOut,
    TierSchedule,
    UndoneOut,
)
from app.schemas import MAX_ID
from app.storage.dependencies import SessionDep, WriteSessionDep

# Tags per route, as the OpenAPI groups had them before progress joined this module.
router = APIRouter(prefix="/api")


@router.post("/cards/{card_id}/attempts", status_code=status.HTTP_201_CREATED, tags=["api"])
def create_attempt(
    *,
    card: CardDep,
    data: AttemptIn,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    reader: ReaderDep,
) -> AttemptOut:
    recorded = attempts.record(session, card=card, user_id=user_id, data=data, now=now, reader=reader)
    return attempts.as_out(recorded.attempt, card)


@router.get("/attempts", tags=["api"])
def list_attempts(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    card_id: Annotated[str | None, Query(max_length=120, pattern=ID_PATTERN.pattern)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> list[AttemptOut]:
    cards = catalogue.snapshot().cards
    made = attempts.history(session, user_id=user_id, card_id=card_id, limit=limit)
    return [attempts.as_out(a, cards.get(a.card_id)) for a in made]


@router.get("/practice/due", tags=["api", "practice"])
def api_due(
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery,
    assigned: AssignedCardsDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> DueOut:
    """Cards due now at the person's target tier (or `tier`), most overdue first, then new ones
    (the person's assigned cards before the others)."""
    settings = preferences.load(session, user_id)
    settings = settings.model_copy(update={"target_tier": chosen_tier(tier, settings.target_tier)})
    snapshot = catalogue.snapshot()
    first = assigned(session=session, user_id=user_id, snapshot=snapshot, now=now)
    queue = scheduling.served_queue(
        session, user_id=user_id, cards=snapshot.cards.values(), settings=settings, now=now, first=first
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
            title=snapshot.cards[card_id].title.markdown,
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


@router.get("/cards/{card_id}/schedule", tags=["api", "practice"])
def api_schedule(
    *,
    card_id: Annotated[str, Path(max_length=120)],
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery,
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


@router.delete(
    "/cards/{card_id}/reviews/latest",
    tags=["api", "practice"],
    responses={
        404: {"description": "No attempt of yours has that id"},
        409: {
            "description": "The card's latest rating is not the named attempt's (already undone, or rated since)"
        },
    },
)
def api_undo_rating(
    *,
    card_id: Annotated[str, Path(max_length=120, pattern=ID_PATTERN.pattern)],
    attempt_id: Annotated[int, Query(ge=1, le=MAX_ID, description="the attempt whose rating to take back")],
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
) -> UndoneOut:
    """Undo: take back the person's latest rating of the card, which must be `attempt_id`'s. The
    review goes from the log (and from exports), the card's schedule is replayed from the reviews
    left, and the attempt is unrated again, to rate afresh. Sent twice, the second is a 409;
    someone else's attempt is a 404, as a missing one is."""
    own_attempt(session, user_id=user_id, attempt_id=attempt_id)
    removed = attempts.take_back(session, user_id=user_id, card_id=card_id, attempt_id=attempt_id)
    row = scheduling.get_state(session, user_id=user_id, card_id=card_id, tier=removed.tier)
    return UndoneOut(
        card_id=card_id,
        tier=removed.tier,
        attempt_id=removed.attempt_id,
        schedule=tier_schedule(removed.tier, row=row, now=now),
    )


@router.get("/settings", tags=["api", "practice"])
def api_get_settings(session: SessionDep, user_id: UserIdDep) -> PracticeSettings:
    return preferences.load(session, user_id)


@router.put("/settings", tags=["api", "practice"])
def api_put_settings(
    *, data: PracticeSettings, session: WriteSessionDep, user_id: UserIdDep
) -> PracticeSettings:
    preferences.save(session, user_id=user_id, settings=data)
    return data


@router.get("/progress", tags=["progress", "api"])
def api_progress(
    *, session: SessionDep, user_id: UserIdDep, catalogue: CatalogueDep, now: NowDep
) -> ProgressOut:
    """Recall probability now, stability and lapses per card (per tier) and per topic; daily
    activity over the heatmap's window; streaks; the quiz items most often judged wrong."""
    overview = stats.overview(session, user_id=user_id, snapshot=catalogue.snapshot(), now=now)
    return ProgressOut(
        now=now,
        target_tier=overview["settings"].target_tier,
        summary=overview["summary"],
        cards=[row.as_json() for row in overview["rows"]],
        topics=[topic.as_json() for topic in overview["topics"]],
        activity=[
            {"date": c.day.isoformat(), "count": c.count} for c in overview["heatmap"].cells if c.count
        ],
        missed_pitfalls=[item.as_json() for item in overview["missed"]],
        spoken=[answer.as_json() for answer in overview["spoken"]],
    )
