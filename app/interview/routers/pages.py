"""/interview: setting up a mock interview, answering and assessing its questions one step at a
time, and its summary."""

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.dependencies import UserIdDep
from app.content.catalogue import Snapshot
from app.content.dependencies import CatalogueDep
from app.content.tiers import TIERS
from app.exceptions import Conflict, Invalid
from app.interview import service
from app.interview.dependencies import AssignedInterviewsDep, Sitting, SittingDep
from app.interview.schemas import (
    DEFAULT_QUESTIONS,
    MAX_QUESTIONS,
    OFFERED,
    OFFERED_MINUTES,
    OUTCOMES,
    InterviewIn,
    PassIn,
)
from app.practice.dependencies import (
    ANSWER_UNREADABLE,
    RATING_CHOICES,
    AnswerFormDep,
    AssignedCardsDep,
    NowDep,
    ReaderDep,
    rating_messages,
)
from app.practice.schemas import RATINGS, Assessment
from app.storage.dependencies import SessionDep, WriteSessionDep
from app.web.dependencies import FormDep
from app.web.messages import form_messages, sentence
from app.web.panels import Panels, PanelsDep
from app.web.templating import render

router = APIRouter(tags=["interview"])

SETUP_LABELS = {
    "source": "Cards",
    "tier": "Depth",
    "count": "How many",
    "topic": "Topic",
    "cards": "Cards",
    "minutes": "Time for the whole interview",
    "assignment": "Assigned interview",
}
SETUP_FIELDS = ("source", "tier", "count", "topic", "minutes", "assignment")
SETUP_UNREADABLE = "The interview's set-up could not be read; send it again"
RATING_CHOICE = f"Choose how it went: {RATING_CHOICES}"
# Hands-free, a recording stops after this long without speech (static/js/recorder.js reads it
# from the page).
SILENCE_SECONDS = 3
PASS_UNREADABLE = (
    f"Pass over a question with one of its buttons: {', '.join(p.button for p in OUTCOMES.values())}"
)


def _setup(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    extras: Panels,
    now: datetime,
    form: Mapping[str, Any],
) -> dict[str, Any]:
    """What interview.html shows: the set-up form (as sent, when refused), the box other areas add,
    the person's unfinished and past sessions."""
    return {
        "form": form,
        "sources": OFFERED,
        "tiers": TIERS,
        "max_questions": MAX_QUESTIONS,
        "minutes": OFFERED_MINUTES,
        "topics": snapshot.library.topics,
        "listing": service.listing(session, user_id=user_id, cards=snapshot.cards),
        "panels": extras.fill("interview", session=session, user_id=user_id, snapshot=snapshot, now=now),
    }


@router.get("/interview", response_class=HTMLResponse)
def interview_page(
    request: Request,
    *,
    session: SessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    extras: PanelsDep,
) -> HTMLResponse:
    form = {"source": "random", "tier": "middle", "count": DEFAULT_QUESTIONS, "topic": "", "minutes": ""}
    context = _setup(
        session, user_id=user_id, snapshot=catalogue.snapshot(), extras=extras, now=now, form=form
    )
    return render(request, "interview.html", **context)


def _interview_in(form: FormData) -> InterviewIn:
    fields: dict[str, Any] = {key: form.get(key) for key in SETUP_FIELDS if form.get(key)}
    if form.getlist("card"):
        fields["cards"] = form.getlist("card")
    if form.get("spoken"):
        fields["spoken"] = form.get("spoken") == "on"
    return InterviewIn.model_validate(fields, strict=False)


def _setup_messages(error: ValidationError | Invalid) -> list[str]:
    """What a refused set-up says: the service's reason, or each field's problem; a rule across
    fields (named cards, a topic) says itself."""
    if isinstance(error, Invalid):
        return [sentence(error.message)]
    across = [item["ctx"]["error"] for item in error.errors() if not item["loc"] and "ctx" in item]
    return [sentence(str(reason)) for reason in across] or form_messages(
        error, SETUP_LABELS, SETUP_UNREADABLE
    )


@router.post("/interview", response_class=HTMLResponse)
def start_interview(
    request: Request,
    *,
    form: FormDep,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    extras: PanelsDep,
    assigned: AssignedCardsDep,
    assigned_interviews: AssignedInterviewsDep,
) -> Response:
    snapshot = catalogue.snapshot()
    asking = {"session": session, "user_id": user_id, "snapshot": snapshot, "now": now}
    try:
        data = _interview_in(form)
        interview = service.start(
            session,
            user_id=user_id,
            cards=snapshot.cards,
            data=data,
            assigned=assigned(**asking) if data.source == "assigned" else [],
            now=now,
            assignments=assigned_interviews(**asking) if data.assignment is not None else [],
        )
    except (ValidationError, Invalid) as error:
        kept = {key: str(form.get(key) or "") for key in (*SETUP_FIELDS, "spoken")}
        context = _setup(session, user_id=user_id, snapshot=snapshot, extras=extras, now=now, form=kept)
        return render(request, "interview.html", status_code=422, **context, errors=_setup_messages(error))
    return RedirectResponse(f"/interview/{interview.id}", status_code=303)


def _page(request: Request, page: service.Page, status_code: int = 200, **extra: Any) -> HTMLResponse:
    return render(
        request,
        "interview_session.html",
        "_interview_step.html",
        status_code=status_code,
        **_context(page),
        **extra,
    )


def _context(page: service.Page) -> dict[str, Any]:
    """What the session's page shows now: the step it is at, or the summary once finished."""
    context: dict[str, Any] = {
        "interview": page.interview,
        "step": page.step,
        "ratings": RATINGS,
        "outcomes": OUTCOMES,
    }
    step = page.step
    if step is None:
        return context | {"summary": page.summary}
    kind = service.answer_kind(page.interview, step.question)
    return context | {
        "card": step.card,
        "tier": page.interview.tier,
        "answer_kind": kind,
        "limit": service.target(page.interview, card=step.card, question=step.question),
        "attempt": step.question.attempt,
        "suggestion": page.suggestion,
        "delivery": page.delivery,
        "audio_url": page.audio_url,
        "silence_seconds": SILENCE_SECONDS,
        "seconds_left": page.seconds_left,
    }


@router.get("/interview/{session_id}", response_class=HTMLResponse)
def interview_session(request: Request, *, sitting: SittingDep) -> HTMLResponse:
    # A write session: the session may be found finished here, and that is recorded.
    return _page(request, _as_it_stands(sitting))


def _as_it_stands(sitting: Sitting) -> service.Page:
    return service.page(
        sitting.session,
        interview=sitting.interview,
        cards=sitting.cards,
        now=sitting.now,
        asker=sitting.asker,
    )


def _position(form: FormData) -> int:
    text = str(form.get("position") or "")
    if not (text.isascii() and text.isdigit() and len(text) <= 4):
        raise Invalid("position", ANSWER_UNREADABLE)
    return int(text)


@router.post("/interview/{session_id}/answer", response_class=HTMLResponse)
def answer_question(
    request: Request, *, answer: AnswerFormDep, sitting: SittingDep, reader: ReaderDep
) -> HTMLResponse:
    interview, cards = sitting.interview, sitting.cards
    position = _position(answer.form)
    try:
        asked = service.asked(interview, cards)
        data = answer.attempt(tier=interview.tier, kind=asked.kind, follow_up=asked.follow_up)
        page = service.answer(
            sitting.session,
            interview=interview,
            cards=cards,
            position=position,
            data=data,
            now=sitting.now,
            reader=reader,
            asker=sitting.asker,
        )
    except (Conflict, ValidationError, Invalid) as error:
        page = _as_it_stands(sitting)
        if isinstance(error, Conflict):
            return _stale(request, page=page, error=error)
        return answer.refused(
            "interview_session.html",
            fragment="_interview_step.html",
            errors=answer.messages(error),
            **_context(page),
        )
    return _page(request, page)


def _stale(request: Request, *, page: service.Page, error: Conflict) -> HTMLResponse:
    """A form sent twice or from an older tab: the step as it now stands, saying so. A 422, which
    htmx swaps in (a 409 would only raise the generic toast)."""
    return _page(request, page, 422, errors=[sentence(error.message)])


def _refused(
    request: Request,
    sitting: Sitting,
    error: Conflict | ValidationError | Invalid,
    errors: Callable[[ValidationError | Invalid], list[str]],
    **extra: Any,
) -> HTMLResponse:
    """A refused rating or pass: the step as it now stands, saying it is stale, or what `errors`
    makes of the refusal."""
    page = _as_it_stands(sitting)
    if isinstance(error, Conflict):
        return _stale(request, page=page, error=error)
    return _page(request, page, 422, errors=errors(error), **extra)


def _pass_messages(error: ValidationError | Invalid) -> list[str]:
    return [sentence(error.message if isinstance(error, Invalid) else PASS_UNREADABLE)]


@router.post("/interview/{session_id}/assessment", response_class=HTMLResponse)
def assess_answer(request: Request, *, form: FormDep, sitting: SittingDep) -> HTMLResponse:
    try:
        position = _position(form)
        data = Assessment.model_validate(
            {"points": form.getlist("points"), "rating": form.get("rating")}, strict=False
        )
        page = service.assess(
            sitting.session,
            interview=sitting.interview,
            cards=sitting.cards,
            position=position,
            data=data,
            now=sitting.now,
            asker=sitting.asker,
        )
    except (Conflict, ValidationError, Invalid) as error:
        # Their ticks, not the suggestion's.
        kept = [str(point) for point in form.getlist("points")]
        return _refused(
            request, sitting, error, lambda failed: rating_messages(failed, RATING_CHOICE), kept_ticks=kept
        )
    return _page(request, page)


@router.post("/interview/{session_id}/pass", response_class=HTMLResponse)
def pass_question(request: Request, *, form: FormDep, sitting: SittingDep) -> HTMLResponse:
    """Skip, or "I don't know": the question is kept as passed over, and the next one asked."""
    try:
        position = _position(form)
        data = PassIn.model_validate(
            {"outcome": form.get("outcome"), "seconds": form.get("seconds") or 0}, strict=False
        )
        page = service.pass_over(
            sitting.session,
            interview=sitting.interview,
            cards=sitting.cards,
            position=position,
            outcome=data.outcome,
            seconds=data.seconds,
            now=sitting.now,
            asker=sitting.asker,
        )
    except (Conflict, ValidationError, Invalid) as error:
        return _refused(request, sitting, error, _pass_messages)
    return _page(request, page)
