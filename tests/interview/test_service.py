"""The mock interview's rules on a database session: which step a session is at, answering and
assessing only that step, the summary's weakest cards, and a person's list kept short."""

from datetime import timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.accounts.models import LOCAL_USER_ID
from app.exceptions import Conflict, Invalid
from app.interview import service
from app.interview.models import InterviewSession
from app.interview.schemas import InterviewIn
from app.practice.models import Attempt
from app.practice.schemas import Assessment, AttemptIn
from app.storage.base import utcnow
from tests.factories import DECK

CARDS = [card.id for card in DECK.values() if card.follow_ups][:3]


def begin(app: FastAPI, **fields: object) -> int:
    with app.state.db.write_sessions() as session:
        data = InterviewIn.model_validate({"source": "cards", "cards": CARDS} | fields)
        interview = service.start(
            session, user_id=LOCAL_USER_ID, cards=DECK, data=data, assigned=[], now=utcnow()
        )
        return interview.id


def go_through(app: FastAPI, session_id: int, ratings: list[str]) -> None:
    """Answer and rate the session's next questions, one rating each."""
    for rating in ratings:
        with app.state.db.write_sessions() as session:
            interview = service.own_session(session, user_id=LOCAL_USER_ID, session_id=session_id)
            step = service.step(interview, DECK)
            assert step is not None and not step.assessing
            kind = service.answer_kind(interview, step.question)
            data = AttemptIn(
                tier="middle", kind=kind, text="an answer", seconds=5.0, follow_up=step.question.follow_up
            )
            at = step.question.position
            service.answer(session, interview=interview, cards=DECK, position=at, data=data, now=utcnow())
            assert service.step(interview, DECK) == service.Step(
                step.question, step.card, True, step.number, 3
            )
            with pytest.raises(Conflict):  # the same answer sent again
                service.answer(session, interview=interview, cards=DECK, position=at, data=data, now=utcnow())
            points = [step.card.points[0].key] if step.question.follow_up is None else []
            assessment = Assessment(rating=rating, points=points)  # type: ignore[arg-type]
            service.assess(
                session, interview=interview, cards=DECK, position=at, data=assessment, now=utcnow()
            )


def test_each_card_is_followed_by_one_follow_up_and_the_last_rating_finishes(app: FastAPI) -> None:
    session_id = begin(app, tier="middle")
    with app.state.db.read_sessions() as session:
        interview = service.own_session(session, user_id=LOCAL_USER_ID, session_id=session_id)
        asked = [(q.card_id, q.follow_up, q.why) for q in interview.questions]
    # The main questions only: each follow-up is chosen once its card's answer is in.
    assert asked == [(card_id, None, None) for card_id in CARDS]
    go_through(app, session_id, ["good", "easy", "again", "good", "hard", "good"])
    with app.state.db.read_sessions() as session:
        interview = service.own_session(session, user_id=LOCAL_USER_ID, session_id=session_id)
        assert interview.finished_at is not None and service.step(interview, DECK) is None
        summary = service.summary(session, interview=interview, cards=DECK)
    assert [main.question.card_id for main, _ in summary.cards] == CARDS
    assert [len(follow_ups) for _, follow_ups in summary.cards] == [1, 1, 1]
    # Weakest first: "again" before "hard"; the "good" card is left out.
    assert [a.question.card_id for a in summary.weakest] == [CARDS[1], CARDS[2]]


def test_a_refused_start_stores_nothing(app: FastAPI) -> None:
    with app.state.db.write_sessions() as session:
        for data in (
            InterviewIn(source="cards", cards=["no-such-card"]),
            InterviewIn(source="assigned"),
            InterviewIn(source="due"),
        ):
            with pytest.raises(Invalid):
                service.start(
                    session, user_id=LOCAL_USER_ID, cards=DECK, data=data, assigned=[], now=utcnow()
                )
        assert session.scalar(select(func.count()).select_from(InterviewSession)) == 0


def test_the_list_of_sessions_is_newest_first_and_capped(app: FastAPI) -> None:
    start = utcnow()
    with app.state.db.write_sessions() as session:
        data = InterviewIn(source="cards", cards=CARDS[:1])
        made = [
            service.start(
                session,
                user_id=LOCAL_USER_ID,
                cards=DECK,
                data=data,
                assigned=[],
                now=start + timedelta(seconds=n),
            ).id
            for n in range(service.LISTED + 3)
        ]
    with app.state.db.read_sessions() as session:
        listed = service.listing(session, user_id=LOCAL_USER_ID, cards=DECK)
    assert [s.id for s in listed.unfinished] == made[::-1][: service.LISTED]
    assert listed.finished == []


def test_an_answer_checked_against_a_step_answered_meanwhile_is_refused(app: FastAPI) -> None:
    session_id = begin(app, tier="junior", cards=CARDS[:1])
    data = AttemptIn(tier="junior", kind="basics", text="an answer", seconds=5.0)
    with app.state.db.write_sessions() as late:
        # The late writer read the session before the other answer was saved.
        stale = service.own_session(late, user_id=LOCAL_USER_ID, session_id=session_id)
        late.commit()
        with app.state.db.write_sessions() as first:
            interview = service.own_session(first, user_id=LOCAL_USER_ID, session_id=session_id)
            service.answer(first, interview=interview, cards=DECK, position=0, data=data, now=utcnow())
        with pytest.raises(Conflict) as refused:
            service.answer(late, interview=stale, cards=DECK, position=0, data=data, now=utcnow())
        assert "not the one this interview is at" in refused.value.message
    with app.state.db.read_sessions() as session:
        assert session.scalar(select(func.count()).select_from(Attempt)) == 1


def test_a_last_rating_sent_twice_keeps_when_the_first_finished_the_session(app: FastAPI) -> None:
    session_id = begin(app, tier="junior", cards=CARDS[:1])
    data = AttemptIn(tier="junior", kind="basics", text="an answer", seconds=5.0)
    with app.state.db.write_sessions() as session:
        interview = service.own_session(session, user_id=LOCAL_USER_ID, session_id=session_id)
        service.answer(session, interview=interview, cards=DECK, position=0, data=data, now=utcnow())
    rating = Assessment(rating="good", points=[])
    finished_at = utcnow() - timedelta(minutes=5)
    with app.state.db.write_sessions() as late:
        # The late request read the session before the first rating finished it.
        stale = service.own_session(late, user_id=LOCAL_USER_ID, session_id=session_id)
        late.commit()
        with app.state.db.write_sessions() as first:
            interview = service.own_session(first, user_id=LOCAL_USER_ID, session_id=session_id)
            service.assess(first, interview=interview, cards=DECK, position=0, data=rating, now=finished_at)
        with pytest.raises(Conflict):
            service.assess(late, interview=stale, cards=DECK, position=0, data=rating, now=utcnow())
        # The refused form's page shows the session as it now stands, and writes nothing.
        shown = service.page(late, interview=stale, cards=DECK, now=utcnow())
        assert shown.step is None
    with app.state.db.read_sessions() as session:
        stored = service.own_session(session, user_id=LOCAL_USER_ID, session_id=session_id)
        assert stored.finished_at == finished_at
