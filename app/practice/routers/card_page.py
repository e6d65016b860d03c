"""The card page and what a person does on it: answer, reveal, self-assess, follow-ups, quiz."""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.cards import Card
from app.content.catalogue import Catalogue
from app.content.dependencies import CardDep, CatalogueDep, chosen_tier
from app.content.tiers import TIERS, Tier, default_answer_kind, go_deeper_tiers, parse_tier, sees
from app.exceptions import Invalid, NotFound
from app.practice import attempts, card_answers, quiz, suggestions
from app.practice.dependencies import (
    ANSWER_UNREADABLE,
    RATING_CHOICES,
    AnswerFormDep,
    AssignedCardsDep,
    NowDep,
    QuizKeyDep,
    ReaderDep,
    own_attempt,
    rating_messages,
    review_to_undo,
)
from app.practice.models import Attempt
from app.practice.schemas import RATINGS, Assessment
from app.schemas import Id, parse_id
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
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


def _history(history: card_answers.History, *, card: Card, user_id: int, now: datetime) -> dict[str, Any]:
    """What _history.html shows; with the answers still to rate when they were asked for. `owner`
    keys the drafts the browser keeps (static/js/card.js), so people taking turns in one browser
    never see each other's."""
    context: dict[str, Any] = {"card": card, "history": history.attempts, "now": now, "owner": user_id}
    if history.waiting is None:
        return context
    waiting = [
        _visible(card, item.tier)
        | {
            "attempt": item.attempt,
            "answer_kind": item.attempt.kind,
            "follow_up": item.follow_up,
            "suggestion": item.suggestion,
        }
        for item in history.waiting
    ]
    return context | {"waiting": waiting, "place": IN_HISTORY}


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
    history = card_answers.history(session, user_id=user_id, card=card, to_rate=True, asked=asked)
    return render(request, "_history.html", **_history(history, card=card, user_id=user_id, now=now))


def _form_tier(form: FormData, card: Card) -> tuple[Tier, str]:
    """The tier to show the form at, and the value to validate: a tier in any case, or the raw
    value when it names none (validation then says the form could not be read)."""
    raw = str(form.get("tier") or "")
    tier = parse_tier(raw, card.level)
    return (tier, tier) if tier is not None else (card.level, raw)


@router.post("/cards/{card_id}/answers", response_class=HTMLResponse)
def submit_answer(
    request: Request,
    *,
    answer: AnswerFormDep,
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    reader: ReaderDep,
) -> HTMLResponse:
    form = answer.form
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
    try:
        data = answer.attempt(tier=checked_tier, kind=kind, follow_up=form.get("follow_up"))
        recorded = attempts.record(session, card=card, user_id=user_id, data=data, now=now, reader=reader)
    except (ValidationError, Invalid) as error:  # a recording that cannot be saved from: the typing stays
        return answer.refused(template, errors=answer.messages(error), **context)
    return render(
        request,
        template,
        attempt=recorded.attempt,
        suggestion=recorded.suggestion,
        delivery=recorded.delivery,
        **context,
    )


@router.post("/cards/{card_id}/reveal", response_class=HTMLResponse)
def reveal_without_answering(
    request: Request,
    *,
    answer: AnswerFormDep,
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
) -> HTMLResponse:
    """Show the model answer before any answer: recorded as such, and scheduled as a miss."""
    tier, checked_tier = _form_tier(answer.form, card)
    kind = str(answer.form.get("kind") or "")
    shown_kind = kind if kind in ANSWER_KINDS else default_answer_kind(tier)
    context = _visible(card, tier) | {"answer_kind": shown_kind}
    try:
        data = answer.attempt(
            tier=checked_tier, kind=kind, follow_up=answer.form.get("follow_up"), revealed=True
        )
        revealed = card_answers.record(session, card=card, user_id=user_id, data=data, now=now)
    except (ValidationError, Invalid) as error:
        return answer.refused("_answer_panel.html", errors=answer.messages(error), **context)
    history = _history(revealed.history, card=card, user_id=user_id, now=now)
    return render(request, "_answer_panel.html", attempt=revealed.attempt, **context | history)


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


@router.get("/attempts/{attempt_id}/suggestion", response_class=HTMLResponse)
def attempt_suggestion(
    request: Request, *, attempt_id: Id, catalogue: CatalogueDep, session: SessionDep, user_id: UserIdDep
) -> HTMLResponse:
    """The suggestion on the person's answer as it stands: the fragment polls this while the
    entailment model's reading is on its way, and swaps in what it answers."""
    attempt, card = _own_served(session, catalogue=catalogue, user_id=user_id, attempt_id=attempt_id)
    suggestion = suggestions.of_attempt(session, card=card, attempt=attempt)
    return render(
        request,
        "suggestion.html",
        "_suggestions.html",
        card=card,
        suggestion=suggestion,
        arrived=suggestion.reading != "waiting",
    )


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
    in_history = form.get("place") == IN_HISTORY
    try:
        data = Assessment.model_validate(
            {"points": form.getlist("points"), "rating": form.get("rating")}, strict=False
        )
        assessed = card_answers.assess(
            session,
            user_id=user_id,
            card=card,
            attempt=attempt,
            data=data,
            snapshot=catalogue.snapshot(),
            assigned=assigned,
            now=now,
            to_rate=in_history,
        )
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
            place=IN_HISTORY if in_history else None,  # it stays where it stood
        )
    after = vars(assessed.after)
    history = _history(assessed.history, card=card, user_id=user_id, now=now)
    if in_history:
        return render(request, "_history.html", **history | after, rated=attempt, ratings=RATINGS)
    return render(
        request, "_assessment.html", attempt=attempt, ratings=RATINGS, saved=True, **history | after
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
    in_history = form.get("place") == IN_HISTORY
    taken = card_answers.take_back(
        session,
        user_id=user_id,
        card=card,
        attempt=attempt,
        review_id=review_to_undo(form),
        to_rate=in_history,
    )
    history = _history(taken.history, card=card, user_id=user_id, now=now)
    if in_history:
        return render(request, "_history.html", **history)
    return render(
        request,
        "_assessment.html",
        attempt=attempt,
        ratings=RATINGS,
        suggestion=taken.suggestion,
        undone=True,
        **history,
    )


@router.post("/cards/{card_id}/quiz", response_class=HTMLResponse)
def submit_quiz(
    request: Request,
    *,
    answer: AnswerFormDep,
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    now: NowDep,
    key: QuizKeyDep,
) -> HTMLResponse:
    form = answer.form
    tier, checked_tier = _form_tier(form, card)
    deal = quiz.Deal(card, key, str(form.get("deal") or ""))
    order = deal.known(str(item) for item in form.getlist("order"))
    try:
        # The choices by their stable ids, as named by the deal the form was dealt.
        choices = deal.stable_ids([str(c) for c in form.getlist("choices")])
        data = answer.attempt(
            tier=checked_tier, kind="quiz", follow_up=form.get("follow_up"), choices=choices
        )
        answered = card_answers.record(session, card=card, user_id=user_id, data=data, now=now)
    except (ValidationError, Invalid) as error:
        # Shown again as the person saw it, with their ticks, under the same deal.
        shown = quiz.mark(card, choices=deal.known(str(c) for c in form.getlist("choices")), order=order)
        return answer.refused(
            "_quiz.html",
            errors=answer.messages(error, QUIZ_UNREADABLE),
            card=card,
            tier=tier,
            deal=deal.token,
            dealt=deal.shown(m.item for m in shown),
            ticked={m.item.id for m in shown if m.marked},
        )
    return render(
        request,
        "_quiz.html",
        tier=data.tier,
        attempt=answered.attempt,
        marked=quiz.mark(card, choices=data.choices or [], order=order),
        **_history(answered.history, card=card, user_id=user_id, now=now),
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
