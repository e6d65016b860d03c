"""What /progress shows: recall per card and topic, activity and streak, missed pitfalls, history.

Everything is keyed on the card id, so history outlives edits to a card's file; a card whose file
is gone keeps its rows and is reported as retired (the catalogue no longer has it).
Days are UTC days. Activity, streaks, missed pitfalls and the review count read the counts kept as
practice is written (app/practice/totals.py), never every answer or review of the person.
"""

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from app.content.cards import Card
from app.content.catalogue import Snapshot
from app.content.tiers import Tier
from app.practice import preferences, quiz, scheduling, suggestions
from app.practice.models import Attempt, PracticeDay, QuizTally, ReviewState

HEATMAP_WEEKS = 26
# Activity levels for the heatmap: the lowest count of each level (level 0 is no activity).
LEVEL_FLOORS = (1, 3, 6, 10)
LEVEL_LABELS = ("none", "1\u20132", "3\u20135", "6\u20139", "10+")


def plain_title(card: Card) -> str:
    return card.title.plain


@dataclass(frozen=True)
class CardProgress:
    card_id: str
    title: str  # plain text; the card id when the card is retired
    title_html: str | None  # None when retired
    topics: tuple[str, ...]
    tier: str
    retired: bool
    state: str
    retrievability: float | None
    stability: float | None
    difficulty: float | None
    reps: int
    lapses: int
    due: datetime | None
    last_review: datetime | None

    def as_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "title_html"}
        data["topics"] = list(self.topics)
        return data


def card_progress(
    session: Session, *, user_id: int, snapshot: Snapshot, target_tier: Tier, now: datetime
) -> list[CardProgress]:
    """One row per (card, tier) with a schedule, plus served cards never reviewed at the target tier."""
    rows: list[CardProgress] = []
    scheduled_at_target: set[str] = set()
    for state in scheduling.states_for(session, user_id=user_id):
        card = snapshot.cards.get(state.card_id)
        if state.tier == target_tier:
            scheduled_at_target.add(state.card_id)
        rows.append(
            CardProgress(
                card_id=state.card_id,
                title=plain_title(card) if card else state.card_id,
                title_html=card.title.html if card else None,
                topics=card.topics if card else (),
                tier=state.tier,
                retired=card is None,
                state=scheduling.state_name(state),
                retrievability=scheduling.retrievability(state, now),
                stability=state.stability,
                difficulty=state.difficulty,
                reps=state.reps,
                lapses=state.lapses,
                due=state.due,
                last_review=state.last_review,
            )
        )
    for card in snapshot.cards.values():
        if card.id not in scheduled_at_target:
            rows.append(
                CardProgress(
                    card_id=card.id,
                    title=plain_title(card),
                    title_html=card.title.html,
                    topics=card.topics,
                    tier=target_tier,
                    retired=False,
                    state=scheduling.NEW,
                    retrievability=None,
                    stability=None,
                    difficulty=None,
                    reps=0,
                    lapses=0,
                    due=None,
                    last_review=None,
                )
            )
    # Retired last; then the weakest recall first so what needs work is on top.
    return sorted(
        rows,
        key=lambda r: (
            r.retired,
            r.state == scheduling.NEW,
            r.retrievability if r.retrievability is not None else 2,
            r.title.lower(),
            r.tier,
        ),
    )


@dataclass(frozen=True)
class TopicProgress:
    topic: str
    cards: int  # cards with a schedule at some tier
    mean_retrievability: float | None
    mean_stability: float | None
    lapses: int
    reviews: int

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


RETIRED_TOPIC = "(retired cards)"


def topic_progress(rows: Iterable[CardProgress]) -> list[TopicProgress]:
    grouped: dict[str, list[CardProgress]] = defaultdict(list)
    for row in rows:
        if row.state == scheduling.NEW:
            continue
        for topic in row.topics or (RETIRED_TOPIC,):
            grouped[topic].append(row)
    result = []
    for topic, items in grouped.items():
        recall = [r.retrievability for r in items if r.retrievability is not None]
        stability = [r.stability for r in items if r.stability is not None]
        result.append(
            TopicProgress(
                topic=topic,
                cards=len({r.card_id for r in items}),
                mean_retrievability=sum(recall) / len(recall) if recall else None,
                mean_stability=sum(stability) / len(stability) if stability else None,
                lapses=sum(r.lapses for r in items),
                reviews=sum(r.reps for r in items),
            )
        )
    return sorted(result, key=lambda t: (t.topic == RETIRED_TOPIC, t.mean_retrievability or 0, t.topic))


# --- activity ---------------------------------------------------------------------------------


def activity_by_day(session: Session, *, user_id: int) -> Counter[date]:
    """Answers recorded plus reviews rated without a typed answer, per UTC day (a row a day of
    practice_days, counted as they were written)."""
    count = PracticeDay.answers + PracticeDay.rated_alone
    query = select(PracticeDay.day, count).where(PracticeDay.user_id == user_id, count > 0)
    return Counter({day: int(n) for day, n in session.execute(query)})


def streaks(active_days: Iterable[date], today: date) -> tuple[int, int]:
    """(current, longest) runs of consecutive active days. A run that ended yesterday is current
    until today is over."""
    days = set(active_days)
    longest = run = 0
    previous: date | None = None
    for day in sorted(days):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = 0
    day = today if today in days else today - timedelta(days=1)
    while day in days:
        current += 1
        day -= timedelta(days=1)
    return current, longest


def level(count: int) -> int:
    return sum(count >= floor for floor in LEVEL_FLOORS)


@dataclass(frozen=True)
class HeatCell:
    day: date
    count: int
    level: int
    x: int
    y: int
    size: int  # the filled square's side: larger means more activity, so colour is not needed
    offset: int


@dataclass(frozen=True)
class Heatmap:
    cells: list[HeatCell]
    months: list[tuple[int, str]]  # (x, label)
    width: int
    height: int
    total: int
    active_days: int
    first: date
    last: date
    cell: int = 13
    weekday_labels: list[tuple[int, str]] = field(default_factory=list)


HEAT_CELL = 13
HEAT_GAP = 3
HEAT_LEFT = 30
HEAT_TOP = 16
LEVEL_SIZES = (0, 5, 8, 11, 13)


def heatmap(counts: Counter[date], *, today: date, weeks: int = HEATMAP_WEEKS) -> Heatmap:
    """Columns are weeks (Monday first), rows weekdays; the last column holds today."""
    first = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks - 1)
    step = HEAT_CELL + HEAT_GAP
    cells: list[HeatCell] = []
    months: list[tuple[int, str]] = []
    day = first
    while day <= today:
        column, row = (day - first).days // 7, day.weekday()
        x, y = HEAT_LEFT + column * step, HEAT_TOP + row * step
        count = counts.get(day, 0)
        heat = level(count)
        size = LEVEL_SIZES[heat]
        cells.append(HeatCell(day, count, heat, x, y, size, (HEAT_CELL - size) // 2))
        if row == 0 and (day.day <= 7 or column == 0):
            months.append((x, day.strftime("%b")))
        day += timedelta(days=1)
    in_window = [c for c in cells if c.count]
    return Heatmap(
        cells=cells,
        months=months,
        width=HEAT_LEFT + weeks * step,
        height=HEAT_TOP + 7 * step,
        total=sum(c.count for c in cells),
        active_days=len(in_window),
        first=first,
        last=today,
        cell=HEAT_CELL,
        weekday_labels=[
            (HEAT_TOP + r * step + HEAT_CELL - 2, name) for r, name in ((0, "Mon"), (2, "Wed"), (4, "Fri"))
        ],
    )


# --- the due forecast -------------------------------------------------------------------------


@dataclass(frozen=True)
class ForecastBar:
    label: str
    day: date
    count: int
    x: int
    height: int


def due_forecast(
    session: Session, *, user_id: int, tier: str, now: datetime, known: set[str], days: int = 14
) -> list[ForecastBar]:
    """Reviews falling due on each of the next `days` UTC days (today includes what is overdue)."""
    start = scheduling.utc_day_start(now)
    end = start + timedelta(days=days)
    counts: Counter[date] = Counter()
    rows = session.execute(
        select(ReviewState.card_id, ReviewState.due).where(
            ReviewState.user_id == user_id, ReviewState.tier == tier, ReviewState.due < end
        )
    )
    for card_id, due in rows:
        if card_id in known:
            counts[max(due, start).date()] += 1
    peak = max(counts.values(), default=0) or 1
    bars = []
    for i in range(days):
        day = (start + timedelta(days=i)).date()
        label = "today" if i == 0 else day.strftime("%a %d")
        bars.append(ForecastBar(label, day, counts[day], 36 + i * 40, round(80 * counts[day] / peak)))
    return bars


# --- pitfalls ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MissedItem:
    card: Card
    item: quiz.QuizItem
    missed: int
    seen: int

    @property
    def rate(self) -> float:
        return self.missed / self.seen if self.seen else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "card_id": self.card.id,
            "item": self.item.id,
            "kind": "pitfall" if self.item.costly else "true statement",
            "statement": self.item.entry.title.markdown,
            "missed": self.missed,
            "seen": self.seen,
        }


def missed_pitfalls(
    session: Session, *, user_id: int, snapshot: Snapshot, limit: int = 10
) -> list[MissedItem]:
    """Quiz items judged wrong most often: pitfalls not flagged, true statements flagged as costly.

    Items are counted by id, so a statement keeps its count when the card is reordered. Quizzes on
    retired cards are left out: their statements are no longer known.
    """
    found: list[MissedItem] = []
    query = select(QuizTally.card_id, QuizTally.item_id, QuizTally.missed, QuizTally.seen).where(
        QuizTally.user_id == user_id, QuizTally.missed > 0
    )
    for card_id, item_id, missed, seen in session.execute(query):
        known = quiz.statement(snapshot.cards, card_id=card_id, item_id=item_id)
        if known is not None:
            found.append(MissedItem(*known, missed, seen))
    found.sort(key=lambda m: (-m.missed, -m.rate, m.card.id, m.item.id))
    return found[:limit]


# --- answer history ---------------------------------------------------------------------------


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# The most answers the history counts; past it the page says there are more.
HISTORY_COUNT_CAP = 1000


def search_history(
    session: Session,
    *,
    user_id: int,
    snapshot: Snapshot,
    q: str = "",
    kind: str | None = None,
    limit: int = 50,
) -> tuple[list[Attempt], int]:
    """The person's attempts whose text (or card title) contains `q`, newest first; and the total,
    counted up to HISTORY_COUNT_CAP + 1 (more than the cap: the page says "1,000+")."""
    query = select(Attempt).where(Attempt.user_id == user_id)
    q = q.strip()
    if q:
        pattern = _like(q)
        titles = [c.id for c in snapshot.cards.values() if q.lower() in plain_title(c).lower()]
        query = query.where(
            or_(
                Attempt.text.ilike(pattern, escape="\\"),
                Attempt.card_id.ilike(pattern, escape="\\"),
                Attempt.card_id.in_(titles),
            )
        )
    if kind:
        query = query.where(Attempt.kind == kind)
    # Counted up to one past the cap: a person with years of answers costs no count of them all.
    capped = query.with_only_columns(Attempt.id).limit(HISTORY_COUNT_CAP + 1).subquery()
    total = session.scalar(select(func.count()).select_from(capped)) or 0
    found = session.scalars(query.order_by(Attempt.created_at.desc(), Attempt.id.desc()).limit(limit))
    return list(found), int(total)


# How many answers given aloud "Pace and fillers" shows: the newest, so the query stays bounded.
SPOKEN_SHOWN = 50


@dataclass(frozen=True)
class SpokenAnswer:
    """One answer given aloud, as "Pace and fillers" plots it."""

    created_at: datetime
    card_id: str
    kind: str
    words_per_minute: float
    filler_count: int | None
    long_pauses: int | None

    def as_json(self) -> dict[str, Any]:
        return {
            "date": self.created_at.isoformat(),
            "card_id": self.card_id,
            "kind": self.kind,
            "words_per_minute": self.words_per_minute,
            "filler_count": self.filler_count,
            "long_pauses": self.long_pauses,
        }


def spoken_answers(session: Session, *, user_id: int, limit: int) -> list[SpokenAnswer]:
    """The person's newest answers given aloud (at most `limit`), oldest first: pace and fillers over time."""
    query = (
        select(
            Attempt.created_at,
            Attempt.card_id,
            Attempt.kind,
            Attempt.words_per_minute,
            Attempt.filler_count,
            Attempt.long_pauses,
        )
        .where(Attempt.user_id == user_id, Attempt.words_per_minute.is_not(None))
        .order_by(Attempt.created_at.desc(), Attempt.id.desc())
        .limit(limit)
    )
    rows = reversed(session.execute(query).all())
    # The `if` only narrows the type: the query takes only rows with a pace.
    return [
        SpokenAnswer(at, card_id, kind, wpm, fillers, pauses)
        for at, card_id, kind, wpm, fillers, pauses in rows
        if wpm is not None
    ]


def overview(session: Session, *, user_id: int, snapshot: Snapshot, now: datetime) -> dict[str, Any]:
    """Everything the /progress dashboard shows above the history, and /api/progress returns."""
    settings = preferences.load(session, user_id)
    rows = card_progress(
        session, user_id=user_id, snapshot=snapshot, target_tier=settings.target_tier, now=now
    )
    counts = activity_by_day(session, user_id=user_id)
    current, longest = streaks(counts.keys(), now.date())
    known = set(snapshot.cards)
    scheduled = [r for r in rows if r.state != scheduling.NEW]
    recall = [r.retrievability for r in scheduled if r.retrievability is not None and not r.retired]
    reviews = session.scalar(select(func.sum(PracticeDay.reviews)).where(PracticeDay.user_id == user_id))
    return {
        "now": now,
        "settings": settings,
        "rows": rows,
        "topics": topic_progress(rows),
        "heatmap": heatmap(counts, today=now.date()),
        "level_labels": LEVEL_LABELS,
        "level_sizes": LEVEL_SIZES,
        "streak": current,
        "longest_streak": longest,
        "active_today": now.date() in counts,
        "forecast": due_forecast(session, user_id=user_id, tier=settings.target_tier, now=now, known=known),
        "missed": missed_pitfalls(session, user_id=user_id, snapshot=snapshot),
        "spoken": spoken_answers(session, user_id=user_id, limit=SPOKEN_SHOWN),
        "spoken_shown": SPOKEN_SHOWN,
        "agreement": suggestions.agreement_by_card(session, user_id=user_id),
        "summary": {
            "reviews": int(reviews or 0),
            "cards_scheduled": len({(r.card_id, r.tier) for r in scheduled}),
            "retired": len({r.card_id for r in rows if r.retired}),
            "due_now": len(
                scheduling.due_queue(
                    session, user_id=user_id, tier=settings.target_tier, now=now, known=known
                )
            ),
            "mean_retrievability": sum(recall) / len(recall) if recall else None,
            "streak_days": current,
            "longest_streak_days": longest,
        },
    }
