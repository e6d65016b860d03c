"""What the team's answers leave out and get wrong, per card: the answer points members' own ticks
miss most on rated basics and solid answers, and the pitfalls the coverage checker reads their
answers asserting. Counts only: no answer's text and no name leave here.

Ticks are the member's own verdict, like a score, so everyone's count. The pitfalls come from
reading the answer's text, so only answers of members who let leads read them count
(`User.hide_answers`, the rule members.seen_attempts keeps). Both reads are bounded: the last
30 days, at most CAP answers of each card served, the newest first, read card by card along the
(card, time) index, so a team's whole history is never scanned. The ticks are read from each
card's CAP newest rated answers, of which the team's members' count; the pitfalls from each card's
CAP newest answers of any kind, of which those the checker read from sharing members count.
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, union_all
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select, Subquery

from app.accounts.models import User
from app.content.cards import Card
from app.content.catalogue import Snapshot
from app.coverage.measured import MEASURED
from app.practice import stats
from app.practice.models import Attempt, AttemptCoverage
from app.practice.totals import TIMED_KINDS
from app.team.members import MONTH, team_ids

CAP = 50  # answers read per card and question: a busy team's month, never its whole history
SLICE = 400  # cards read in one statement
CARDS = 10
PER_CARD = 3


@dataclass(frozen=True)
class Tally:
    id: str
    html: str  # the point's or the pitfall's own words, rendered
    count: int


@dataclass(frozen=True)
class CardAnswers:
    card_id: str
    title: str
    rated: int  # rated basics and solid answers in the window
    missed: list[Tally]  # of those, how many left each point unticked; the most missed first
    read: int  # answers of members who let leads read them that the checker read
    asserted: list[Tally]  # of those, how many it read as asserting each pitfall


@dataclass(frozen=True)
class TeamAnswers:
    cards: list[CardAnswers]
    measured: str  # how far to trust the checker: stated beside its counts


def _newest(
    session: Session,
    *,
    query: Select[*tuple[Any, ...]],
    since: datetime,
    cards: Iterable[str],
    then: Callable[[Subquery], Select[Any]] | None = None,
) -> Iterator[Any]:
    """Each card's newest CAP rows of `query` since `since`, one bounded read a card, the cards
    SLICE at a time (SQLite takes at most 500 in one compound SELECT); `then` narrows them."""
    ids = list(cards)
    for start in range(0, len(ids), SLICE):
        newest = [
            query.where(Attempt.card_id == card_id, Attempt.created_at >= since)
            .order_by(Attempt.created_at.desc())
            .limit(CAP)
            .subquery()
            for card_id in ids[start : start + SLICE]
        ]
        rows = union_all(*(select(*part.c) for part in newest)).subquery()
        yield from session.execute(then(rows) if then else select(*rows.c))


def _top(counts: Counter[str], items: list[tuple[str, str]]) -> list[Tally]:
    """Up to PER_CARD items counted at least once, most first, ties in the card's order."""
    ranked = sorted((i for i in items if counts[i[0]]), key=lambda i: -counts[i[0]])
    return [Tally(key, html, counts[key]) for key, html in ranked[:PER_CARD]]


def _count(
    answers: Iterable[tuple[Card, set[str]]], *, of: Callable[[Card, set[str]], Iterable[str]]
) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """How many answers each card has, and per card how often `of` an answer named each id."""
    per_card: Counter[str] = Counter()
    counted: dict[str, Counter[str]] = defaultdict(Counter)
    for card, ids in answers:
        per_card[card.id] += 1
        counted[card.id].update(of(card, ids))
    return per_card, counted


def _served(rows: Iterable[Any], snapshot: Snapshot) -> Iterator[tuple[Card, list[Any]]]:
    """Rows of cards served now: a retired card's points and pitfalls are gone."""
    for card_id, items in rows:
        card = snapshot.cards.get(card_id)
        if card is not None:
            yield card, items


def team_answers(session: Session, *, snapshot: Snapshot, now: datetime) -> TeamAnswers:
    since = now - MONTH

    def by_the_team(newest: Subquery) -> Select[Any]:
        # Narrowed after the bounded read: asked inside it, the team's members lead the database
        # to their own index and every answer of theirs to the card in the month, sorted.
        return select(newest.c.card_id, newest.c.points).where(newest.c.user_id.in_(team_ids()))

    ticks = _newest(
        session,
        query=select(Attempt.card_id, Attempt.points, Attempt.user_id).where(
            Attempt.kind.in_(TIMED_KINDS),
            Attempt.revealed.is_(False),
            Attempt.rating.is_not(None),
        ),
        since=since,
        cards=snapshot.cards,
        then=by_the_team,
    )

    def read_by_checker(newest: Subquery) -> Select[Any]:
        # Of each card's newest answers, those the checker read from members who share theirs:
        # picked after the bounded read, so a team that mostly hides its answers costs no scan.
        return (
            select(newest.c.card_id, AttemptCoverage.pitfalls)
            .join(AttemptCoverage, AttemptCoverage.attempt_id == newest.c.id)
            .join(Attempt, Attempt.id == newest.c.id)
            .where(Attempt.user_id.in_(team_ids().where(User.hide_answers.is_(False))))
        )

    suggestions = _newest(
        session,
        query=select(Attempt.id, Attempt.card_id),
        since=since,
        cards=snapshot.cards,
        then=read_by_checker,
    )
    rated, missed = _count(
        ((card, set(points)) for card, points in _served(ticks, snapshot)),
        of=lambda card, ticked: (p.key for p in card.points if p.key not in ticked),
    )
    read, asserted = _count(
        ((card, {hit["id"] for hit in hits}) for card, hits in _served(suggestions, snapshot)),
        of=lambda card, found: (e.key for e in card.pitfalls if e.key in found),
    )
    cards = []
    for card_id in rated.keys() | read.keys():
        card = snapshot.cards[card_id]
        points = _top(missed[card_id], [(p.key, p.html) for p in card.points])
        pitfalls = _top(asserted[card_id], [(e.key, e.title.html) for e in card.pitfalls])
        if points or pitfalls:
            title = stats.plain_title(card)
            cards.append(CardAnswers(card_id, title, rated[card_id], points, read[card_id], pitfalls))
    cards.sort(key=lambda c: (-max(t.count for t in c.missed + c.asserted), c.card_id))
    return TeamAnswers(cards[:CARDS], MEASURED.pitfall_sentence())
