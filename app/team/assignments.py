"""Assignments: the rules for making one, and when it is done.

A member has done an assignment when every assigned card has a review at its depth on or after
the assignment was made, whether it was assigned card by card or as a mock interview. Cards the
catalogue no longer serves cannot be reviewed, so they are not asked for. "Everyone" is every
team member but the person who assigned it.
"""

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.catalogue import Snapshot
from app.exceptions import Invalid, NotFound
from app.interview.schemas import MAX_QUESTIONS
from app.practice.models import ReviewLog
from app.practice.stats import plain_title
from app.team.members import name_of, team_members
from app.team.models import Assignment
from app.team.schemas import AssignmentIn, AssignmentKind

EVERYONE = "everyone"
# How many names the dashboard lists on each side of an assignment; the rest are counted.
NAMES_SHOWN = 12
SHOWN = 50  # assignments on the dashboard: those due latest


@dataclass(frozen=True)
class Choices:
    """What the assignment form offers: the cards served, by title, and their topics."""

    cards: list[tuple[str, str]]  # (id, plain title)
    topics: list[str]


def choices(snapshot: Snapshot) -> Choices:
    return Choices(
        [(card.id, plain_title(card)) for card in snapshot.cards.values()],
        sorted({topic for card in snapshot.cards.values() for topic in card.topics}),
    )


def create(session: Session, *, snapshot: Snapshot, data: AssignmentIn, by: int, now: datetime) -> Assignment:
    """A new assignment by `by`, for one active team member or for everyone; refused (Invalid,
    nothing stored) when it names no card, a card or topic nobody serves, a mock interview of
    more cards than one interview asks, a past date or nobody on the team."""
    unknown = [card_id for card_id in data.card_ids if card_id not in snapshot.cards]
    if unknown:
        raise Invalid("card_ids", f"no card with id {', '.join(unknown[:5])}")
    from_topic = [card.id for card in snapshot.cards.values() if data.topic in card.topics]
    if data.topic and not from_topic:
        raise Invalid("topic", f"no card has the topic '{data.topic}'")
    card_ids = list(dict.fromkeys([*data.card_ids, *from_topic]))
    if not card_ids:
        raise Invalid("card_ids", "choose some cards or a topic")
    if data.kind == "interview" and len(card_ids) > MAX_QUESTIONS:
        # /interview takes no more named cards than this, so a bigger one could never be started.
        raise Invalid(
            "card_ids",
            f"a mock interview asks at most {MAX_QUESTIONS} cards and this names {len(card_ids)}: "
            "choose fewer, or assign them as cards to review",
        )
    if data.due < now.date():
        raise Invalid("due", "the due date has passed; choose today or later")
    user_id = None
    if data.member:
        member = next((m for m in team_members(session) if m.name == data.member), None)
        if member is None:
            raise Invalid("member", f"no active member named '{data.member}'")
        user_id = member.id
    assignment = Assignment(
        created_at=now,
        created_by=by,
        user_id=user_id,
        tier=data.tier,
        kind=data.kind,
        topic=data.topic or None,
        card_ids=card_ids,
        due=data.due,
    )
    session.add(assignment)
    session.commit()
    return assignment


def delete(session: Session, assignment_id: int) -> None:
    assignment = session.get(Assignment, assignment_id)
    if assignment is None:
        raise NotFound(f"no assignment with id {assignment_id}")
    session.delete(assignment)
    session.commit()


def _required(assignment: Assignment, snapshot: Snapshot) -> list[str]:
    return [card_id for card_id in assignment.card_ids if card_id in snapshot.cards]


def _reviewed(session: Session, *, assignment: Assignment, user_ids: list[int]) -> dict[int, set[str]]:
    """The assigned cards each person has reviewed at its depth since it was assigned."""
    query = (
        select(ReviewLog.user_id, ReviewLog.card_id)
        .where(
            ReviewLog.user_id.in_(user_ids),
            ReviewLog.tier == assignment.tier,
            ReviewLog.card_id.in_(assignment.card_ids),
            ReviewLog.review_datetime >= assignment.created_at,
        )
        .distinct()
    )
    done: dict[int, set[str]] = {user_id: set() for user_id in user_ids}
    for user_id, card_id in session.execute(query):
        done[user_id].add(card_id)
    return done


def _audience(assignment: Assignment, members: list[User]) -> list[User]:
    if assignment.user_id is not None:
        return [m for m in members if m.id == assignment.user_id]
    return [m for m in members if m.id != assignment.created_by]


@dataclass(frozen=True)
class Names:
    """The first few of some people's names, and how many people there are in all."""

    shown: list[str]
    count: int

    @property
    def more(self) -> int:
        return self.count - len(self.shown)


def _names(people: list[User]) -> Names:
    return Names([person.name for person in people[:NAMES_SHOWN]], len(people))


@dataclass(frozen=True)
class Status:
    """One assignment on the dashboard: who has done it and who has not."""

    id: int
    kind: str
    topic: str | None
    titles: list[str]
    tier: str
    due: date
    assignee: str  # a name, or EVERYONE
    by: str | None
    done: Names
    waiting: Names  # those who have not done it yet
    total: int
    overdue: bool  # past its date and not everyone is done


def statuses(session: Session, *, snapshot: Snapshot, now: datetime) -> list[Status]:
    """The SHOWN assignments due latest, soonest due first: years of them cost what a few do.
    The team is read only when there is one."""
    latest = list(
        session.scalars(select(Assignment).order_by(Assignment.due.desc(), Assignment.id.desc()).limit(SHOWN))
    )
    members = team_members(session) if latest else []
    rows = []
    for assignment in reversed(latest):
        audience = _audience(assignment, members)
        required = set(_required(assignment, snapshot))
        reviewed = _reviewed(session, assignment=assignment, user_ids=[m.id for m in audience])
        done = [m for m in audience if required <= reviewed[m.id]]
        waiting = [m for m in audience if not required <= reviewed[m.id]]
        rows.append(
            Status(
                id=assignment.id,
                kind=assignment.kind,
                topic=assignment.topic,
                titles=[
                    plain_title(snapshot.cards[c]) if c in snapshot.cards else c for c in assignment.card_ids
                ],
                tier=assignment.tier,
                due=assignment.due,
                assignee=name_of(session, assignment.user_id) or EVERYONE,
                by=name_of(session, assignment.created_by),
                done=_names(done),
                waiting=_names(waiting),
                total=len(audience),
                overdue=now.date() > assignment.due and bool(waiting),
            )
        )
    return rows


@dataclass(frozen=True)
class Open:
    """An assignment a member has yet to finish, with the cards still to review."""

    id: int
    topic: str | None
    tier: str
    due: date
    overdue: bool
    by: str | None
    done: int
    total: int
    cards: list[str]  # the ids of every card it asks for that is served
    remaining: list[tuple[str, str]]  # (card id, title as HTML)


def open_for(
    session: Session, *, user_id: int, snapshot: Snapshot, now: datetime, kind: AssignmentKind
) -> list[Open]:
    """The person's unfinished assignments of `kind`, the soonest due first (what /practice, or
    /interview for mock interviews, shows on top)."""
    query = (
        select(Assignment)
        .where(
            Assignment.kind == kind,
            or_(
                Assignment.user_id == user_id,
                Assignment.user_id.is_(None)
                & or_(Assignment.created_by.is_(None), Assignment.created_by != user_id),
            ),
        )
        .order_by(Assignment.due, Assignment.id)
    )
    rows = []
    for assignment in session.scalars(query):
        required = _required(assignment, snapshot)
        reviewed = _reviewed(session, assignment=assignment, user_ids=[user_id])[user_id]
        remaining = [card_id for card_id in required if card_id not in reviewed]
        if not remaining:
            continue
        rows.append(
            Open(
                id=assignment.id,
                topic=assignment.topic,
                tier=assignment.tier,
                due=assignment.due,
                overdue=now.date() > assignment.due,
                by=name_of(session, assignment.created_by),
                done=len(required) - len(remaining),
                total=len(required),
                cards=required,
                remaining=[(card_id, snapshot.cards[card_id].title.html) for card_id in remaining],
            )
        )
    return rows


def assigned_card_ids(session: Session, *, user_id: int, snapshot: Snapshot, now: datetime) -> list[str]:
    """The cards the person's unfinished assignments still ask of them, soonest due first, each
    once: what /practice serves before other new cards (app/factory.py hands it to practice).
    Mock interviews are left out: they are taken whole on /interview."""
    seen: dict[str, None] = {}
    for assignment in open_for(session, user_id=user_id, snapshot=snapshot, now=now, kind="review"):
        seen.update(dict.fromkeys(card_id for card_id, _title in assignment.remaining))
    return list(seen)


def assigned_interview_ids(session: Session, *, user_id: int, snapshot: Snapshot, now: datetime) -> list[int]:
    """The mock interviews assigned to the person and still to do: one of them is what a session
    started from its box on /interview takes (app/factory.py hands this to the interview area)."""
    return [
        assignment.id
        for assignment in open_for(session, user_id=user_id, snapshot=snapshot, now=now, kind="interview")
    ]
