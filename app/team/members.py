"""Who is on the team, and each member's numbers as a lead sees them.

The numbers come from what practice keeps per day (practice_days), per month (practice_months,
for streaks) and per schedule (review_states), read a page of members at a time, so /team costs
the same for a team of ten and of a thousand, and for a week of history or years of it. They
follow the practice rules (the due queue, FSRS retrievability, the streak of /progress), so a lead
reads the figures the member reads.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Float, Select, case, cast, func, literal, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import ScalarSelect, Subquery

from app.accounts.models import LOCAL_USER_ID, User
from app.content.catalogue import Snapshot
from app.practice import attempts, preferences, scheduling, stats
from app.practice.filters import attempt_result, attempt_what
from app.practice.models import PracticeDay, PracticeMonth, ReviewState, UserSettings
from app.storage.base import UTCDateTime
from app.team.schemas import MemberSort

MONTH = timedelta(days=30)
PAGE_SIZE = 50
STREAK_DAYS = 400  # how far back a streak is read
DEFAULT_TIER = preferences.PracticeSettings().target_tier
# FSRS-6's forgetting curve with py-fsrs' default parameters (what scheduling.retrievability uses).
DECAY = -scheduling.scheduler().parameters[20]
FACTOR = 0.9 ** (1 / DECAY) - 1


def team_members(session: Session) -> list[User]:
    """Every active person, by name. The local user of single mode is left out: in the other modes
    it is the solo history, nobody's account (`tiercards users adopt-local` gives it to one)."""
    return list(session.scalars(select(User).where(on_team()).order_by(User.name)))


def team_ids() -> Select[Any]:
    """The ids of team_members, as a subquery: the team's totals read in SQL, not a list of ids."""
    return select(User.id).where(on_team())


def on_team() -> ColumnElement[bool]:
    """Whom team_members lists, as a condition on users (joined where the rows are read)."""
    return User.disabled_at.is_(None) & (User.id != LOCAL_USER_ID)


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
    streak: int  # days in a row with practice, read at most STREAK_DAYS back
    last_active: date | None  # the latest UTC day with practice
    timed_answers: int  # basics and solid answers in the last 30 UTC days
    in_time: int  # of those, within the card's time budget for that kind
    quizzes: int  # pitfall quizzes in the last 30 UTC days
    quiz_accuracy: float | None  # their mean score
    hide_answers: bool

    @property
    def in_time_share(self) -> float | None:
        return self.in_time / self.timed_answers if self.timed_answers else None


@dataclass(frozen=True)
class MemberPage:
    """One page of the member table, in the order asked for."""

    members: list[MemberNumbers]
    sort: MemberSort
    q: str
    page: int
    total: int  # members matching `q`, on every page

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // PAGE_SIZE))


def _days_since(column: Any, *, moment: datetime, dialect: str) -> ColumnElement[Any]:
    """Days from `column` to `moment`, fractional: each engine subtracts timestamps its own way."""
    at = literal(moment, UTCDateTime())
    if dialect == "sqlite":
        return cast(func.julianday(at) - func.julianday(column), Float)
    return cast(func.extract("epoch", at - column), Float) / 86400.0


def recall_expression(now: datetime, dialect: str) -> ColumnElement[float]:
    """FSRS-6's retrievability of a review_states row at `now`, in SQL: what
    scheduling.retrievability computes in Python (whole days since the last review; 0 if never
    reviewed), so a page can sort by it without loading every row."""
    elapsed = func.floor(_days_since(ReviewState.last_review, moment=now, dialect=dialect))
    days = case((elapsed < 0, 0.0), else_=elapsed)
    curve = func.power(1.0 + FACTOR * days / ReviewState.stability, DECAY)
    never = ReviewState.stability.is_(None) | ReviewState.last_review.is_(None)
    return case((never, 0.0), else_=curve)


def _target_tier() -> ColumnElement[str]:
    return func.coalesce(UserSettings.target_tier, DEFAULT_TIER)


FIGURES = ("due", "overdue", "recall")


def _at_target(
    session: Session, *, known: list[str], now: datetime, of: Any, figures: tuple[str, ...] = FIGURES
) -> Subquery:
    """(user_id, and of due, overdue and recall the `figures` asked for) at the target depth of
    each person `of` names (ids, or a subquery of them), over the cards served: a grouped read of
    review_states, a row per card and depth at most. A sort asks for its one figure alone: over
    the whole team, each costs a pass."""
    today = scheduling.utc_day_start(now)
    dialect = session.get_bind().dialect.name
    columns = {
        "due": func.sum(case((ReviewState.due <= now, 1), else_=0)),
        "overdue": func.sum(case((ReviewState.due < today, 1), else_=0)),
        "recall": func.avg(recall_expression(now, dialect)),
    }
    return (
        select(ReviewState.user_id.label("user_id"), *(columns[name].label(name) for name in figures))
        .outerjoin(UserSettings, UserSettings.user_id == ReviewState.user_id)
        .where(
            ReviewState.user_id.in_(of), ReviewState.tier == _target_tier(), ReviewState.card_id.in_(known)
        )
        .group_by(ReviewState.user_id)
        .subquery()
    )


def _last_active() -> ScalarSelect[date]:
    # The newest day counted: an index lookup on practice_days' key, however long the history.
    return select(func.max(PracticeDay.day)).where(PracticeDay.user_id == User.id).scalar_subquery()


def member_page(
    session: Session, *, snapshot: Snapshot, sort: MemberSort, q: str, page: int, now: datetime
) -> MemberPage:
    """PAGE_SIZE members whose name contains `q`, sorted in SQL over the whole team; numbers for
    those only."""
    matching = on_team() & func.lower(User.name).contains(q.lower(), autoescape=True)
    total = session.scalar(select(func.count()).select_from(User).where(matching)) or 0
    query = select(User).where(matching)
    if sort == "active":
        query = query.order_by(_last_active().desc().nulls_last())
    elif sort in ("due", "weakest"):
        figure = "due" if sort == "due" else "recall"
        target = _at_target(
            session,
            known=list(snapshot.cards),
            now=now,
            of=select(User.id).where(matching),
            figures=(figure,),
        )
        query = query.outerjoin(target, target.c.user_id == User.id).order_by(
            func.coalesce(target.c.due, 0).desc() if sort == "due" else target.c.recall.asc().nulls_last()
        )
    query = query.order_by(User.name).limit(PAGE_SIZE).offset((page - 1) * PAGE_SIZE)
    shown = list(session.scalars(query))
    rows = numbers(session, members=shown, snapshot=snapshot, now=now)
    return MemberPage(rows, sort, q, page, total)


def _day_totals(session: Session, *, ids: list[int], today: date) -> dict[int, Any]:
    """Per person: reviews over 7 and 30 whole UTC days (today included), and the timed answers
    and quizzes of the 30."""
    week = today - timedelta(days=6)
    month = today - timedelta(days=29)
    query = (
        select(
            PracticeDay.user_id,
            func.sum(case((PracticeDay.day >= week, PracticeDay.reviews), else_=0)).label("reviews_7d"),
            func.sum(PracticeDay.reviews).label("reviews_30d"),
            func.sum(PracticeDay.timed).label("timed"),
            func.sum(PracticeDay.in_time).label("in_time"),
            func.sum(PracticeDay.quizzes).label("quizzes"),
            func.sum(PracticeDay.quiz_score).label("quiz_score"),
        )
        .where(PracticeDay.user_id.in_(ids), PracticeDay.day >= month)
        .group_by(PracticeDay.user_id)
    )
    return {row.user_id: row for row in session.execute(query)}


def _run_back(months: dict[date, int], day: date) -> int:
    """Days practised in a row from `day` back, at most STREAK_DAYS, from each month's bits (bit
    d - 1 is day d): a month at a time, not a day at a time."""
    run = 0
    while run < STREAK_DAYS:
        first = day.replace(day=1)
        upto = (1 << day.day) - 1  # the month's days up to `day`
        gaps = ~months.get(first, 0) & upto
        if gaps:
            # The highest unset bit is the latest day without practice.
            return min(run + day.day - gaps.bit_length(), STREAK_DAYS)
        run += day.day
        day = first - timedelta(days=1)
    return STREAK_DAYS


def _streaks(session: Session, *, ids: list[int], today: date) -> dict[int, int]:
    """The current streak of each person, as /progress counts it (days in a row with an answer or
    a rating, a run that ended yesterday still current), at most STREAK_DAYS long: read from
    practice_months, a row a month of the window for each person, whatever the run's length."""
    since = (today - timedelta(days=STREAK_DAYS + 1)).replace(day=1)
    months: dict[int, dict[date, int]] = {}
    query = select(PracticeMonth.user_id, PracticeMonth.month, PracticeMonth.days).where(
        PracticeMonth.user_id.in_(ids), PracticeMonth.month >= since, PracticeMonth.days != 0
    )
    for user_id, month, days in session.execute(query):
        months.setdefault(user_id, {})[month] = days
    yesterday = today - timedelta(days=1)
    return {user_id: _run_back(bits, today) or _run_back(bits, yesterday) for user_id, bits in months.items()}


def numbers(
    session: Session, *, members: list[User], snapshot: Snapshot, now: datetime
) -> list[MemberNumbers]:
    """One row per member, in the order given, from bounded reads: practice_days of the last
    STREAK_DAYS and review_states at the target depth."""
    ids = [member.id for member in members]
    today = scheduling.utc_day_start(now).date()
    totals = _day_totals(session, ids=ids, today=today)
    streaks = _streaks(session, ids=ids, today=today)
    tiers = dict(
        session.execute(
            select(UserSettings.user_id, UserSettings.target_tier).where(UserSettings.user_id.in_(ids))
        ).all()
    )
    target = _at_target(session, known=list(snapshot.cards), now=now, of=ids)
    states = {row.user_id: row for row in session.execute(select(target))}
    last = dict(session.execute(select(User.id, _last_active()).where(User.id.in_(ids))).all())
    rows = []
    for member in members:
        day = totals.get(member.id)
        state = states.get(member.id)
        quizzes = int(day.quizzes) if day else 0
        rows.append(
            MemberNumbers(
                name=member.name,
                role=member.role,
                target_tier=tiers.get(member.id, DEFAULT_TIER),
                reviews_7d=int(day.reviews_7d) if day else 0,
                reviews_30d=int(day.reviews_30d) if day else 0,
                due=int(state.due) if state else 0,
                overdue=int(state.overdue) if state else 0,
                recall=None if state is None or state.recall is None else float(state.recall),
                streak=streaks.get(member.id, 0),
                last_active=last.get(member.id),
                timed_answers=int(day.timed) if day else 0,
                in_time=int(day.in_time) if day else 0,
                quizzes=quizzes,
                quiz_accuracy=float(day.quiz_score) / quizzes if day and quizzes else None,
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
