"""The team dashboard: every member's numbers, then what the team as a whole finds hard.

Computed here from the practice rules (app/practice/stats.py, scheduling.py); team.html only
prints it.
"""

import sys
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.content.catalogue import Snapshot
from app.content.model import Problem
from app.demos.models import DemoRun
from app.demos.runs import ACTIVE
from app.practice import stats
from app.practice.models import ReviewLog
from app.team import answers, assignments, charts, members

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


def hardest_cards(
    session: Session, *, ids: list[int], snapshot: Snapshot, limit: int = TOP
) -> list[HardCard]:
    """Cards most often forgotten across the team: the share of their reviews rated again."""
    again = func.sum(case((ReviewLog.rating == 1, 1), else_=0))
    query = (
        select(ReviewLog.card_id, func.count(), again, func.count(ReviewLog.user_id.distinct()))
        .where(ReviewLog.user_id.in_(ids))
        .group_by(ReviewLog.card_id)
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


def missed_pitfalls(
    session: Session, *, ids: list[int], snapshot: Snapshot, limit: int = TOP
) -> list[TeamMiss]:
    """Each member's missed quiz items (stats.missed_pitfalls, all of them), added up.

    `seen` counts only the quizzes of those who missed the item at least once: the per-person
    function reports missed items only."""
    missed: Counter[tuple[str, str]] = Counter()
    seen: Counter[tuple[str, str]] = Counter()
    people: Counter[tuple[str, str]] = Counter()
    items: dict[tuple[str, str], stats.MissedItem] = {}
    for user_id in ids:
        for item in stats.missed_pitfalls(session, user_id=user_id, snapshot=snapshot, limit=sys.maxsize):
            key = (item.card.id, item.item.id)
            items[key] = item
            missed[key] += item.missed
            seen[key] += item.seen
            people[key] += 1
    ranked = sorted(missed, key=lambda k: (-missed[k], -people[k], k))[:limit]
    return [
        TeamMiss(stats.MissedItem(items[k].card, items[k].item, missed[k], seen[k]), people[k])
        for k in ranked
    ]


def demo_counts(session: Session) -> dict[str, int]:
    """Demo runs waiting and running now, for the whole server."""
    query = select(DemoRun.status, func.count()).where(DemoRun.status.in_(ACTIVE)).group_by(DemoRun.status)
    found = {status: int(count) for status, count in session.execute(query)}
    return {status: found.get(status, 0) for status in ACTIVE}


@dataclass(frozen=True)
class Dashboard:
    members: list[members.MemberNumbers]
    reviews_chart: charts.BarChart
    recall_chart: charts.BarChart
    hardest: list[HardCard]
    missed: list[TeamMiss]
    answers: answers.TeamAnswers
    content_errors: list[Problem]
    demos: dict[str, int]
    assignments: list[assignments.Status]


def _percent(value: float | None) -> str:
    return "\u2013" if value is None else f"{round(value * 100)} %"


def dashboard(session: Session, *, snapshot: Snapshot, team: list[User], now: datetime) -> Dashboard:
    ids = [member.id for member in team]
    rows = members.numbers(session, members=team, snapshot=snapshot, now=now)
    return Dashboard(
        members=rows,
        reviews_chart=charts.bar_chart(
            [(r.name, r.reviews_30d, str(r.reviews_30d)) for r in rows],
            max((r.reviews_30d for r in rows), default=0),
        ),
        recall_chart=charts.bar_chart([(r.name, r.recall, _percent(r.recall)) for r in rows], 1.0),
        hardest=hardest_cards(session, ids=ids, snapshot=snapshot),
        missed=missed_pitfalls(session, ids=ids, snapshot=snapshot),
        answers=answers.team_answers(session, team=team, snapshot=snapshot, now=now),
        content_errors=snapshot.problems,
        demos=demo_counts(session),
        assignments=assignments.statuses(session, snapshot=snapshot, members=team, now=now),
    )
