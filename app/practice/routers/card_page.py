"""The card page and what a person does on it: answer, reveal, self-assess, follow-ups, quiz."""

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import ValidationError
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep, CatalogueDep, tier_or_422
from app.content.model import Card
from app.content.tiers import TIERS, Tier, default_answer_kind, go_deeper_tiers, sees
from app.exceptions import Invalid
from app.practice import attempts, quiz
from app.practice.dependencies import attempt_or_404
from app.practice.schemas import RATINGS, Assessment, AttemptIn
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.errors import error_messages
from app.web.page_cache import cacheable
from app.web.templating import render

router = APIRouter(tags=["pages"])

AnswerKind = Annotated[str | None, Query(pattern="^(basics|solid)$")]


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
    request: Request, card: CardDep, tier: Annotated[str | None, Query()] = None, kind: AnswerKind = None
) -> HTMLResponse:
    """Depends only on the URL and the card, so it is served from the page cache; the person's
    history and a freshly shuffled quiz load into it by htmx."""
    chosen = tier_or_422(tier, card.level)
    return cacheable(
        render(
            request,
            "card.html",
            "_card_tier.html",
            **_visible(card, chosen),
            answer_kind=_answer_kind(chosen, kind),
        )
    )


@router.get("/cards/{card_id}/history", response_class=HTMLResponse)
def card_history(request: Request, card: CardDep, session: SessionDep, user_id: UserIdDep) -> HTMLResponse:
    return render(
        request, "_history.html", card=card, history=attempts.history(session, user_id, card.id, limit=20)
    )


@router.get("/cards/{card_id}/reveal", response_class=HTMLResponse)
def reveal_model_answer(
    request: Request, card: CardDep, tier: Annotated[str | None, Query()] = None, kind: AnswerKind = None
) -> HTMLResponse:
    chosen = tier_or_422(tier, card.level)
    return render(
        request,
        "_model_answer.html",
        **_visible(card, chosen),
        answer_kind=_answer_kind(chosen, kind),
        revealed=True,
    )


def _attempt_from_form(form: FormData, kind: str) -> AttemptIn:
    follow_up = form.get("follow_up")
    return AttemptIn.model_validate(
        {
            "tier": form.get("tier"),
            "kind": kind,
            "text": form.get("text"),
            "seconds": form.get("seconds") or 0,
            "follow_up": follow_up if follow_up not in (None, "") else None,
            "choices": form.getlist("choices") if kind == "quiz" else None,
        },
        strict=False,
    )


def _validated(form: FormData, card: Card, kind: str) -> AttemptIn | list[str]:
    """The attempt the form describes, or the messages that say what is wrong with it."""
    try:
        data = _attempt_from_form(form, kind)
        attempts.check_against_card(card, data)
    except (ValidationError, Invalid) as error:
        return error_messages(error, whole="answer")
    return data


@router.post("/cards/{card_id}/answers", response_class=HTMLResponse)
def submit_answer(
    request: Request, form: FormDep, card: CardDep, session: WriteSessionDep, user_id: UserIdDep
) -> HTMLResponse:
    kind = str(form.get("kind") or "")
    if kind not in ("basics", "solid", "follow-up"):
        raise HTTPException(status_code=422, detail="kind must be basics, solid or follow-up")
    data = _validated(form, card, kind)
    tier = tier_or_422(str(form.get("tier") or ""), card.level)
    context = _visible(card, tier)
    if kind == "follow-up":
        index = _follow_up_index(card, form.get("follow_up"))
        context |= {"index": index, "follow_up": card.follow_ups[index]}
        template = "_follow_up.html"
    else:
        context |= {"answer_kind": kind}
        template = "_answer_panel.html"
    if isinstance(data, list):
        return render(
            request,
            template,
            status_code=422,
            errors=data,
            text=form.get("text") or "",
            seconds=form.get("seconds") or "",
            **context,
        )
    attempt = attempts.record(session, card, user_id, data)
    return render(request, template, attempt=attempt, **context)


def _follow_up_index(card: Card, value: object) -> int:
    try:
        index = int(str(value))
    except ValueError:
        index = -1
    if not 0 <= index < len(card.follow_ups):
        raise HTTPException(status_code=422, detail=f"follow_up must be 0 to {len(card.follow_ups) - 1}")
    return index


@router.post("/attempts/{attempt_id}/assessment", response_class=HTMLResponse)
def assess_attempt(
    request: Request,
    form: FormDep,
    catalogue: CatalogueDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    attempt_id: int,
) -> HTMLResponse:
    attempt = attempt_or_404(session, user_id, attempt_id)
    card = catalogue.get(attempt.card_id)
    if card is None:
        raise HTTPException(status_code=404, detail=f"the card '{attempt.card_id}' is no longer served")
    try:
        data = Assessment.model_validate(
            {"points": form.getlist("points"), "rating": form.get("rating")}, strict=False
        )
        attempts.assess(session, card, attempt, data)
    except (ValidationError, Invalid) as error:
        return render(
            request,
            "_assessment.html",
            status_code=422,
            errors=error_messages(error, whole="answer"),
            attempt=attempt,
            card=card,
            ratings=RATINGS,
        )
    return render(
        request,
        "_assessment.html",
        attempt=attempt,
        card=card,
        ratings=RATINGS,
        saved=True,
        history=attempts.history(session, user_id, card.id, limit=20),
    )


@router.post("/cards/{card_id}/quiz", response_class=HTMLResponse)
def submit_quiz(
    request: Request, form: FormDep, card: CardDep, session: WriteSessionDep, user_id: UserIdDep
) -> HTMLResponse:
    data = _validated(form, card, "quiz")
    order = [str(item) for item in form.getlist("order")]
    if isinstance(data, list):
        return render(
            request,
            "_quiz.html",
            status_code=422,
            errors=data,
            card=card,
            tier=form.get("tier"),
            quiz_items=quiz.quiz_items(card),
        )
    attempt = attempts.record(session, card, user_id, data)
    return render(
        request,
        "_quiz.html",
        card=card,
        tier=data.tier,
        attempt=attempt,
        marked=quiz.mark(card, data.choices or [], order),
        history=attempts.history(session, user_id, card.id, limit=20),
    )


@router.get("/cards/{card_id}/quiz", response_class=HTMLResponse)
def quiz_form(request: Request, card: CardDep, tier: Annotated[str | None, Query()] = None) -> HTMLResponse:
    """A freshly shuffled quiz; the card page loads it into place."""
    chosen = tier_or_422(tier, card.level)
    return render(request, "_quiz.html", **_visible(card, chosen), quiz_items=quiz.quiz_items(card))
