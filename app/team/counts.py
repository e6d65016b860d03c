"""What the team as a whole finds hard: the cards most often forgotten and the quiz statements
most often missed, read from counts kept per card (team_card_counts) and per statement
(team_statement_counts), so /team reads a row a card whether the team is ten people or a thousand.

The database keeps those counts itself, with triggers on review_states, quiz_tallies and users
(migrations/versions/0030_team_counts.py says why and how): every write path that changes a
schedule or a tally, and disabling or enabling a person, moves them in the same transaction.
`recount` works them out again from the schedules and tallies (`tiercards db rebuild-aggregates`).
"""

from contextlib import closing
from dataclasses import dataclass

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from app.content.catalogue import Snapshot
from app.practice import quiz, stats
from app.practice.models import QuizTally, ReviewState
from app.team import members
from app.team.models import TeamCardCount, TeamStatementCount

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
    """Cards most often forgotten across the team: the share of their reviews rated again."""
    counts = TeamCardCount
    query = (
        select(counts.card_id, counts.reviews, counts.again, counts.people)
        .where(counts.again > 0, counts.reviews > 0)
        .order_by((counts.again * 1.0 / counts.reviews).desc(), counts.again.desc(), counts.card_id)
        .limit(limit)
    )
    rows = []
    for card_id, reviews, forgot, people in session.execute(query):
        card = snapshot.cards.get(card_id)
        title = stats.plain_title(card) if card else card_id
        rows.append(HardCard(card_id, title, card is None, reviews, forgot, people))
    return rows


@dataclass(frozen=True)
class TeamMiss:
    missed: stats.MissedItem  # its counts are the team's
    people: int


def missed_pitfalls(session: Session, *, snapshot: Snapshot, limit: int = TOP) -> list[TeamMiss]:
    """The quiz statements the team judged wrong most often.

    `seen` counts only the quizzes of those who missed the item at least once. Statements no longer
    in their card, and retired cards, are passed over: their words are gone."""
    counts = TeamStatementCount
    query = (
        select(counts.card_id, counts.item_id, counts.missed, counts.seen, counts.people)
        .where(counts.missed > 0)
        .order_by(counts.missed.desc(), counts.people.desc(), counts.card_id, counts.item_id)
    )
    found: list[TeamMiss] = []
    # Read in order until enough are known (the statements of retired cards are few), then the
    # rest of the read is dropped.
    with closing(session.execute(query.execution_options(yield_per=limit))) as rows:
        for card_id, item_id, missed, seen, people in rows:
            known = quiz.statement(snapshot.cards, card_id=card_id, item_id=item_id)
            if known is not None:
                found.append(TeamMiss(stats.MissedItem(*known, missed, seen), people))
                if len(found) == limit:
                    break
    return found


def recount(session: Session) -> None:
    """Part of the caller's unit of work: both tables worked out again from every schedule and
    tally of the team, what the triggers keep them equal to."""
    session.execute(delete(TeamCardCount))
    session.execute(delete(TeamStatementCount))
    session.execute(
        insert(TeamCardCount).from_select(
            ["card_id", "reviews", "again", "people"],
            select(
                ReviewState.card_id,
                func.sum(ReviewState.reps),
                func.sum(ReviewState.again),
                func.count(ReviewState.user_id.distinct()),
            )
            .where(ReviewState.user_id.in_(members.team_ids()))
            .group_by(ReviewState.card_id),
        )
    )
    session.execute(
        insert(TeamStatementCount).from_select(
            ["card_id", "item_id", "missed", "seen", "people"],
            select(
                QuizTally.card_id,
                QuizTally.item_id,
                func.sum(QuizTally.missed),
                func.sum(QuizTally.seen),
                func.count(),
            )
            .where(QuizTally.user_id.in_(members.team_ids()), QuizTally.missed > 0)
            .group_by(QuizTally.card_id, QuizTally.item_id),
        )
    )
