"""What every route of one session needs: the person's own session (another's is a 404), the cards
as served now, the time, and where its questions are said aloud; and which mock interviews the
person has been assigned."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.accounts.dependencies import UserIdDep
from app.content.cards import Card
from app.content.dependencies import CatalogueDep
from app.interview import service
from app.interview.models import InterviewSession
from app.practice.dependencies import NowDep
from app.schemas import Id
from app.speech.dependencies import AskerDep
from app.speech.voicing import Asker
from app.storage.dependencies import WriteSessionDep


@dataclass(frozen=True)
class Sitting:
    session: Session
    interview: InterviewSession
    cards: Mapping[str, Card]
    now: datetime
    asker: Asker


def get_sitting(
    session: WriteSessionDep,
    user_id: UserIdDep,
    catalogue: CatalogueDep,
    now: NowDep,
    session_id: Id,
    asker: AskerDep,
) -> Sitting:
    interview = service.own_session(session, user_id=user_id, session_id=session_id)
    return Sitting(session, interview, catalogue.snapshot().cards, now, asker)


# Declared after a route's form or body, so the body is read before the session is taken.
SittingDep = Annotated[Sitting, Depends(get_sitting)]


# Called with the keywords session, user_id, snapshot and now: the ids of the mock interviews
# assigned to the person and still to do. Assignments belong to the team area, which this one may
# not import, so app/factory.py hands the team's answer in.
AssignedInterviews = Callable[..., list[int]]


def none_assigned(**_: object) -> list[int]:
    """Where no area assigns mock interviews (an app built without the team area)."""
    return []


async def assigned_interviews(request: Request) -> AssignedInterviews:
    found: AssignedInterviews = getattr(request.app.state, "assigned_interviews", none_assigned)
    return found


AssignedInterviewsDep = Annotated[AssignedInterviews, Depends(assigned_interviews)]
