"""The mock interviews a lead assigned, as leads see a member's: which the member took, and each
one's summary figures (times, points the checker found, pitfalls, pace, ratings). The answers'
texts only where the member lets leads read them (`User.hide_answers`): dropped here, not in the
template, so no page can show what was hidden."""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.cards import Card
from app.exceptions import NotFound
from app.interview import service as interviews
from app.interview.models import InterviewSession
from app.team.models import Assignment

# The assigned mock interviews a member's page lists: those of the newest SHOWN interview
# assignments, read along the assignment index, so years of sessions cost what a few do.
SHOWN = 10


def taken(session: Session, *, member: User) -> list[InterviewSession]:
    """The member's sessions of the newest SHOWN mock interviews assigned, newest first."""
    latest = (
        select(Assignment.id)
        .where(Assignment.kind == "interview")
        .order_by(Assignment.due.desc(), Assignment.id.desc())
        .limit(SHOWN)
    )
    query = (
        select(InterviewSession)
        .where(InterviewSession.assignment_id.in_(latest), InterviewSession.user_id == member.id)
        .order_by(InterviewSession.created_at.desc(), InterviewSession.id.desc())
        .limit(SHOWN)
    )
    return list(session.scalars(query))


def seen_summary(
    session: Session, *, member: User, session_id: int, cards: Mapping[str, Card]
) -> tuple[InterviewSession, interviews.Summary]:
    """One assigned session of the member's as leads see it; any other session of theirs is as
    unknown as a missing one."""
    interview = session.get(InterviewSession, session_id)
    if interview is None or interview.user_id != member.id or interview.assignment_id is None:
        raise NotFound(f"no assigned interview with id {session_id} for {member.name}")
    # The rows alone: the member's comparison with their last session, and the cards to practise
    # next, are theirs, not the lead's.
    full = interviews.answered(session, interview=interview, cards=cards)

    def seen(answered: interviews.Answered) -> interviews.Answered:
        if not member.hide_answers:
            return answered
        return replace(answered, text=None, delivery=_figures(answered.delivery))

    rows = [(seen(main), [seen(f) for f in follow_ups]) for main, follow_ups in full]
    return interview, interviews.Summary(rows, weakest=[], asked=len(rows))


def _figures(delivery: dict[str, Any] | None) -> dict[str, Any] | None:
    """How an answer was said, without the words said: its pauses and hedges quote them."""
    if delivery is None:
        return None
    return {
        "words_per_minute": delivery["words_per_minute"],
        "filler_count": delivery["filler_count"],
        "pauses": [{"seconds": pause["seconds"]} for pause in delivery["pauses"]],
    }
