"""A mock interview's rules: choosing its cards, the step each question is at, answering and
assessing through the practice attempts (so the schedule, history and exports see every answer),
the summary and the person's list of sessions."""

import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.service import lock_person
from app.content.cards import Card, Entry
from app.content.tiers import TIERS, Tier, default_answer_kind, sees
from app.exceptions import Conflict, DomainError, Invalid, NotFound, in_words
from app.interview.models import InterviewQuestion, InterviewSession
from app.interview.schemas import WAYS, InterviewIn
from app.practice import attempts, scheduling, suggestions
from app.practice.attempts import Recorded
from app.practice.models import Attempt
from app.practice.readings import Reader
from app.practice.schemas import RATINGS, Assessment, AttemptIn
from app.practice.suggestions import Suggestion

# An interviewer asks one follow-up after each main answer, at the depths that see follow-ups.
FOLLOW_UPS_PER_CARD = 1
# How many of a person's sessions /interview lists, unfinished and finished each.
LISTED = 20
# How many of a finished session's cards its summary suggests practising again.
WEAKEST = 2


def _chosen(
    session: Session,
    *,
    user_id: int,
    cards: Mapping[str, Card],
    data: InterviewIn,
    assigned: Sequence[str],
    now: datetime,
) -> list[str]:
    """The ids of the cards the set-up names, in the order they will be asked."""
    if data.source == "cards":
        unknown = [card_id for card_id in data.cards if card_id not in cards]
        if unknown:
            raise Invalid("card", f"no card with id '{unknown[0]}'")
        return data.cards
    if data.source == "topic":
        under = [card.id for card in cards.values() if data.topic in card.topics]
        if not under:
            topics = tuple(sorted({topic for card in cards.values() for topic in card.topics}, key=str.lower))
            raise Invalid("topic", f"no cards under the topic '{data.topic}'; topics are {in_words(topics)}")
        return random.sample(under, min(data.count, len(under)))
    if data.source == "random":
        return random.sample(list(cards), min(data.count, len(cards)))
    if data.source == "due":
        due = scheduling.due_queue(session, user_id=user_id, tier=data.tier, now=now, known=cards)
        return [item.card_id for item in due[: data.count]]
    return [card_id for card_id in assigned if card_id in cards][: data.count]


def start(
    session: Session,
    *,
    user_id: int,
    cards: Mapping[str, Card],
    data: InterviewIn,
    assigned: Sequence[str],
    now: datetime,
) -> InterviewSession:
    """A new session on the cards the set-up chose, each followed by its follow-up where the
    depth sees them; refused, storing nothing, when it chooses none."""
    chosen = _chosen(session, user_id=user_id, cards=cards, data=data, assigned=assigned, now=now)
    if not chosen:
        raise Invalid("source", WAYS[data.source].nothing)
    interview = InterviewSession(
        user_id=user_id,
        tier=data.tier,
        source=data.source,
        topic=data.topic if data.source == "topic" else None,
        created_at=now,
    )
    asked: list[tuple[str, int | None]] = []
    for card_id in chosen:
        asked.append((card_id, None))
        if sees(data.tier, "follow_ups"):
            follow_ups = range(min(FOLLOW_UPS_PER_CARD, len(cards[card_id].follow_ups)))
            asked += [(card_id, index) for index in follow_ups]
    interview.questions = [
        InterviewQuestion(position=position, card_id=card_id, follow_up=follow_up)
        for position, (card_id, follow_up) in enumerate(asked)
    ]
    session.add(interview)
    session.commit()
    return interview


def own_session(session: Session, *, user_id: int, session_id: int) -> InterviewSession:
    """The person's session with that id; someone else's is as unknown as a missing one."""
    interview = session.get(InterviewSession, session_id)
    if interview is None or interview.user_id != user_id:
        raise NotFound(f"no interview with id {session_id}")
    return interview


def answer_kind(interview: InterviewSession, question: InterviewQuestion) -> str:
    return "follow-up" if question.follow_up is not None else default_answer_kind(_tier(interview))


def _tier(interview: InterviewSession) -> Tier:
    return next(tier for tier in TIERS if tier == interview.tier)


@dataclass(frozen=True)
class Step:
    """Where a session stands: the question being asked, and whether its answer waits to be
    assessed. `number` counts the cards (follow-ups belong to their card's number)."""

    question: InterviewQuestion
    card: Card
    assessing: bool
    number: int
    of: int

    @property
    def follow_up(self) -> Entry | None:
        index = self.question.follow_up
        return self.card.follow_ups[index] if index is not None else None


def _follow_up(card: Card | None, index: int | None) -> Entry | None:
    """The card's follow-up at `index`, if the card (as served now) still has it."""
    return card.follow_ups[index] if card and index is not None and index < len(card.follow_ups) else None


def _to_ask(question: InterviewQuestion, cards: Mapping[str, Card]) -> Card | None:
    """The question's card while it is still to be rated and still served: a card gone, or a
    follow-up removed from it since, is skipped."""
    card = cards.get(question.card_id)
    rated = question.attempt is not None and question.attempt.rating is not None
    if (
        card is None
        or rated
        or (question.follow_up is not None and _follow_up(card, question.follow_up) is None)
    ):
        return None
    return card


def step(interview: InterviewSession, cards: Mapping[str, Card]) -> Step | None:
    """The first question not yet rated, of a card still served; None once every one is: the
    session is finished, wherever its last answer was rated."""
    mains = [q for q in interview.questions if q.follow_up is None]
    for question in interview.questions:
        card = _to_ask(question, cards)
        if card is None:
            continue
        number = sum(1 for q in mains if q.position <= question.position)
        return Step(question, card, question.attempt is not None, number, len(mains))
    return None


def settle(
    session: Session, *, interview: InterviewSession, cards: Mapping[str, Card], now: datetime
) -> Step | None:
    """The step the session is at, with `finished_at` kept in step: set when it is first found
    finished (its last answer may be rated on the card's page), cleared when a rating taken back
    opens it again."""
    current = step(interview, cards)
    if (current is None) != (interview.finished_at is not None):
        interview.finished_at = now if current is None else None
        session.commit()
    return current


def _fresh(session: Session, interview: InterviewSession) -> None:
    """Hold the person's lock, then read the session and its questions again: another answer or
    rating saved since they were read is seen before this one is checked (on PostgreSQL, two
    requests at once)."""
    lock_person(session, interview.user_id)
    session.scalars(
        select(InterviewSession)
        .where(InterviewSession.id == interview.id)
        .execution_options(populate_existing=True)
    ).one()
    session.scalars(
        select(InterviewQuestion)
        .where(InterviewQuestion.session_id == interview.id)
        .execution_options(populate_existing=True)
    ).all()


@contextmanager
def _refused_writes_nothing(session: Session) -> Iterator[None]:
    """A refused answer or rating keeps nothing it set, and lets the person's lock go before the
    page that says why is read."""
    try:
        yield
    except DomainError:
        session.rollback()
        raise


def _current(
    interview: InterviewSession, *, cards: Mapping[str, Card], position: int, assessing: bool
) -> Step:
    """The step a form was sent from, which must be the one the session is at: a form sent
    twice, or from an older tab, is refused rather than answering another question."""
    current = step(interview, cards)
    if current is None:
        raise Conflict("this interview is finished")
    if current.question.position != position or current.assessing != assessing:
        raise Conflict("that question is not the one this interview is at; reload the page")
    return current


@dataclass(frozen=True)
class Answered:
    """One question of a finished session, as the summary shows it."""

    question: InterviewQuestion
    card: Card | None
    attempt: Attempt | None
    target: int | None
    points: int | None
    of: int | None
    pitfalls: tuple[Entry, ...]

    @property
    def title(self) -> Entry | None:
        return _follow_up(self.card, self.question.follow_up)

    @property
    def weakness(self) -> tuple[int, float]:
        """Lower is weaker: the rating first, then the share of points covered."""
        rating = self.attempt.rating if self.attempt else None
        rank = next((n for n, name in enumerate(RATINGS) if name == rating), -1)
        return rank, (self.points or 0) / (self.of or 1)


@dataclass(frozen=True)
class Summary:
    cards: list[tuple[Answered, list[Answered]]]  # each main answer with its follow-ups
    weakest: list[Answered]


def summary(session: Session, *, interview: InterviewSession, cards: Mapping[str, Card]) -> Summary:
    rows: list[tuple[Answered, list[Answered]]] = []
    for question in interview.questions:
        card, attempt = cards.get(question.card_id), question.attempt
        shown = suggestions.shown(session, card=card, attempt=attempt) if card and attempt else None
        main = question.follow_up is None
        answered = Answered(
            question=question,
            card=card,
            attempt=attempt,
            target=card.time_budget(answer_kind(interview, question)) if card and main else None,
            points=len(card.point_positions(attempt.points)) if card and attempt and main else None,
            of=len(card.points) if card and main else None,
            pitfalls=tuple(p.entry for p in shown.pitfalls) if shown else (),
        )
        if main or not rows:
            rows.append((answered, []))
        else:
            rows[-1][1].append(answered)
    rated = [main for main, _ in rows if main.card and main.attempt and main.attempt.rating]
    return Summary(rows, sorted(rated, key=lambda a: a.weakness)[:WEAKEST])


@dataclass(frozen=True)
class Page:
    """What a session's page shows: the step it is at, with the suggestion on its answer once
    answered, or the summary once it is finished."""

    interview: InterviewSession
    step: Step | None
    suggestion: Suggestion | None = None
    summary: Summary | None = None
    # How the answer just given aloud was said (`Recorded.delivery`), shown beside it.
    delivery: dict[str, Any] | None = None


def page(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    now: datetime,
    answered: Recorded | None = None,
) -> Page:
    """The session's page as it now stands (settled: see `settle`). `answered`, the answer just
    recorded, brings its suggestion along; an older answer's is read."""
    current = settle(session, interview=interview, cards=cards, now=now)
    if current is None:
        return Page(interview, None, summary=summary(session, interview=interview, cards=cards))
    attempt = current.question.attempt
    if answered is not None and answered.attempt is attempt:
        return Page(interview, current, answered.suggestion, delivery=answered.delivery)
    return Page(
        interview,
        current,
        suggestions.shown(session, card=current.card, attempt=attempt) if attempt else None,
    )


class Asked(NamedTuple):
    """What the step a session is at asks for: the kind of answer, and which follow-up."""

    kind: str
    follow_up: int | None


def asked(interview: InterviewSession, cards: Mapping[str, Card]) -> Asked:
    """What an answer sent now answers; once the session is finished, a solid answer to nothing,
    which `answer` then refuses as sent too late."""
    current = step(interview, cards)
    if current is None:
        return Asked("solid", None)
    return Asked(answer_kind(interview, current.question), current.question.follow_up)


def answer(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    position: int,
    data: AttemptIn,
    now: datetime,
    reader: Reader | None = None,
) -> Page:
    """Record the answer to the question at `position` as a practice attempt, linked to it, its
    model reading asked of `reader`; the page then shows it to assess, beside the suggestion
    recorded with it."""
    with _refused_writes_nothing(session):
        _fresh(session, interview)
        current = _current(interview, cards=cards, position=position, assessing=False)
        question = current.question
        if data.kind != answer_kind(interview, question) or data.follow_up != question.follow_up:
            raise Invalid("kind", "the answer is not to the question this interview asks")

        def link(attempt: Attempt) -> None:
            question.attempt = attempt

        recorded = attempts.record(
            session,
            card=current.card,
            user_id=interview.user_id,
            data=data,
            now=now,
            beside=link,
            reader=reader,
        )
    return page(session, interview=interview, cards=cards, now=now, answered=recorded)


def assess(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    position: int,
    data: Assessment,
    now: datetime,
) -> Page:
    """Rate the answer to the question at `position`; rating the last one finishes the session.
    The page then shows the next step, or the summary."""
    with _refused_writes_nothing(session):
        _fresh(session, interview)
        current = _current(interview, cards=cards, position=position, assessing=True)
        attempt = current.question.attempt
        assert attempt is not None  # an assessing step has its answer
        attempts.check_against_card(current.card, data)
        if not [q for q in interview.questions if q.position > position and _to_ask(q, cards)]:
            interview.finished_at = now
        attempts.assess(session, card=current.card, attempt=attempt, data=data)
    return page(session, interview=interview, cards=cards, now=now)


@dataclass(frozen=True)
class Listing:
    unfinished: list[InterviewSession]
    finished: list[InterviewSession]


def listing(session: Session, *, user_id: int, cards: Mapping[str, Card]) -> Listing:
    """The person's sessions, newest first, at most LISTED of each kind, read from at most LISTED
    rows of each kind as stored (however many sessions the person has). Finished is then read from
    the steps, as the session's page reads it: a rating given or taken back elsewhere counts."""
    mine = (
        select(InterviewSession)
        .where(InterviewSession.user_id == user_id)
        .order_by(InterviewSession.created_at.desc(), InterviewSession.id.desc())
        .limit(LISTED)
    )
    read = [
        *session.scalars(mine.where(InterviewSession.finished_at.is_(None))),
        *session.scalars(mine.where(InterviewSession.finished_at.is_not(None))),
    ]
    read.sort(key=lambda interview: (interview.created_at, interview.id), reverse=True)
    unfinished: list[InterviewSession] = []
    finished: list[InterviewSession] = []
    for interview in read:
        kind = finished if step(interview, cards) is None else unfinished
        if len(kind) < LISTED:
            kind.append(interview)
    return Listing(unfinished, finished)
