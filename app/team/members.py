"""Who is on the team, and each member's numbers as a lead sees them.

The numbers come from the practice rules themselves (the due queue, FSRS retrievability, the
streak of /progress), so a lead reads the same figures the member reads on their own pages.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from app.accounts.models import LOCAL_USER_ID, User
from app.content.catalogue import Snapshot
from app.practice import attempts, preferences, scheduling, stats
from app.practice.filters import attempt_result, attempt_what
from app.practice.models import Attempt, ReviewLog

WEEK = timedelta(days=7)
MONTH = timedelta(days=30)
TIMED_KINDS = ("basics", "solid")


def team_members(session: Session) -> list[User]:
    """Every active person, by name. The local user of single mode is left out: in the other modes
    it is the solo history, nobody's account (`tiercards users adopt-local` gives it to one)."""
    query = select(User).where(User.disabled_at.is_(None), User.id != LOCAL_USER_ID)
    return list(session.scalars(query.order_by(User.name)))


def name_of(session: Session, user_id: int | None) -> str | None:
    """A person's name by id (None for nobody, or a person since deleted)."""
    user = session.get(User, user_id) if user_id is not None else None
    return user.name if user else None


@dataclass(frozen=True)
class MemberNumbers:
    name: str
    role: str
    target_tier: str
    reviews_7d: int
    reviews_30d: int
    due: int  # due now at the target depth
    overdue: int  # of those, due before today (UTC)
    recall: float | None  # mean retrievability now at the target depth
    streak: int
    timed_answers: int  # basics and solid answers in the last 30 days
    in_time: int  # of those, within the card's time budget for that kind
    quizzes: int  # pitfall quizzes in the last 30 days
    quiz_accuracy: float | None  # their mean score
    hide_answers: bool

    @property
    def in_time_share(self) -> float | None:
        return self.in_time / self.timed_answers if self.timed_answers else None


def _reviews(session: Session, *, ids: list[int], now: datetime) -> dict[int, tuple[int, int]]:
    """(last 7 days, last 30 days) of reviews per person."""
    week = func.sum(case((ReviewLog.review_datetime >= now - WEEK, 1), else_=0))
    query = (
        select(ReviewLog.user_id, week, func.count())
        .where(ReviewLog.user_id.in_(ids), ReviewLog.review_datetime >= now - MONTH)
        .group_by(ReviewLog.user_id)
    )
    return {user_id: (int(w or 0), int(m)) for user_id, w, m in session.execute(query)}


def _timed(
    session: Session, *, ids: list[int], snapshot: Snapshot, now: datetime
) -> dict[int, tuple[int, int]]:
    """(answers, answers within the card's budget) per person over the last 30 days; answers on
    retired cards are left out, their budget is gone."""
    counts: dict[int, tuple[int, int]] = defaultdict(lambda: (0, 0))
    # A reveal without answering is no answer, however quick.
    query = select(Attempt.user_id, Attempt.card_id, Attempt.kind, Attempt.seconds).where(
        Attempt.user_id.in_(ids),
        Attempt.kind.in_(TIMED_KINDS),
        Attempt.revealed.is_(False),
        Attempt.created_at >= now - MONTH,
    )
    for user_id, card_id, kind, seconds in session.execute(query):
        card = snapshot.cards.get(card_id)
        if card is None:
            continue
        budget = card.time_budget(kind)
        total, in_time = counts[user_id]
        counts[user_id] = (total + 1, in_time + (seconds <= budget))
    return counts


def _quizzes(session: Session, *, ids: list[int], now: datetime) -> dict[int, tuple[int, float | None]]:
    query = (
        select(Attempt.user_id, func.count(), func.avg(Attempt.score))
        .where(
            Attempt.user_id.in_(ids),
            Attempt.kind == "quiz",
            Attempt.score.is_not(None),
            Attempt.created_at >= now - MONTH,
        )
        .group_by(Attempt.user_id)
    )
    return {
        user_id: (int(n), None if mean is None else float(mean))
        for user_id, n, mean in session.execute(query)
    }


def _at_target(
    session: Session, *, user_id: int, tier: str, known: set[str], now: datetime
) -> tuple[int, int, float | None]:
    """(due, overdue, mean recall) at one tier, over the cards the catalogue serves."""
    due = scheduling.due_queue(session, user_id=user_id, tier=tier, now=now, known=known)
    today = scheduling.utc_day_start(now)
    recall = [
        scheduling.retrievability(row, now)
        for row in scheduling.states_for(session, user_id=user_id)
        if row.tier == tier and row.card_id in known
    ]
    return len(due), sum(item.due < today for item in due), sum(recall) / len(recall) if recall else None


def numbers(
    session: Session, *, members: list[User], snapshot: Snapshot, now: datetime
) -> list[MemberNumbers]:
    """One row per member, in the order given."""
    ids = [member.id for member in members]
    reviews = _reviews(session, ids=ids, now=now)
    timed = _timed(session, ids=ids, snapshot=snapshot, now=now)
    quizzes = _quizzes(session, ids=ids, now=now)
    known = set(snapshot.cards)
    rows = []
    for member in members:
        tier = preferences.load(session, member.id).target_tier
        due, overdue, recall = _at_target(session, user_id=member.id, tier=tier, known=known, now=now)
        streak, _longest = stats.streaks(stats.activity_by_day(session, user_id=member.id).keys(), now.date())
        week, month = reviews.get(member.id, (0, 0))
        answers, in_time = timed[member.id]
        quiz_count, accuracy = quizzes.get(member.id, (0, None))
        rows.append(
            MemberNumbers(
                name=member.name,
                role=member.role,
                target_tier=tier,
                reviews_7d=week,
                reviews_30d=month,
                due=due,
                overdue=overdue,
                recall=recall,
                streak=streak,
                timed_answers=answers,
                in_time=in_time,
                quizzes=quiz_count,
                quiz_accuracy=accuracy,
                hide_answers=member.hide_answers,
            )
        )
    return rows


# --- one member's answers -------------------------------------------------------------------


@dataclass(frozen=True)
class SeenAttempt:
    """An attempt as a lead sees it: the text is None when its author hides their answers."""

    created_at: datetime
    card_id: str
    title: str
    tier: str
    what: str
    result: str
    seconds: float
    text: str | None


def seen_attempts(
    session: Session, *, member: User, snapshot: Snapshot, limit: int = 50
) -> list[SeenAttempt]:
    """The member's newest attempts; scores always, texts only if they let leads read them.

    The text is dropped here, not in the template, so no page can show what was hidden."""
    rows = []
    for attempt in attempts.history(session, user_id=member.id, limit=limit):
        card = snapshot.cards.get(attempt.card_id)
        rows.append(
            SeenAttempt(
                created_at=attempt.created_at,
                card_id=attempt.card_id,
                title=stats.plain_title(card) if card else attempt.card_id,
                tier=attempt.tier,
                what=attempt_what(attempt),
                result=attempt_result(attempt),
                seconds=attempt.seconds,
                text=None if member.hide_answers else attempt.text,
            )
        )
    return rows


def set_hide_answers(session: Session, *, user_id: int, hide: bool) -> User:
    """Whether leads may read the person's answer texts, as they chose."""
    user = session.get(User, user_id)
    assert user is not None  # a signed-in person exists
    user.hide_answers = hide
    session.commit()
    return user
