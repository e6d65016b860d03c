"""/practice: due cards at the person's target tier, one card at a time; settings."""

from datetime import datetime
from typing import Any, NamedTuple

from fastapi import APIRouter, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.cards import Card
from app.content.catalogue import Catalogue, Snapshot
from app.content.dependencies import CatalogueDep, chosen_tier, served_card
from app.content.tiers import TIERS, Tier, default_answer_kind, sees
from app.exceptions import Invalid
from app.practice import due_card, preferences, rating
from app.practice.dependencies import (
    ANSWER_UNREADABLE,
    RATING_CHOICES,
    AnswerFormDep,
    AssignedCardsDep,
    NowDep,
    ReaderDep,
    form_attempt,
    rating_messages,
    review_to_undo,
)
from app.practice.due_card import Turn
from app.practice.models import ReviewState
from app.practice.preferences import PracticeSettings
from app.practice.schemas import MAX_SECONDS, RATINGS
from app.practice.stats import plain_title
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.messages import form_messages
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


def _context(turn: Turn) -> dict[str, Any]:
    """Everything practice.html needs of a turn."""
    context: dict[str, Any] = {
        "settings": turn.settings,
        "form": turn.settings.model_dump(),
        "queue": turn.queue,
        "tiers": TIERS,
        "ratings": RATINGS,
        "card": None,
        "answer_shown": False,
    }
    if turn.card is not None:
        context |= _card_context(turn.card, tier=turn.tier, row=turn.row)
    if turn.shown is not None:
        shown = turn.shown
        context |= {
            "answer_shown": True,
            "attempt": shown.attempt,
            "suggestion": shown.suggestion,
            "delivery": shown.delivery,
            "seconds": shown.seconds,
            "previews": shown.previews,
        }
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
    turn = due_card.next_card(
        session, user_id=user_id, snapshot=catalogue.snapshot(), now=now, assigned=assigned
    )
    return render(request, "practice.html", **_context(turn), panels=panels)


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

    snapshot: Snapshot
    card: Card
    settings: PracticeSettings
    tier: Tier
    seconds: float | None


def _submitted(form: FormData, *, session: Session, user_id: int, catalogue: Catalogue) -> _Submitted:
    snapshot = catalogue.snapshot()
    card = served_card(catalogue, str(form.get("card_id") or ""))
    settings = preferences.load(session, user_id)
    tier = chosen_tier(str(form.get("tier") or ""), settings.target_tier)
    return _Submitted(snapshot, card, settings, tier, _seconds(form.get("seconds")))


def _showing(
    session: Session, *, user_id: int, submitted: _Submitted, now: datetime, **answered: Any
) -> Turn:
    """The submitted card in place of the queue's next, as a refused form shows it again."""
    return due_card.showing(
        session,
        user_id=user_id,
        snapshot=submitted.snapshot,
        card=submitted.card,
        tier=submitted.tier,
        settings=submitted.settings,
        now=now,
        **answered,
    )


@router.post("/practice/reveal", response_class=HTMLResponse)
def reveal(
    request: Request,
    *,
    answer: AnswerFormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    reader: ReaderDep,
) -> HTMLResponse:
    """Show the model answer; a typed answer is recorded as an attempt (rated on the next step)."""
    submitted = _submitted(answer.form, session=session, user_id=user_id, catalogue=catalogue)
    tier, seconds = submitted.tier, submitted.seconds
    try:
        if seconds is None:
            raise Invalid("seconds", ANSWER_UNREADABLE)
        typed = str(answer.form.get("text") or "").strip()
        turn = due_card.reveal(
            session,
            user_id=user_id,
            snapshot=submitted.snapshot,
            card=submitted.card,
            tier=tier,
            settings=submitted.settings,
            seconds=seconds,
            data=answer.attempt(tier=tier, kind=default_answer_kind(tier)) if typed else None,
            now=now,
            reader=reader,
        )
    except (ValidationError, Invalid) as error:
        turn = _showing(session, user_id=user_id, submitted=submitted, now=now)
        # The clock goes on from the time already taken, not from zero.
        return answer.refused(
            "practice.html",
            fragment="_practice_card.html",
            errors=answer.messages(error),
            elapsed=seconds or 0,
            **_context(turn),
        )
    return render(request, "practice.html", "_practice_card.html", **_context(turn))


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
    card = submitted.card
    attempt = form_attempt(session, user_id=user_id, text=str(form.get("attempt_id") or ""))
    chosen = str(form.get("rating") or "")
    try:
        rated = due_card.rate(
            session,
            user_id=user_id,
            snapshot=submitted.snapshot,
            card=card,
            tier=submitted.tier,
            settings=submitted.settings,
            chosen=chosen,
            seconds=submitted.seconds,
            token=str(form.get("token") or ""),
            attempt=attempt,
            points=[str(point) for point in form.getlist("points")],
            assigned=assigned,
            now=now,
        )
    except (Invalid, ValidationError) as error:
        answered = (attempt, submitted.seconds or 0.0)
        turn = _showing(session, user_id=user_id, submitted=submitted, now=now, answered=answered)
        kept = [str(point) for point in form.getlist("points")]  # theirs, not the suggestion's
        return render(
            request,
            "practice.html",
            "_practice_card.html",
            status_code=422,
            **_context(turn),
            errors=rating_messages(error, RATING_CHOICE),
            kept_ticks=kept,
        )
    # A second submit of the same card (double click, reload) counted once already.
    flash = f"Rated {chosen}." if rated.counted else "That card was already rated; it counted once."
    if rated.due is not None:
        flash += f" “{plain_title(card)}”: Next review {when(rated.due, now)}."
    # The "Assigned to you" box counts this rating too, swapped in beside the next card.
    panels = _panels(extras, session=session, user_id=user_id, catalogue=catalogue, now=now)
    oob = is_htmx(request)
    return render(
        request,
        "practice.html",
        "_practice_card.html",
        **_context(rated.turn),
        panels=panels,
        flash=flash,
        undo=rated.undo,
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
    snapshot = catalogue.snapshot()
    turn = due_card.undo(
        session, user_id=user_id, snapshot=snapshot, card=card, review_id=review_to_undo(form), now=now
    )
    flash = "Rating taken back: rate it again."
    return render(
        request,
        "practice.html",
        "_practice_card.html",
        **_context(turn),
        flash=flash,
        summary_oob=is_htmx(request),
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
    snapshot = catalogue.snapshot()
    try:
        settings = PracticeSettings.model_validate(submitted, strict=False)
    except ValidationError as error:
        turn = due_card.next_card(session, user_id=user_id, snapshot=snapshot, now=now, assigned=assigned)
        return render(
            request,
            "practice.html",
            "_practice_settings.html",
            status_code=422,
            **_context(turn) | {"form": submitted},
            settings_errors=form_messages(error, SETTINGS_LABELS, SETTINGS_UNREADABLE),
        )
    turn = due_card.save_settings(
        session, user_id=user_id, settings=settings, snapshot=snapshot, assigned=assigned, now=now
    )
    oob = is_htmx(request)
    return render(
        request,
        "practice.html",
        "_practice_settings.html",
        **_context(turn),
        settings_saved=True,
        card_oob=oob,
        summary_oob=oob,
    )
