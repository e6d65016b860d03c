"""/practice: what is due at the person's target tier, one card at a time; settings; its JSON API."""

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, NamedTuple

from fastapi import APIRouter, HTTPException, Path, Query, Request
from pydantic import BaseModel, ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Catalogue
from app.content.dependencies import CatalogueDep, TierQuery, card_or_404, tier_or_422
from app.content.model import Card
from app.content.tiers import IMPORTANCES, TIERS, Tier, default_answer_kind, sees
from app.exceptions import Invalid
from app.practice import attempts, preferences, scheduling
from app.practice.dependencies import NowDep, form_attempt
from app.practice.models import Attempt, ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.routers.forms import ANSWER_LABELS, ANSWER_UNREADABLE, RATING_CHOICES, rating_messages
from app.practice.schemas import MAX_SECONDS, RATINGS, Assessment, AttemptIn
from app.practice.stats import plain_title
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.messages import form_messages, sentence
from app.web.panels import PanelsDep
from app.web.templating import is_htmx, render
from app.web.timefmt import until

router = APIRouter(tags=["practice"])


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


def _queue(
    session: Session, user_id: int, catalogue: Catalogue, settings: PracticeSettings, now: datetime
) -> scheduling.PracticeQueue:
    cards = catalogue.snapshot().cards.values()
    return scheduling.practice_queue(session, user_id, settings, introduction_order(cards), now)


def _token(row: ReviewState | None) -> str:
    """The card's last review as the form saw it: a rating sent twice finds it changed."""
    return row.last_review.isoformat() if row is not None and row.last_review else ""


def _card_context(card: Card, tier: Tier, row: ReviewState | None) -> dict[str, Any]:
    answer_kind = default_answer_kind(tier)
    return {
        "card": card,
        "tier": tier,
        "row": row,
        "is_new": row is None,
        "answer_kind": answer_kind,
        "limit": card.time_budget(answer_kind),
        "token": _token(row),
        "sees_solid": sees(tier, "solid"),
        "sees_deep_dive": sees(tier, "deep_dive"),
    }


def _page(
    session: Session,
    user_id: int,
    catalogue: Catalogue,
    now: datetime,
    settings: PracticeSettings | None = None,
    next_card: bool = True,
) -> dict[str, Any]:
    """Everything practice.html needs, with the next card of the queue as the current card unless
    `next_card` is false (the caller shows a card of its own)."""
    settings = settings or preferences.load(session, user_id)
    queue = _queue(session, user_id, catalogue, settings, now)
    context: dict[str, Any] = {
        "settings": settings,
        "form": settings.model_dump(),
        "queue": queue,
        "tiers": TIERS,
        "ratings": RATINGS,
        "card": None,
        "answer_shown": False,
    }
    following = queue.next_card if next_card else None
    if following is not None:
        card = catalogue.get(following[0])
        if card is not None:
            tier = settings.target_tier
            context |= _card_context(card, tier, scheduling.get_state(session, user_id, card.id, tier))
    return context


RATING_CHOICE = f"Choose how well you recalled it: {RATING_CHOICES}"
SETTINGS_LABELS = {
    "target_tier": "Target depth",
    "desired_retention": "Desired retention",
    "new_per_day": "New cards per day",
}
SETTINGS_UNREADABLE = "The settings could not be read; send them again"


@router.get("/practice", response_class=HTMLResponse)
def practice_page(
    request: Request,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    extras: PanelsDep,
) -> HTMLResponse:
    panels = extras.fill("practice", session=session, user_id=user_id, snapshot=catalogue.snapshot(), now=now)
    return render(request, "practice.html", **_page(session, user_id, catalogue, now), panels=panels)


def _seconds(value: object) -> float | None:
    """The time the page's timer sent, or None when it is not one."""
    try:
        seconds = float(str(value)) if value not in (None, "") else 0.0
    except ValueError:
        return None
    return seconds if 0 <= seconds <= MAX_SECONDS else None


class _Submitted(NamedTuple):
    """What the reveal and rate forms both send, checked: the card, at which tier, how long it
    took (None when the timer's value could not be read)."""

    form: FormData
    card: Card
    settings: PracticeSettings
    tier: Tier
    seconds: float | None


def _submitted(form: FormData, session: Session, user_id: int, catalogue: Catalogue) -> _Submitted:
    card = card_or_404(catalogue, str(form.get("card_id") or ""))
    settings = preferences.load(session, user_id)
    tier = tier_or_422(str(form.get("tier") or ""), settings.target_tier)
    return _Submitted(form, card, settings, tier, _seconds(form.get("seconds")))


def _revealed(
    session: Session, user_id: int, submitted: _Submitted, now: datetime, attempt: Attempt | None
) -> dict[str, Any]:
    card, tier = submitted.card, submitted.tier
    row = scheduling.get_state(session, user_id, card.id, tier)
    sched = scheduling.scheduler(submitted.settings.desired_retention)
    return _card_context(card, tier, row) | {
        "answer_shown": True,
        "attempt": attempt,
        "seconds": submitted.seconds or 0.0,
        "previews": scheduling.preview(row, sched, now),
    }


@router.post("/practice/reveal", response_class=HTMLResponse)
def reveal(
    request: Request,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
) -> HTMLResponse:
    """Show the model answer; a typed answer is recorded as an attempt (rated on the next step)."""
    submitted = _submitted(form, session, user_id, catalogue)
    card, tier, seconds = submitted.card, submitted.tier, submitted.seconds
    text = str(submitted.form.get("text") or "")
    page = _page(session, user_id, catalogue, now, submitted.settings, next_card=False)
    attempt = None
    errors = [sentence(ANSWER_UNREADABLE)] if seconds is None else []
    if text.strip() and not errors:
        try:
            data = AttemptIn.model_validate(
                {"tier": tier, "kind": default_answer_kind(tier), "text": text, "seconds": seconds},
                strict=False,
            )
            attempt = attempts.record(session, card, user_id, data, now)
        except ValidationError as error:
            errors = form_messages(error, ANSWER_LABELS, ANSWER_UNREADABLE)
    if errors:
        row = scheduling.get_state(session, user_id, card.id, tier)
        return render(
            request,
            "practice.html",
            "_practice_card.html",
            status_code=422,
            **page | _card_context(card, tier, row),
            errors=errors,
            text=text,
            # The clock goes on from the time already taken, not from zero.
            elapsed=seconds or 0,
        )
    context = page | _revealed(session, user_id, submitted, now, attempt)
    return render(request, "practice.html", "_practice_card.html", **context)


def _rated(
    session: Session, user_id: int, submitted: _Submitted, attempt: Attempt | None, now: datetime
) -> str:
    """Record the rating the form sends and say how it went; refusals raise Invalid."""
    form, card, _settings, tier, seconds = submitted
    rating = str(form.get("rating") or "")
    if rating not in RATINGS:
        raise Invalid("rating", RATING_CHOICE)
    if seconds is None:
        raise Invalid("seconds", f"seconds must be between 0 and {MAX_SECONDS}")
    if attempt is not None and attempt.card_id != card.id:
        raise Invalid("attempt_id", "that attempt is for another card")
    if attempt is not None:
        assessment = Assessment.model_validate(
            {"points": form.getlist("points"), "rating": rating}, strict=False
        )
        attempts.assess(session, card, attempt, assessment)
        return f"Rated {rating}."
    if str(form.get("token") or "") != _token(scheduling.get_state(session, user_id, card.id, tier)):
        # A second submit of the same card (double click, reload): it counted once already.
        return "That card was already rated; it counted once."
    scheduling.review(
        session,
        user_id,
        card.id,
        tier,
        scheduling.RATING_BY_NAME[rating],
        scheduling.duration_ms(seconds),
        now,
    )
    session.commit()
    return f"Rated {rating}."


@router.post("/practice/rate", response_class=HTMLResponse)
def rate(
    request: Request,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
) -> HTMLResponse:
    """Rate the card just revealed and move on to the next one."""
    submitted = _submitted(form, session, user_id, catalogue)
    card, settings, tier = submitted.card, submitted.settings, submitted.tier
    attempt = form_attempt(session, user_id, str(form.get("attempt_id") or ""))
    try:
        flash = _rated(session, user_id, submitted, attempt, now)
    except (Invalid, ValidationError) as error:
        session.rollback()
        context = _page(session, user_id, catalogue, now, settings, next_card=False)
        context |= _revealed(session, user_id, submitted, now, attempt)
        errors = rating_messages(error, RATING_CHOICE)
        return render(
            request, "practice.html", "_practice_card.html", status_code=422, **context, errors=errors
        )
    row = scheduling.get_state(session, user_id, card.id, tier)
    if row is not None:
        flash += f" “{plain_title(card)}” is due again {until(row.due, now)}."
    context = _page(session, user_id, catalogue, now, settings)
    return render(
        request, "practice.html", "_practice_card.html", **context, flash=flash, summary_oob=is_htmx(request)
    )


@router.post("/practice/settings", response_class=HTMLResponse)
def save_settings(
    request: Request,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
) -> HTMLResponse:
    submitted = {key: str(form.get(key) or "") for key in ("target_tier", "desired_retention", "new_per_day")}
    try:
        settings = PracticeSettings.model_validate(submitted, strict=False)
    except ValidationError as error:
        context = _page(session, user_id, catalogue, now)
        return render(
            request,
            "practice.html",
            "_practice_settings.html",
            status_code=422,
            **context | {"form": submitted},
            settings_errors=form_messages(error, SETTINGS_LABELS, SETTINGS_UNREADABLE),
        )
    preferences.save(session, user_id, settings)
    session.commit()
    context = _page(session, user_id, catalogue, now, settings)
    oob = is_htmx(request)
    return render(
        request,
        "practice.html",
        "_practice_settings.html",
        **context,
        settings_saved=True,
        card_oob=oob,
        summary_oob=oob,
    )


# --- JSON ------------------------------------------------------------------------------------


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


@router.get("/api/practice/due", tags=["api"])
def api_due(
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    tier: TierQuery = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> DueOut:
    """Cards due now at the person's target tier (or `tier`), most overdue first, then new ones."""
    settings = preferences.load(session, user_id)
    settings = settings.model_copy(update={"target_tier": tier_or_422(tier, settings.target_tier)})
    queue = _queue(session, user_id, catalogue, settings, now)
    shown = [d.card_id for d in queue.due[:limit]]
    states = {
        row.card_id: row for row in scheduling.states_for(session, user_id, shown) if row.tier == queue.tier
    }
    cards = catalogue.snapshot().cards

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


def tier_schedule(tier: str, row: ReviewState | None, now: datetime) -> TierSchedule:
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


@router.get("/api/cards/{card_id}/schedule", tags=["api"])
def api_schedule(
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
    rows = {row.tier: row for row in scheduling.states_for(session, user_id, [card_id])}
    card = catalogue.get(card_id)
    if card is None and not rows:
        raise HTTPException(status_code=404, detail=f"no card with id '{card_id}'")
    chosen = tier_or_422(tier, preferences.load(session, user_id).target_tier)
    return ScheduleOut(
        card_id=card_id,
        retired=card is None,
        **tier_schedule(chosen, rows.get(chosen), now).model_dump(),
        tiers={t: tier_schedule(t, rows.get(t), now) for t in TIERS},
    )


@router.get("/api/settings", tags=["api"])
def api_get_settings(session: SessionDep, user_id: UserIdDep) -> PracticeSettings:
    return preferences.load(session, user_id)


@router.put("/api/settings", tags=["api"])
def api_put_settings(
    data: PracticeSettings, session: WriteSessionDep, user_id: UserIdDep
) -> PracticeSettings:
    preferences.save(session, user_id, data)
    session.commit()
    return data
