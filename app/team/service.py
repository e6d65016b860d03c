"""The team dashboard: a page of members' numbers, then what the team as a whole finds hard.

Computed here from the practice rules (app/practice/stats.py, scheduling.py); team.html only
prints it.
"""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.content.cards import Problem
from app.content.catalogue import Snapshot
from app.demos.models import DemoRun
from app.demos.runs import ACTIVE
from app.team import answers, assignments, charts, counts, members
from app.team.schemas import MemberView


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
    hardest: list[counts.HardCard]
    missed: list[counts.TeamMiss]
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
        hardest=counts.hardest_cards(session, snapshot=snapshot),
        missed=counts.missed_pitfalls(session, snapshot=snapshot),
        answers=answers.team_answers(session, snapshot=snapshot, now=now),
        content_errors=snapshot.problems,
        demos=demo_counts(session),
        assignments=assignments.statuses(session, snapshot=snapshot, now=now),
    )
