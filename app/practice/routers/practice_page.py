"""/practice: what is due at the person's target tier, one card at a time; settings."""

from datetime import datetime
from typing import Any, NamedTuple

from fastapi import APIRouter, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Catalogue
from app.content.dependencies import CatalogueDep, chosen_tier, served_card
from app.content.model import Card
from app.content.tiers import TIERS, Tier, default_answer_kind, sees
from app.exceptions import Invalid
from app.practice import attempts, preferences, rating, scheduling, suggestions
from app.practice.assigned import AssignedCards, none_assigned
from app.practice.dependencies import AssignedCardsDep, NowDep, form_attempt
from app.practice.models import Attempt, ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.routers.forms import (
    ANSWER_LABELS,
    ANSWER_UNREADABLE,
    RATING_CHOICES,
    rating_messages,
    review_to_undo,
)
from app.practice.schemas import MAX_SECONDS, RATINGS, AttemptIn
from app.practice.stats import plain_title
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.messages import form_messages, sentence
from app.web.panels import Panel, Panels, PanelsDep
from app.web.templating import is_htmx, render
from app.web.timefmt import when

router = APIRouter(tags=["practice"])


def _card_context(card: Card, *, tier: Tier, row: ReviewState | None) -> dict[str, Any]:
    answer_kind = default_answer_kind(tier)
    return {
        "card": card,
        "tier": tier,
        "row": row,
        "is_new": row is None,
        "answer_kind": answer_kind,
        "limit": card.time_budget(answer_kind),
        "token": rating.review_token(row),
        "sees_solid": sees(tier, "solid"),
        "sees_deep_dive": sees(tier, "deep_dive"),
    }


def _page(
    session: Session,
    *,
    user_id: int,
    catalogue: Catalogue,
    now: datetime,
    settings: PracticeSettings | None = None,
    next_card: bool = True,
    assigned: AssignedCards = none_assigned,
) -> dict[str, Any]:
    """Everything practice.html needs, with the next card of the queue as the current card unless
    `next_card` is false (the caller shows a card of its own); `assigned` only orders new cards,
    so a caller showing its own card need not pass it."""
    settings = settings or preferences.load(session, user_id)
    snapshot = catalogue.snapshot()
    first = assigned(session=session, user_id=user_id, snapshot=snapshot, now=now) if next_card else []
    due = scheduling.served_queue(
        session, user_id=user_id, cards=snapshot.cards.values(), settings=settings, now=now, first=first
    )
    context: dict[str, Any] = {
        "settings": settings,
        "form": settings.model_dump(),
        "queue": due,
        "tiers": TIERS,
        "ratings": RATINGS,
        "card": None,
        "answer_shown": False,
    }
    following = due.next_card if next_card else None
    if following is not None:
        card = catalogue.get(following[0])
        if card is not None:
            tier = settings.target_tier
            row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
            context |= _card_context(card, tier=tier, row=row)
            waiting = attempts.unrated_since(
                session, user_id=user_id, card_id=card.id, tier=tier, since=row.last_review if row else None
            )
            if waiting is not None:  # answered, then left or reloaded before rating: rate it now
                context |= _shown(
                    session,
                    user_id=user_id,
                    card=card,
                    tier=tier,
                    settings=settings,
                    seconds=waiting.seconds,
                    attempt=waiting,
                    now=now,
                )
    return context


def _panels(
    extras: Panels, *, session: Session, user_id: int, catalogue: Catalogue, now: datetime
) -> list[Panel]:
    return extras.fill("practice", session=session, user_id=user_id, snapshot=catalogue.snapshot(), now=now)


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
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    extras: PanelsDep,
    assigned: AssignedCardsDep,
) -> HTMLResponse:
    panels = _panels(extras, session=session, user_id=user_id, catalogue=catalogue, now=now)
    context = _page(session, user_id=user_id, catalogue=catalogue, now=now, assigned=assigned)
    return render(request, "practice.html", **context, panels=panels)


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


def _submitted(form: FormData, *, session: Session, user_id: int, catalogue: Catalogue) -> _Submitted:
    card = served_card(catalogue, str(form.get("card_id") or ""))
    settings = preferences.load(session, user_id)
    tier = chosen_tier(str(form.get("tier") or ""), settings.target_tier)
    return _Submitted(form, card, settings, tier, _seconds(form.get("seconds")))


def _revealed(
    session: Session, *, user_id: int, submitted: _Submitted, now: datetime, attempt: Attempt | None
) -> dict[str, Any]:
    return _shown(
        session,
        user_id=user_id,
        card=submitted.card,
        tier=submitted.tier,
        settings=submitted.settings,
        seconds=submitted.seconds or 0.0,
        attempt=attempt,
        now=now,
    )


def _shown(
    session: Session,
    *,
    user_id: int,
    card: Card,
    tier: Tier,
    settings: PracticeSettings,
    seconds: float,
    attempt: Attempt | None,
    now: datetime,
) -> dict[str, Any]:
    """The card with its answer shown, to rate: after a reveal, or when an answer awaits its rating."""
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    sched = scheduling.scheduler(settings.desired_retention)
    return _card_context(card, tier=tier, row=row) | {
        "answer_shown": True,
        "attempt": attempt,
        "suggestion": suggestions.shown(session, card=card, attempt=attempt) if attempt else None,
        "seconds": seconds,
        "previews": scheduling.preview(row, sched=sched, now=now),
    }


@router.post("/practice/reveal", response_class=HTMLResponse)
def reveal(
    request: Request,
    *,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
) -> HTMLResponse:
    """Show the model answer; a typed answer is recorded as an attempt (rated on the next step)."""
    submitted = _submitted(form, session=session, user_id=user_id, catalogue=catalogue)
    card, tier, seconds = submitted.card, submitted.tier, submitted.seconds
    text = str(submitted.form.get("text") or "")
    page = _page(
        session, user_id=user_id, catalogue=catalogue, now=now, settings=submitted.settings, next_card=False
    )
    attempt = None
    errors = [sentence(ANSWER_UNREADABLE)] if seconds is None else []
    if text.strip() and not errors:
        try:
            data = AttemptIn.model_validate(
                {
                    "tier": tier,
                    "kind": default_answer_kind(tier),
                    "text": text,
                    "seconds": seconds,
                    "recording_id": submitted.form.get("recording_id") or None,
                },
                strict=False,
            )
            attempt = attempts.record(session, card=card, user_id=user_id, data=data, now=now)
        except ValidationError as error:
            errors = form_messages(error, ANSWER_LABELS, ANSWER_UNREADABLE)
        except Invalid as error:  # the recording it names cannot be saved from: the typing stays
            errors = [sentence(error.message)]
    if errors:
        row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
        return render(
            request,
            "practice.html",
            "_practice_card.html",
            status_code=422,
            **page | _card_context(card, tier=tier, row=row),
            errors=errors,
            text=text,
            # The clock goes on from the time already taken, not from zero.
            elapsed=seconds or 0,
        )
    context = page | _revealed(session, user_id=user_id, submitted=submitted, now=now, attempt=attempt)
    return render(request, "practice.html", "_practice_card.html", **context)


@router.post("/practice/rate", response_class=HTMLResponse)
def rate(
    request: Request,
    *,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    extras: PanelsDep,
    assigned: AssignedCardsDep,
) -> HTMLResponse:
    """Rate the card just revealed and move on to the next one."""
    submitted = _submitted(form, session=session, user_id=user_id, catalogue=catalogue)
    card, settings, tier = submitted.card, submitted.settings, submitted.tier
    attempt = form_attempt(session, user_id=user_id, text=str(form.get("attempt_id") or ""))
    chosen = str(form.get("rating") or "")
    try:
        counted = rating.rate(
            session,
            user_id=user_id,
            card=card,
            tier=tier,
            rating=chosen,
            seconds=submitted.seconds,
            token=str(form.get("token") or ""),
            attempt=attempt,
            points=[str(point) for point in form.getlist("points")],
            now=now,
        )
    except (Invalid, ValidationError) as error:
        context = _page(
            session, user_id=user_id, catalogue=catalogue, now=now, settings=settings, next_card=False
        )
        context |= _revealed(session, user_id=user_id, submitted=submitted, now=now, attempt=attempt)
        errors = rating_messages(error, RATING_CHOICE)
        kept = [str(point) for point in form.getlist("points")]  # theirs, not the suggestion's
        return render(
            request,
            "practice.html",
            "_practice_card.html",
            status_code=422,
            **context,
            errors=errors,
            kept_ticks=kept,
        )
    # A second submit of the same card (double click, reload) counted once already.
    flash = f"Rated {chosen}." if counted else "That card was already rated; it counted once."
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=tier)
    if row is not None:
        flash += f" “{plain_title(card)}”: Next review {when(row.due, now)}."
    context = _page(
        session, user_id=user_id, catalogue=catalogue, now=now, settings=settings, assigned=assigned
    )
    # The "Assigned to you" box counts this rating too, swapped in beside the next card.
    context["panels"] = _panels(extras, session=session, user_id=user_id, catalogue=catalogue, now=now)
    undo = scheduling.latest_review(session, user_id=user_id, card_id=card.id) if counted else None
    oob = is_htmx(request)
    return render(
        request,
        "practice.html",
        "_practice_card.html",
        **context,
        flash=flash,
        undo=undo,
        rated_card=card.id,
        summary_oob=oob,
        panels_oob=oob,
    )


@router.post("/practice/undo", response_class=HTMLResponse)
def undo(
    request: Request,
    *,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
) -> HTMLResponse:
    """Take back the card's latest rating: the card comes back with its answer shown, to rate again."""
    # Named apart from the rate form's card_id: the undo sits above the next card's own forms.
    card = served_card(catalogue, str(form.get("card") or ""))
    review_id = review_to_undo(form)
    removed = attempts.take_back(session, user_id=user_id, card_id=card.id, review_id=review_id)
    attempt = session.get(Attempt, removed.attempt_id) if removed.attempt_id is not None else None
    settings = preferences.load(session, user_id)
    tier = chosen_tier(removed.tier, settings.target_tier)
    seconds = attempt.seconds if attempt is not None else (removed.review_duration_ms or 0) / 1000
    context = _page(
        session, user_id=user_id, catalogue=catalogue, now=now, settings=settings, next_card=False
    )
    context |= _shown(
        session,
        user_id=user_id,
        card=card,
        tier=tier,
        settings=settings,
        seconds=seconds,
        attempt=attempt,
        now=now,
    )
    flash = "Rating taken back: rate it again."
    return render(
        request, "practice.html", "_practice_card.html", **context, flash=flash, summary_oob=is_htmx(request)
    )


@router.post("/practice/settings", response_class=HTMLResponse)
def save_settings(
    request: Request,
    *,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    assigned: AssignedCardsDep,
) -> HTMLResponse:
    submitted = {key: str(form.get(key) or "") for key in ("target_tier", "desired_retention", "new_per_day")}
    try:
        settings = PracticeSettings.model_validate(submitted, strict=False)
    except ValidationError as error:
        context = _page(session, user_id=user_id, catalogue=catalogue, now=now, assigned=assigned)
        return render(
            request,
            "practice.html",
            "_practice_settings.html",
            status_code=422,
            **context | {"form": submitted},
            settings_errors=form_messages(error, SETTINGS_LABELS, SETTINGS_UNREADABLE),
        )
    preferences.save(session, user_id=user_id, settings=settings)
    context = _page(
        session, user_id=user_id, catalogue=catalogue, now=now, settings=settings, assigned=assigned
    )
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
