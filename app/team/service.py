"""The team dashboard: a page of members' numbers, then what the team as a whole finds hard.

Computed here from the practice rules (app/practice/stats.py, scheduling.py); team.html only
prints it.
"""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.cards import Problem
from app.content.catalogue import Snapshot
from app.demos.models import DemoRun
from app.demos.runs import ACTIVE
from app.practice import quiz, stats
from app.practice.models import QuizTally, ReviewState
from app.team import answers, assignments, charts, members
from app.team.schemas import MemberView

TOP = 10


@dataclass(frozen=True)
class HardCard:
    card_id: str
    title: str
    retired: bool
    reviews: int
    again: int  # reviews rated again: the card was not recalled
    people: int

    @property
    def lapse_rate(self) -> float:
        return self.again / self.reviews


def hardest_cards(session: Session, *, snapshot: Snapshot, limit: int = TOP) -> list[HardCard]:
    """Cards most often forgotten across the team: the share of their reviews rated again, from
    each schedule's own counts (a row per person, card and depth, not a row per review)."""
    again = func.sum(ReviewState.again)
    query = (
        select(
            ReviewState.card_id, func.sum(ReviewState.reps), again, func.count(ReviewState.user_id.distinct())
        )
        .join(User, User.id == ReviewState.user_id)
        .where(members.on_team())
        .group_by(ReviewState.card_id)
        .having(again > 0)
    )
    rows = []
    for card_id, reviews, forgot, people in session.execute(query):
        card = snapshot.cards.get(card_id)
        title = stats.plain_title(card) if card else card_id
        rows.append(HardCard(card_id, title, card is None, int(reviews), int(forgot), int(people)))
    rows.sort(key=lambda r: (-r.lapse_rate, -r.again, r.card_id))
    return rows[:limit]


@dataclass(frozen=True)
class TeamMiss:
    missed: stats.MissedItem  # its counts are the team's
    people: int


def missed_pitfalls(session: Session, *, snapshot: Snapshot, limit: int = TOP) -> list[TeamMiss]:
    """The quiz statements the team judged wrong most often, from everyone's tallies.

    `seen` counts only the quizzes of those who missed the item at least once. Statements no longer
    in their card, and retired cards, are left out: their words are gone."""
    query = (
        select(
            QuizTally.card_id,
            QuizTally.item_id,
            func.sum(QuizTally.missed),
            func.sum(QuizTally.seen),
            func.count(),
        )
        .join(User, User.id == QuizTally.user_id)
        .where(members.on_team(), QuizTally.missed > 0)
        .group_by(QuizTally.card_id, QuizTally.item_id)
    )
    found = []
    for card_id, item_id, missed, seen, people in session.execute(query):
        known = quiz.statement(snapshot.cards, card_id=card_id, item_id=item_id)
        if known is not None:
            found.append(TeamMiss(stats.MissedItem(*known, int(missed), int(seen)), int(people)))
    found.sort(key=lambda t: (-t.missed.missed, -t.people, t.missed.card.id, t.missed.item.id))
    return found[:limit]


def demo_counts(session: Session) -> dict[str, int]:
    """Demo runs waiting and running now, for the whole server."""
    query = select(DemoRun.status, func.count()).where(DemoRun.status.in_(ACTIVE)).group_by(DemoRun.status)
    found = {status: int(count) for status, count in session.execute(query)}
    return {status: found.get(status, 0) for status in ACTIVE}


@dataclass(frozen=True)
class MemberTable:
    """A page of the member table and the charts of the members on it."""

    page: members.MemberPage
    reviews_chart: charts.BarChart
    recall_chart: charts.BarChart


@dataclass(frozen=True)
class Dashboard:
    table: MemberTable
    hardest: list[HardCard]
    missed: list[TeamMiss]
    answers: answers.TeamAnswers
    content_errors: list[Problem]
    demos: dict[str, int]
    assignments: list[assignments.Status]


def _percent(value: float | None) -> str:
    return "\u2013" if value is None else f"{round(value * 100)} %"


def member_table(session: Session, *, snapshot: Snapshot, view: MemberView, now: datetime) -> MemberTable:
    page = members.member_page(session, snapshot=snapshot, sort=view.sort, q=view.q, page=view.page, now=now)
    rows = page.members
    return MemberTable(
        page=page,
        reviews_chart=charts.bar_chart(
            [(r.name, r.reviews_30d, str(r.reviews_30d)) for r in rows],
            max((r.reviews_30d for r in rows), default=0),
        ),
        recall_chart=charts.bar_chart([(r.name, r.recall, _percent(r.recall)) for r in rows], 1.0),
    )


def dashboard(session: Session, *, snapshot: Snapshot, view: MemberView, now: datetime) -> Dashboard:
    return Dashboard(
        table=member_table(session, snapshot=snapshot, view=view, now=now),
        hardest=hardest_cards(session, snapshot=snapshot),
        missed=missed_pitfalls(session, snapshot=snapshot),
        answers=answers.team_answers(session, snapshot=snapshot, now=now),
        content_errors=snapshot.problems,
        demos=demo_counts(session),
        assignments=assignments.statuses(session, snapshot=snapshot, now=now),
    )
