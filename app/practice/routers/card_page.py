"""The card page and what a person does on it: answer, reveal, self-assess, follow-ups, quiz."""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep, chosen_tier
from app.content.model import Card
from app.content.tiers import TIERS, Tier, default_answer_kind, go_deeper_tiers, parse_tier, sees
from app.exceptions import Invalid, NotFound
from app.practice import attempts, quiz, suggestions
from app.practice.dependencies import NowDep, QuizKeyDep, own_attempt
from app.practice.routers.forms import ANSWER_LABELS, ANSWER_UNREADABLE, RATING_CHOICES, rating_messages
from app.practice.schemas import RATINGS, Assessment, AttemptIn
from app.schemas import Id
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.messages import form_messages, sentence
from app.web.page_cache import cacheable
from app.web.templating import render

router = APIRouter(tags=["pages"])

# The page labels the tier "Depth" and the answer kind "Answer length".
DEPTH = "Depth"
ANSWER_KINDS = ("basics", "solid")
AnswerKind = Annotated[Literal["basics", "solid"] | None, Query(title="Answer length")]
TierParam = Annotated[str | None, Query(max_length=20, title=DEPTH)]

RATING_CHOICE = f"Choose how it went: {RATING_CHOICES}"
QUIZ_UNREADABLE = "The quiz could not be read; send it again"
HISTORY_LIMIT = 20


def _visible(card: Card, tier: Tier) -> dict[str, Any]:
    return {
        "card": card,
        "tier": tier,
        "tiers": TIERS,
        "sees_solid": sees(tier, "solid"),
        "sees_follow_ups": sees(tier, "follow_ups"),
        "sees_deep_dive": sees(tier, "deep_dive"),
        "go_deeper_tiers": go_deeper_tiers(tier),
        "ratings": RATINGS,
    }


def _answer_kind(tier: Tier, requested: str | None) -> str:
    return requested or default_answer_kind(tier)


@router.get("/cards/{card_id}", response_class=HTMLResponse)
async def card_page(
    request: Request, *, card: CardDep, tier: TierParam = None, kind: AnswerKind = None
) -> HTMLResponse:
    """Depends only on the URL and the card, so it is served from the page cache; the person's
    history and a freshly shuffled quiz load into it by htmx."""
    chosen = chosen_tier(tier, card.level, DEPTH)
    return cacheable(
        render(
            request,
            "card.html",
            "_card_tier.html",
            **_visible(card, chosen),
            answer_kind=_answer_kind(chosen, kind),
        )
    )


def _history(session: Session, *, user_id: int, card: Card, now: datetime) -> dict[str, Any]:
    """What _history.html shows. `owner` keys the drafts the browser keeps (static/js/card.js),
    so people taking turns in one browser never see each other's."""
    return {
        "card": card,
        "history": attempts.history(session, user_id=user_id, card_id=card.id, limit=HISTORY_LIMIT),
        "now": now,
        "owner": user_id,
    }


@router.get("/cards/{card_id}/history", response_class=HTMLResponse)
def card_history(
    request: Request, *, card: CardDep, session: SessionDep, user_id: UserIdDep, now: NowDep
) -> HTMLResponse:
    return render(request, "_history.html", **_history(session, user_id=user_id, card=card, now=now))


def _form_tier(form: FormData, card: Card) -> tuple[Tier, str]:
    """The tier to show the form at, and the value to validate: a tier in any case, or the raw
    value when it names none (validation then says the form could not be read)."""
    raw = str(form.get("tier") or "")
    tier = parse_tier(raw, card.level)
    return (tier, tier) if tier is not None else (card.level, raw)


def _attempt_from_form(
    form: FormData, *, tier: str, kind: str, revealed: bool = False, deal: quiz.Deal | None = None
) -> AttemptIn:
    """`deal`, for a quiz: the one its form was dealt by, which names the choices' stable ids."""
    follow_up = form.get("follow_up")
    return AttemptIn.model_validate(
        {
            "tier": tier,
            "kind": kind,
            # A reveal keeps nothing typed: an answer finished after seeing the model one is a copy.
            "text": None if revealed or kind == "quiz" else form.get("text"),
            "seconds": form.get("seconds") or 0,
            "follow_up": follow_up if follow_up not in (None, "") else None,
            "choices": deal.stable_ids([str(c) for c in form.getlist("choices")]) if deal else None,
            "revealed": revealed,
            "recording_id": None if revealed or kind == "quiz" else form.get("recording_id") or None,
        },
        strict=False,
    )


def _validated(
    form: FormData,
    *,
    card: Card,
    tier: str,
    kind: str,
    unreadable: str,
    revealed: bool = False,
    deal: quiz.Deal | None = None,
) -> AttemptIn | list[str]:
    """The attempt the form describes, or the sentences that say what is wrong with it."""
    try:
        data = _attempt_from_form(form, tier=tier, kind=kind, revealed=revealed, deal=deal)
        attempts.check_against_card(card, data)
    except (ValidationError, Invalid) as error:
        return form_messages(error, ANSWER_LABELS, unreadable)
    return data


def _kept(form: FormData, errors: list[str]) -> dict[str, Any]:
    """A refused form comes back with what the person typed and the time they had taken, so
    neither the answer nor the countdown starts over."""
    return {"errors": errors, "text": form.get("text") or "", "seconds": form.get("seconds") or ""}


@router.post("/cards/{card_id}/answers", response_class=HTMLResponse)
def submit_answer(
    request: Request,
    *,
    form: FormDep,
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
) -> HTMLResponse:
    kind = str(form.get("kind") or "")
    if kind not in ("basics", "solid", "follow-up"):
        raise Invalid("kind", ANSWER_UNREADABLE)
    tier, checked_tier = _form_tier(form, card)
    context = _visible(card, tier)
    if kind == "follow-up":
        index = _follow_up_index(card, form.get("follow_up"))
        context |= {"index": index, "follow_up": card.follow_ups[index]}
        template = "_follow_up.html"
    else:
        context |= {"answer_kind": kind}
        template = "_answer_panel.html"
    data = _validated(form, card=card, tier=checked_tier, kind=kind, unreadable=ANSWER_UNREADABLE)
    if isinstance(data, list):
        return render(request, template, status_code=422, **context, **_kept(form, data))
    try:
        attempt = attempts.record(session, card=card, user_id=user_id, data=data, now=now)
    except Invalid as error:  # the recording it names cannot be saved from: the typing stays
        return render(request, template, status_code=422, **context, **_kept(form, [sentence(error.message)]))
    suggestion = suggestions.shown(session, card=card, attempt=attempt)
    return render(request, template, attempt=attempt, suggestion=suggestion, **context)


@router.post("/cards/{card_id}/reveal", response_class=HTMLResponse)
def reveal_without_answering(
    request: Request,
    *,
    form: FormDep,
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
) -> HTMLResponse:
    """Show the model answer before any answer: recorded as such, and scheduled as a miss."""
    tier, checked_tier = _form_tier(form, card)
    kind = str(form.get("kind") or "")
    shown_kind = kind if kind in ANSWER_KINDS else default_answer_kind(tier)
    context = _visible(card, tier) | {"answer_kind": shown_kind}
    data = _validated(
        form, card=card, tier=checked_tier, kind=kind, unreadable=ANSWER_UNREADABLE, revealed=True
    )
    if isinstance(data, list):
        return render(request, "_answer_panel.html", status_code=422, **context, **_kept(form, data))
    attempt = attempts.record(session, card=card, user_id=user_id, data=data, now=now)
    # The reveal is final, so the history beside it shows it at once.
    return render(
        request,
        "_answer_panel.html",
        attempt=attempt,
        **context | _history(session, user_id=user_id, card=card, now=now),
    )


def _follow_up_index(card: Card, value: object) -> int:
    try:
        index = int(str(value))
    except ValueError:
        index = -1
    if not 0 <= index < len(card.follow_ups):
        raise Invalid("follow_up", ANSWER_UNREADABLE)
    return index


@router.post("/attempts/{attempt_id}/assessment", response_class=HTMLResponse)
def assess_attempt(
    request: Request,
    *,
    form: FormDep,
    catalogue: CatalogueDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    attempt_id: Id,
) -> HTMLResponse:
    attempt = own_attempt(session, user_id=user_id, attempt_id=attempt_id)
    card = catalogue.get(attempt.card_id)
    if card is None:
        raise NotFound(f"the card '{attempt.card_id}' is no longer served")
    try:
        data = Assessment.model_validate(
            {"points": form.getlist("points"), "rating": form.get("rating")}, strict=False
        )
        attempts.assess(session, card=card, attempt=attempt, data=data)
    except (ValidationError, Invalid) as error:
        return render(
            request,
            "_assessment.html",
            status_code=422,
            errors=rating_messages(error, RATING_CHOICE),
            attempt=attempt,
            kept_ticks=[str(point) for point in form.getlist("points")],  # theirs, not the suggestion's
            card=card,
            ratings=RATINGS,
        )
    return render(
        request,
        "_assessment.html",
        attempt=attempt,
        ratings=RATINGS,
        saved=True,
        **_history(session, user_id=user_id, card=card, now=now),
    )


@router.post("/cards/{card_id}/quiz", response_class=HTMLResponse)
def submit_quiz(
    request: Request,
    *,
    form: FormDep,
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    key: QuizKeyDep,
) -> HTMLResponse:
    tier, checked_tier = _form_tier(form, card)
    deal = quiz.Deal(card, key, str(form.get("deal") or ""))
    order = deal.known(str(item) for item in form.getlist("order"))
    data = _validated(form, card=card, tier=checked_tier, kind="quiz", unreadable=QUIZ_UNREADABLE, deal=deal)
    if isinstance(data, list):
        # Shown again as the person saw it, with their ticks, under the same deal.
        shown = quiz.mark(card, choices=deal.known(str(c) for c in form.getlist("choices")), order=order)
        return render(
            request,
            "_quiz.html",
            status_code=422,
            errors=data,
            card=card,
            tier=tier,
            deal=deal.token,
            dealt=deal.shown(m.item for m in shown),
            ticked={m.item.id for m in shown if m.marked},
            seconds=form.get("seconds") or "",
        )
    attempt = attempts.record(session, card=card, user_id=user_id, data=data, now=now)
    return render(
        request,
        "_quiz.html",
        tier=data.tier,
        attempt=attempt,
        marked=quiz.mark(card, choices=data.choices or [], order=order),
        **_history(session, user_id=user_id, card=card, now=now),
    )


@router.get("/cards/{card_id}/quiz", response_class=HTMLResponse)
def quiz_form(request: Request, *, card: CardDep, key: QuizKeyDep, tier: TierParam = None) -> HTMLResponse:
    """A freshly shuffled quiz, under a deal of its own; the card page loads it into place."""
    chosen = chosen_tier(tier, card.level, DEPTH)
    deal = quiz.Deal(card, key)
    return render(
        request,
        "_quiz.html",
        **_visible(card, chosen),
        deal=deal.token,
        dealt=deal.shown(quiz.quiz_items(card)),
    )
