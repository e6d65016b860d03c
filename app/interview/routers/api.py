"""The mock interview's JSON API: start a session on named cards, answer (or pass over) the
question it is at and get the next one chosen from that answer, read the session back. A
session started here moves straight on after each answer; its answers are rated from the
summary's page."""

from fastapi import APIRouter, status

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CatalogueDep
from app.exceptions import NotFound
from app.interview import service
from app.interview.dependencies import SittingDep
from app.interview.schemas import (
    AnswerApiIn,
    AnsweredOut,
    InterviewApiIn,
    InterviewIn,
    StartedOut,
    SummaryOut,
)
from app.practice.dependencies import NowDep, ReaderDep
from app.speech.dependencies import AskerDep
from app.storage.dependencies import WriteSessionDep

router = APIRouter(prefix="/api", tags=["api", "interview"])


@router.post(
    "/interviews",
    status_code=status.HTTP_201_CREATED,
    responses={404: {"description": "A named card is not served"}},
)
def start_interview(
    *,
    data: InterviewApiIn,
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    asker: AskerDep,
) -> StartedOut:
    """A session on these cards, asked in this order at this depth; its first question."""
    cards = catalogue.snapshot().cards
    unknown = [card_id for card_id in data.cards if card_id not in cards]
    if unknown:  # as GET /api/cards/{card_id} answers an unknown id
        raise NotFound(f"no card with id '{unknown[0]}'")
    interview = service.start(
        session,
        user_id=user_id,
        cards=cards,
        data=InterviewIn(source="cards", tier=data.tier, cards=data.cards, spoken=True, minutes=data.minutes),
        assigned=[],
        now=now,
    )
    question = service.next_out(session, interview=interview, cards=cards, asker=asker)
    assert question is not None  # a new session asks its first card
    return StartedOut(id=interview.id, question=question)


@router.post(
    "/interviews/{session_id}/answers",
    responses={
        409: {"description": "The session is over, or waits for its last answer to be rated on its page"}
    },
)
def answer_question(*, data: AnswerApiIn, sitting: SittingDep, reader: ReaderDep) -> AnsweredOut:
    """The answer's coverage, and the next question: a follow-up chosen from what the answer
    missed or asserted, or the next card; `next` is null when the session is over."""
    return service.answer_api(
        sitting.session,
        interview=sitting.interview,
        cards=sitting.cards,
        data=data,
        now=sitting.now,
        reader=reader,
        asker=sitting.asker,
    )


@router.get("/interviews/{session_id}")
def interview_summary(*, sitting: SittingDep) -> SummaryOut:
    """Every question asked so far, why it was asked and what became of it; `next` is the one
    the session is at (null once it is over)."""
    session, interview, cards = sitting.session, sitting.interview, sitting.cards
    service.settle(session, interview=interview, cards=cards, now=sitting.now)
    return service.summary_out(session, interview=interview, cards=cards, asker=sitting.asker)
