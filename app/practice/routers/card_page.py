"""The card page and what a person does on it: answer, reveal, self-assess, follow-ups, quiz."""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Catalogue
from app.content.dependencies import CardDep, CatalogueDep, chosen_tier
from app.content.model import Card
from app.content.tiers import TIERS, Tier, default_answer_kind, go_deeper_tiers, parse_tier, sees
from app.exceptions import Invalid, NotFound
from app.practice import attempts, preferences, quiz, scheduling, suggestions
from app.practice.assigned import AssignedCards
from app.practice.dependencies import AssignedCardsDep, NowDep, QuizKeyDep, own_attempt
from app.practice.models import Attempt
from app.practice.routers.forms import (
    ANSWER_LABELS,
    ANSWER_UNREADABLE,
    RATING_CHOICES,
    rating_messages,
    review_to_undo,
)
from app.practice.schemas import RATINGS, Assessment, AttemptIn
from app.schemas import Id, parse_id
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
RateParam = Annotated[str | None, Query(max_length=20, pattern="^[0-9]+$", title="Attempt to rate")]

RATING_CHOICE = f"Choose how it went: {RATING_CHOICES}"
# Where an assessment form stands: in the history (an answer rated after a reload), or beside the answer.
IN_HISTORY = "history"
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
    request: Request,
    *,
    card: CardDep,
    tier: TierParam = None,
    kind: AnswerKind = None,
    rate: RateParam = None,
) -> HTMLResponse:
    """Depends only on the URL and the card, so it is served from the page cache; the person's
    history and a freshly shuffled quiz load into it by htmx (the history with the answer `rate`
    names, which it offers to rate)."""
    chosen = chosen_tier(tier, card.level, DEPTH)
    return cacheable(
        render(
            request,
            "card.html",
            "_card_tier.html",
            **_visible(card, chosen),
            answer_kind=_answer_kind(chosen, kind),
            rate=rate,
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


def _waiting(
    session: Session, *, card: Card, history: list[Attempt], asked: Attempt | None
) -> list[dict[str, Any]]:
    """The answers the history offers to rate, each with what its panel showed after "Submit
    answer": the newest of each kind left unrated, and `asked`, one the person chose from the list."""
    chosen = attempts.awaiting_rating(history)
    if asked is not None and asked not in chosen and asked in attempts.awaiting_rating([asked]):
        chosen.insert(0, asked)
    shown = []
    for attempt in chosen:
        index = attempt.follow_up
        if attempt.kind == "follow-up" and (index is None or not 0 <= index < len(card.follow_ups)):
            continue  # a follow-up the card no longer has: nothing to compare the answer with
        tier = parse_tier(attempt.tier, card.level) or card.level
        shown.append(
            _visible(card, tier)
            | {
                "attempt": attempt,
                "answer_kind": attempt.kind,
                "follow_up": card.follow_ups[index]
                if attempt.kind == "follow-up" and index is not None
                else None,
                "suggestion": suggestions.shown(session, card=card, attempt=attempt),
            }
        )
    return shown


def _card_history(
    session: Session, *, user_id: int, card: Card, now: datetime, asked: Attempt | None = None
) -> dict[str, Any]:
    """_history.html as the card page loads it: with the answers still to rate."""
    context = _history(session, user_id=user_id, card=card, now=now)
    return context | {
        "waiting": _waiting(session, card=card, history=context["history"], asked=asked),
        "place": IN_HISTORY,
    }


@router.get("/cards/{card_id}/history", response_class=HTMLResponse)
def card_history(
    request: Request,
    *,
    card: CardDep,
    session: SessionDep,
    user_id: UserIdDep,
    now: NowDep,
    rate: RateParam = None,
) -> HTMLResponse:
    asked = None
    if rate is not None:
        attempt_id = parse_id(rate)
        if attempt_id is None:
            raise Invalid("rate", "the attempt to rate is named by its id")
        asked = own_attempt(session, user_id=user_id, attempt_id=attempt_id)
        if asked.card_id != card.id:
            raise NotFound(f"no attempt with id {attempt_id} on this card")
    return render(
        request, "_history.html", **_card_history(session, user_id=user_id, card=card, now=now, asked=asked)
    )


def _after_rating(
    session: Session,
    *,
    user_id: int,
    card: Card,
    attempt: Attempt,
    catalogue: Catalogue,
    now: datetime,
    assigned: AssignedCards,
) -> dict[str, Any]:
    """What the saved assessment says: when the card comes back, the Undo of this rating while it is
    the card's latest, and the card to practise next: the one /practice would serve, assigned new
    cards first."""
    row = scheduling.get_state(session, user_id=user_id, card_id=card.id, tier=attempt.tier)
    latest = scheduling.latest_review(session, user_id=user_id, card_id=card.id)
    after = {
        "comes_back": row.due if row is not None else None,
        "undo": latest if latest is not None and latest.attempt_id == attempt.id else None,
    }
    if attempt.kind == "follow-up":  # the card is still open: the next one is offered with its answer
        return after
    snapshot = catalogue.snapshot()
    queue = scheduling.served_queue(
        session,
        user_id=user_id,
        cards=snapshot.cards.values(),
        settings=preferences.load(session, user_id),
        now=now,
        first=assigned(session=session, user_id=user_id, snapshot=snapshot, now=now),
    )
    following = queue.next_other_than(card.id)
    return after | {
        "next_card": catalogue.get(following) if following else None,
        "next_is_new": following in queue.new,
        "next_tier": queue.tier,
    }


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


def _own_served(
    session: Session, *, catalogue: Catalogue, user_id: int, attempt_id: int
) -> tuple[Attempt, Card]:
    """The person's attempt and its card, which must still be served to rate against."""
    attempt = own_attempt(session, user_id=user_id, attempt_id=attempt_id)
    card = catalogue.get(attempt.card_id)
    if card is None:
        raise NotFound(f"the card '{attempt.card_id}' is no longer served")
    return attempt, card


@router.post("/attempts/{attempt_id}/assessment", response_class=HTMLResponse)
def assess_attempt(
    request: Request,
    *,
    form: FormDep,
    catalogue: CatalogueDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    assigned: AssignedCardsDep,
    attempt_id: Id,
) -> HTMLResponse:
    attempt, card = _own_served(session, catalogue=catalogue, user_id=user_id, attempt_id=attempt_id)
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
            place=IN_HISTORY if form.get("place") == IN_HISTORY else None,  # it stays where it stood
        )
    after = _after_rating(
        session, user_id=user_id, card=card, attempt=attempt, catalogue=catalogue, now=now, assigned=assigned
    )
    if form.get("place") == IN_HISTORY:
        context = _card_history(session, user_id=user_id, card=card, now=now)
        return render(request, "_history.html", **context | after, rated=attempt, ratings=RATINGS)
    return render(
        request,
        "_assessment.html",
        attempt=attempt,
        ratings=RATINGS,
        saved=True,
        **_history(session, user_id=user_id, card=card, now=now) | after,
    )


@router.post("/attempts/{attempt_id}/undo", response_class=HTMLResponse)
def undo_rating(
    request: Request,
    *,
    form: FormDep,
    catalogue: CatalogueDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    attempt_id: Id,
) -> HTMLResponse:
    """Take back the attempt's rating while it is the card's latest: the answer is to rate again."""
    attempt, card = _own_served(session, catalogue=catalogue, user_id=user_id, attempt_id=attempt_id)
    review_id = review_to_undo(form)
    attempts.take_back(session, user_id=user_id, card_id=card.id, review_id=review_id, attempt_id=attempt.id)
    if form.get("place") == IN_HISTORY:
        context = _card_history(session, user_id=user_id, card=card, now=now, asked=attempt)
        return render(request, "_history.html", **context)
    return render(
        request,
        "_assessment.html",
        attempt=attempt,
        ratings=RATINGS,
        suggestion=suggestions.shown(session, card=card, attempt=attempt),
        undone=True,
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
