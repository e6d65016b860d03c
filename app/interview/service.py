"""A mock interview's rules: choosing its cards, the step each question is at, answering and
assessing through the practice attempts (so the schedule, history and exports see every answer),
the summary and the person's list of sessions."""

import math
import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.service import lock_person
from app.content.cards import Card, Entry, Text, pitfall_id
from app.content.tiers import TIERS, Tier, default_answer_kind, sees
from app.coverage.service import coverage_document
from app.exceptions import Conflict, DomainError, Invalid, NotFound, in_words
from app.interview import choice
from app.interview.models import InterviewQuestion, InterviewSession
from app.interview.schemas import (
    WAYS,
    AnswerApiIn,
    AnsweredOut,
    AskedOut,
    ComparedOut,
    InterviewIn,
    Outcome,
    PreviousOut,
    QuestionOut,
    SummaryOut,
)
from app.practice import attempts, scheduling, suggestions
from app.practice.attempts import Recorded
from app.practice.models import Attempt
from app.practice.readings import Reader
from app.practice.schemas import RATINGS, Assessment, AttemptIn
from app.practice.suggestions import Suggestion
from app.speech import service as speech
from app.speech import voicing
from app.speech.voicing import Asker

# Each card takes two places in a session: its main question, then the follow-up chosen from the
# answer to it (app/interview/choice.py), at the depths that see follow-ups.
PLACES_PER_CARD = 2
# A follow-up's target: its model answer said at an interview's pace, in whole tens of seconds.
WORDS_PER_SECOND = 2.5
MIN_FOLLOW_UP_S = 20
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
        under = [card for card in cards.values() if data.topic in card.topics]
        if not under:
            topics = tuple(sorted({topic for card in cards.values() for topic in card.topics}, key=str.lower))
            raise Invalid("topic", f"no cards under the topic '{data.topic}'; topics are {in_words(topics)}")
        at_depth = [card.id for card in under if within(data.tier, card)]
        if not at_depth:
            raise Invalid("topic", f"the cards under '{data.topic}' are all above the {data.tier} depth")
        return random.sample(at_depth, min(data.count, len(at_depth)))
    if data.source == "random":
        drawn = _at_depth(list(cards.values()), data.tier)
        return random.sample(drawn, min(data.count, len(drawn)))
    if data.source == "due":
        due = scheduling.due_queue(session, user_id=user_id, tier=data.tier, now=now, known=cards)
        return [item.card_id for item in due[: data.count]]
    return [card_id for card_id in assigned if card_id in cards][: data.count]


def within(tier: Tier, card: Card) -> bool:
    """A drawn card is at the session's depth or below it: a middle session draws no senior card.
    Cards named one by one, assigned or due are asked whatever their level."""
    return TIERS.index(card.level) <= TIERS.index(tier)


def _at_depth(cards: list[Card], tier: Tier) -> list[str]:
    """The cards a random draw takes from: those `within` the depth; where the deck has none that
    low (no junior card), those of its lowest level, served at the session's depth."""
    lowest = min((TIERS.index(card.level) for card in cards), default=0)
    return [card.id for card in cards if within(tier, card) or TIERS.index(card.level) == lowest]


def start(
    session: Session,
    *,
    user_id: int,
    cards: Mapping[str, Card],
    data: InterviewIn,
    assigned: Sequence[str],
    now: datetime,
    assignments: Collection[int] = (),
) -> InterviewSession:
    """A new session on the cards the set-up chose, their follow-ups chosen as their answers come;
    refused, storing nothing, when it chooses none. A spoken one moves straight on after each
    answer (`InterviewSession.rate_each`). `assignments`: the mock interviews assigned to the
    person and still to do, of which the set-up may name the one it takes."""
    if data.assignment is not None and data.assignment not in assignments:
        raise Invalid("assignment", "that mock interview is not one assigned to you and still to do")
    chosen = _chosen(session, user_id=user_id, cards=cards, data=data, assigned=assigned, now=now)
    if not chosen:
        raise Invalid("source", WAYS[data.source].nothing)
    interview = InterviewSession(
        user_id=user_id,
        tier=data.tier,
        source=data.source,
        topic=data.topic if data.source == "topic" else None,
        created_at=now,
        rate_each=not data.spoken,
        minutes=data.minutes,
        assignment_id=data.assignment,
    )
    interview.questions = [
        InterviewQuestion(position=number * PLACES_PER_CARD, card_id=card_id, follow_up=None)
        for number, card_id in enumerate(chosen)
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
    """A follow-up of the card's is answered as one; a main question, and a point or pitfall
    asked in the interviewer's words, as the card's own answer (read against its points)."""
    return "follow-up" if question.follow_up is not None else default_answer_kind(_tier(interview))


def is_main(question: InterviewQuestion) -> bool:
    return question.follow_up is None and question.why is None


def _probed(card: Card, why: str | None) -> tuple[str, int, Text] | None:
    """The point or pitfall `why` names, as ("point" | "pitfall", its number, its words); None for
    "deeper", a main question, or one the card no longer has."""
    kind, _, key = (why or "").partition(":")
    entries: Sequence[Text] = (
        card.points if kind == "point" else [e.title for e in card.pitfalls] if kind == "pitfall" else []
    )
    keys = [entry.key for entry in entries]
    return (kind, keys.index(key) + 1, entries[keys.index(key)]) if key in keys else None


def question_text(card: Card, question: InterviewQuestion) -> Text:
    """What the interviewer asks: the card's title, its follow-up's question, or a missed point
    or asserted pitfall put in the interviewer's words."""
    entry = _follow_up(card, question.follow_up)
    if entry is not None:
        return entry.title
    probed = _probed(card, question.why)
    if probed is None:
        return card.title
    kind, _, words = probed
    if kind == "pitfall":
        return Text(
            f"You said something close to this: “{words.markdown}”. Is that right? Say why.", inline=True
        )
    return Text(f"Your answer did not get to this: “{words.markdown}”. Can you explain it?", inline=True)


def why_words(card: Card | None, question: InterviewQuestion) -> str | None:
    """Why a follow-up was asked, in a sentence's words; None for a main question, or a follow-up
    planned when the session began."""
    if question.why is None:
        return None
    if question.why == choice.DEEPER:
        return "deeper: the answer covered every point"
    probed = _probed(card, question.why) if card else None
    if probed is None:
        return "it probed a point the card no longer has"
    kind, number, words = probed
    return f"{'missed point' if kind == 'point' else 'asserted pitfall'} {number}: {words.plain}"


def target(interview: InterviewSession, *, card: Card, question: InterviewQuestion) -> int:
    """The seconds a question is given: the card's timing for a main answer or a point asked
    again, a follow-up's model answer said at an interview's pace."""
    entry = _follow_up(card, question.follow_up)
    if entry is None:
        return card.time_budget(answer_kind(interview, question))
    seconds = len(entry.body.plain.split()) / WORDS_PER_SECOND
    return max(MIN_FOLLOW_UP_S, 10 * math.ceil(seconds / 10))


def deadline(interview: InterviewSession) -> datetime | None:
    """When a session timed as a whole runs out; None when it is not timed."""
    if interview.minutes is None:
        return None
    return interview.created_at + timedelta(minutes=interview.minutes)


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

    @property
    def main(self) -> bool:
        return is_main(self.question)

    @property
    def text(self) -> Text:
        return question_text(self.card, self.question)


def _follow_up(card: Card | None, index: int | None) -> Entry | None:
    """The card's follow-up at `index`, if the card (as served now) still has it."""
    return card.follow_ups[index] if card and index is not None and index < len(card.follow_ups) else None


def _in_order(interview: InterviewSession) -> list[InterviewQuestion]:
    """The questions by position: a follow-up chosen in this request sits at the end of the list."""
    return sorted(interview.questions, key=lambda question: question.position)


def _done(interview: InterviewSession, question: InterviewQuestion) -> bool:
    """Passed over, or answered and (where each answer is rated as it comes) rated."""
    attempt = question.attempt
    rated = attempt is not None and (attempt.rating is not None or not interview.rate_each)
    return rated or question.outcome is not None


def _to_ask(
    interview: InterviewSession, *, question: InterviewQuestion, cards: Mapping[str, Card]
) -> Card | None:
    """The question's card while it is still to be answered or rated and still served: a card
    gone, or a follow-up removed from it since, is skipped."""
    card = cards.get(question.card_id)
    if (
        card is None
        or _done(interview, question)
        or (question.follow_up is not None and _follow_up(card, question.follow_up) is None)
    ):
        return None
    return card


def step(interview: InterviewSession, cards: Mapping[str, Card]) -> Step | None:
    """The first question not yet done, of a card still served; None once every one is: the
    session is finished, wherever its last answer was rated. Once its time ran out, only an
    answer given before then waits (to be rated)."""
    mains = [q for q in interview.questions if is_main(q)]
    for question in _in_order(interview):
        card = _to_ask(interview, question=question, cards=cards)
        if card is None:
            continue
        if interview.ran_out_at is not None and question.attempt is None:
            return None
        number = sum(1 for q in mains if q.position <= question.position)
        return Step(question, card, question.attempt is not None, number, len(mains))
    return None


def settle(
    session: Session, *, interview: InterviewSession, cards: Mapping[str, Card], now: datetime
) -> Step | None:
    """The step the session is at, with `finished_at` kept in step: set when it is first found
    finished (its last answer may be rated on the card's page), cleared when a rating taken back
    opens it again. A session timed as a whole runs out here: past its time, the question it is
    at is not asked (an answer sent before this was still taken)."""
    current = step(interview, cards)
    end = deadline(interview)
    if current is not None and not current.assessing and end is not None and now >= end:
        interview.ran_out_at = now
        current = None
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
    why: str | None = None
    # The checker's reading of a main answer: the card's points it found, and those it did not.
    covered: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    # How an answer given aloud was said (its recording's delivery).
    delivery: dict[str, Any] | None = None
    # What was answered, typed or heard; None where the reader may not see it (app/team).
    text: str | None = None

    @property
    def title(self) -> Text | None:
        """What was asked, for a follow-up (a main question's is its card's title)."""
        if self.card is None or is_main(self.question):
            return None
        return question_text(self.card, self.question)

    @property
    def weakness(self) -> tuple[int, float]:
        """Lower is weaker: the rating first, then the share of points covered."""
        rating = self.attempt.rating if self.attempt else None
        rank = next((n for n, name in enumerate(RATINGS) if name == rating), -1)
        return rank, (self.points or 0) / (self.of or 1)


def _delivery(
    session: Session, *, interview: InterviewSession, attempt: Attempt | None
) -> dict[str, Any] | None:
    """How an answer given aloud was said; None for a typed one, or once its recording is gone."""
    if attempt is None or attempt.recording_id is None:
        return None
    try:
        recording = speech.own_recording(
            session, user_id=interview.user_id, recording_id=attempt.recording_id
        )
    except NotFound:
        return None
    return recording.delivery


@dataclass(frozen=True)
class Compared:
    """A card asked in both sessions: its main answer then and now."""

    card: Card
    then: Answered
    now: Answered


@dataclass(frozen=True)
class Comparison:
    """The person's last finished session that asked some of the same cards."""

    interview: InterviewSession
    cards: list[Compared]


@dataclass(frozen=True)
class Summary:
    cards: list[tuple[Answered, list[Answered]]]  # each main answer with its follow-ups
    weakest: list[Answered]
    previous: Comparison | None = None
    # How many of its cards were asked (fewer than it has when its time ran out).
    asked: int = 0


def answered(
    session: Session, *, interview: InterviewSession, cards: Mapping[str, Card]
) -> list[tuple[Answered, list[Answered]]]:
    """Each main question of the session as the summary shows it, with its follow-ups."""
    rows: list[tuple[Answered, list[Answered]]] = []
    for question in _in_order(interview):
        card, attempt = cards.get(question.card_id), question.attempt
        if interview.ran_out_at is not None and attempt is None and question.outcome is None:
            continue  # not asked before the time ran out
        shown = suggestions.shown(session, card=card, attempt=attempt) if card and attempt else None
        main = is_main(question)
        read = shown.points if shown and not shown.follow_up else ()
        answered = Answered(
            question=question,
            card=card,
            attempt=attempt,
            target=target(interview, card=card, question=question) if card else None,
            points=len(card.point_positions(attempt.points)) if card and attempt and main else None,
            of=len(card.points) if card and main else None,
            pitfalls=tuple(p.entry for p in shown.pitfalls) if shown else (),
            why=why_words(card, question),
            covered=tuple(point.html for point in read if point.covered),
            missed=tuple(point.html for point in read if not point.covered),
            delivery=_delivery(session, interview=interview, attempt=attempt),
            text=attempt.text if attempt else None,
        )
        if main or not rows:
            rows.append((answered, []))
        else:
            rows[-1][1].append(answered)
    return rows


def _previous(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    rows: list[tuple[Answered, list[Answered]]],
) -> Comparison | None:
    """The person's last finished session before this one that asked some of its cards, each
    shared card's answer then beside now's; looked for among the LISTED sessions before it."""
    now = {main.question.card_id: main for main, _ in rows if main.card is not None}
    earlier = session.scalars(
        select(InterviewSession)
        .where(
            InterviewSession.user_id == interview.user_id,
            InterviewSession.created_at < interview.created_at,
            InterviewSession.finished_at.is_not(None),
        )
        .order_by(InterviewSession.created_at.desc(), InterviewSession.id.desc())
        .limit(LISTED)
    )
    for other in earlier:
        if not {q.card_id for q in other.questions if is_main(q)} & now.keys():
            continue
        then = {main.question.card_id: main for main, _ in answered(session, interview=other, cards=cards)}
        shared = [
            Compared(card, then[card_id], asked_now)
            for card_id, asked_now in now.items()
            if card_id in then and (card := asked_now.card) is not None
        ]
        return Comparison(other, shared)
    return None


def summary(session: Session, *, interview: InterviewSession, cards: Mapping[str, Card]) -> Summary:
    rows = answered(session, interview=interview, cards=cards)
    rated = [main for main, _ in rows if main.card and main.attempt and main.attempt.rating]
    return Summary(
        rows,
        sorted(rated, key=lambda a: a.weakness)[:WEAKEST],
        previous=_previous(session, interview=interview, cards=cards, rows=rows),
        asked=len(rows),
    )


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
    # The question being asked, said aloud (`GET /api/voice/{key}`); None: shown, not read.
    audio_url: str | None = None
    # A session timed as a whole: the seconds it has left.
    seconds_left: float | None = None


def audio_url(
    session: Session, *, card: Card, question: InterviewQuestion, asker: Asker | None
) -> str | None:
    """Where the question is heard, said by a worker in the deployment's voice; None when it is
    not read aloud (see app/speech/voicing.py)."""
    if asker is None:
        return None
    wanted = voicing.ask(session, text=question_text(card, question).markdown, asker=asker)
    return f"/api/voice/{wanted}" if wanted else None


def page(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    now: datetime,
    answered: Recorded | None = None,
    asker: Asker | None = None,
) -> Page:
    """The session's page as it now stands (settled: see `settle`). `answered`, the answer just
    recorded, brings its suggestion along; an older answer's is read. With `asker`, a question
    being asked comes with its sound."""
    current = settle(session, interview=interview, cards=cards, now=now)
    if current is None:
        return Page(interview, None, summary=summary(session, interview=interview, cards=cards))
    attempt = current.question.attempt
    end = deadline(interview)
    left = max(0.0, (end - now).total_seconds()) if end else None
    if answered is not None and answered.attempt is attempt:
        return Page(interview, current, answered.suggestion, delivery=answered.delivery, seconds_left=left)
    if attempt is None:
        heard = audio_url(session, card=current.card, question=current.question, asker=asker)
        return Page(interview, current, audio_url=heard, seconds_left=left)
    shown = suggestions.shown(session, card=current.card, attempt=attempt)
    return Page(interview, current, shown, seconds_left=left)


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
    asker: Asker | None = None,
) -> Page:
    """Record the answer to the question at `position` as a practice attempt, linked to it, its
    model reading asked of `reader`; the page then shows it to assess, beside the suggestion
    recorded with it (or, in a session that moves straight on, the next question, said by `asker`)."""
    with _refused_writes_nothing(session):
        _fresh(session, interview)
        current = _current(interview, cards=cards, position=position, assessing=False)
        question = current.question
        if data.kind != answer_kind(interview, question) or data.follow_up != question.follow_up:
            raise Invalid("kind", "the answer is not to the question this interview asks")

        def link(attempt: Attempt) -> None:
            question.attempt = attempt
            if is_main(question):
                _follow(session, interview=interview, card=current.card, question=question, attempt=attempt)

        recorded = attempts.record(
            session,
            card=current.card,
            user_id=interview.user_id,
            data=data,
            now=now,
            beside=link,
            reader=reader,
        )
    return page(session, interview=interview, cards=cards, now=now, answered=recorded, asker=asker)


def _follow(
    session: Session,
    *,
    interview: InterviewSession,
    card: Card,
    question: InterviewQuestion,
    attempt: Attempt,
) -> None:
    """Put the follow-up chosen from the main answer just recorded in the place after it, at the
    depths that see follow-ups. Part of the answer's unit of work."""
    place = question.position + 1
    if not sees(_tier(interview), "follow_ups") or any(q.position == place for q in interview.questions):
        return  # the place is taken in a session from before, whose follow-ups were planned at its start
    row = suggestions.stored(session, attempt)
    asked = {q.follow_up for q in interview.questions if q.card_id == card.id and q.follow_up is not None}
    picked = choice.choose(
        card, points=row.points if row else [], pitfalls=row.pitfalls if row else [], asked=asked
    )
    if picked is not None:
        interview.questions.append(
            InterviewQuestion(position=place, card_id=card.id, follow_up=picked.follow_up, why=picked.why)
        )


def pass_over(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    position: int,
    outcome: Outcome,
    seconds: float,
    now: datetime,
    asker: Asker | None = None,
) -> Page:
    """Skip the question at `position`, or say "I don't know" to it; either is kept as said, and
    the interview moves on to the next card. "I don't know" to a main question also counts on the
    card's schedule as a miss, as revealing its answer unanswered does on the card's page."""
    with _refused_writes_nothing(session):
        _fresh(session, interview)
        current = _current(interview, cards=cards, position=position, assessing=False)
        question = current.question
        question.outcome = outcome
        if outcome == "dont-know" and is_main(question):
            kind = answer_kind(interview, question)
            data = AttemptIn.model_validate(
                {"tier": interview.tier, "kind": kind, "seconds": seconds, "revealed": True}
            )

            def link(attempt: Attempt) -> None:
                question.attempt = attempt

            attempts.record(
                session, card=current.card, user_id=interview.user_id, data=data, now=now, beside=link
            )
        else:
            session.commit()
    return page(session, interview=interview, cards=cards, now=now, asker=asker)


def assess(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    position: int,
    data: Assessment,
    now: datetime,
    asker: Asker | None = None,
) -> Page:
    """Rate the answer to the question at `position`; rating the last one finishes the session.
    The page then shows the next step, or the summary."""
    with _refused_writes_nothing(session):
        _fresh(session, interview)
        current = _current(interview, cards=cards, position=position, assessing=True)
        attempt = current.question.attempt
        assert attempt is not None  # an assessing step has its answer
        attempts.check_against_card(current.card, data)
        if not [
            q
            for q in interview.questions
            if q.position > position and _to_ask(interview, question=q, cards=cards)
        ]:
            interview.finished_at = now
        attempts.assess(session, card=current.card, attempt=attempt, data=data)
    return page(session, interview=interview, cards=cards, now=now, asker=asker)


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


def question_out(
    interview: InterviewSession, *, card: Card, question: InterviewQuestion, heard: str | None = None
) -> QuestionOut:
    """A question as the API gives it; `heard`, its `audio_url`."""
    probed = _probed(card, question.why)
    probes = None
    if probed is not None:
        kind, number, _ = probed
        key = card.points[number - 1].key if kind == "point" else pitfall_id(card.pitfalls[number - 1].key)
        probes = {kind: key}
    return QuestionOut(
        card_id=card.id,
        kind="main" if is_main(question) else "follow-up",
        follow_up=question.follow_up,
        text=question_text(card, question).plain,
        why=choice.DEEPER if question.why == choice.DEEPER else why_words(card, question),
        probes=probes,
        target_seconds=target(interview, card=card, question=question),
        audio_url=heard,
        position=question.position,
    )


def next_out(
    session: Session, *, interview: InterviewSession, cards: Mapping[str, Card], asker: Asker | None
) -> QuestionOut | None:
    """The question the session is at, with its sound; None once it is over."""
    current = step(interview, cards)
    if current is None:
        return None
    heard = audio_url(session, card=current.card, question=current.question, asker=asker)
    return question_out(interview, card=current.card, question=current.question, heard=heard)


def answer_api(
    session: Session,
    *,
    interview: InterviewSession,
    cards: Mapping[str, Card],
    data: AnswerApiIn,
    now: datetime,
    reader: Reader | None = None,
    asker: Asker | None = None,
) -> AnsweredOut:
    """Answer, or pass over, the question the session is at, as the API does: no rating waits
    between questions (a session the page rates as it goes is refused at a rating step)."""
    current = step(interview, cards)
    if current is None:
        raise Conflict("this interview is finished")
    if current.assessing:
        raise Conflict("this interview waits for its last answer to be rated on its page")
    position = current.question.position
    if data.outcome is not None:
        pass_over(
            session,
            interview=interview,
            cards=cards,
            position=position,
            outcome=data.outcome,
            seconds=data.seconds,
            now=now,
        )
        return AnsweredOut(
            coverage=None, next=next_out(session, interview=interview, cards=cards, asker=asker)
        )
    text = data.text
    if text is None:
        recording = speech.own_recording(
            session, user_id=interview.user_id, recording_id=str(data.recording_id)
        )
        text = (recording.transcript or "").strip()
        if not text:
            raise Invalid(
                "recording_id", "this recording_id has no transcript yet: wait for it, or send 'text'"
            )
    kind = answer_kind(interview, current.question)
    attempt = AttemptIn.model_validate(
        {
            "tier": interview.tier,
            "kind": kind,
            "text": text,
            "seconds": data.seconds,
            "follow_up": current.question.follow_up,
            "recording_id": data.recording_id,
        }
    )
    answer(session, interview=interview, cards=cards, position=position, data=attempt, now=now, reader=reader)
    coverage = None if kind == "follow-up" else coverage_document(current.card, text)
    return AnsweredOut(
        coverage=coverage, next=next_out(session, interview=interview, cards=cards, asker=asker)
    )


def summary_out(
    session: Session, *, interview: InterviewSession, cards: Mapping[str, Card], asker: Asker | None = None
) -> SummaryOut:
    """The session as `GET /api/interviews/{id}` gives it: every question asked so far, with what
    became of it, and the one it is at."""
    asked: list[AskedOut] = []
    for question in _in_order(interview):
        card, attempt = cards.get(question.card_id), question.attempt
        if card is None:
            continue
        if interview.ran_out_at is not None and attempt is None and question.outcome is None:
            break  # the time ran out before it was asked
        row = suggestions.stored(session, attempt) if attempt and attempt.kind != "follow-up" else None
        asked.append(
            AskedOut(
                question=question_out(interview, card=card, question=question),
                outcome=question.outcome,
                answer=attempt.text if attempt else None,
                seconds=attempt.seconds if attempt else None,
                covered=[p["id"] for p in row.points if p.get("covered") and p.get("sure", True)]
                if row
                else None,
                pitfalls=[pitfall_id(p["id"]) for p in row.pitfalls if p.get("sure", True)] if row else None,
                rating=attempt.rating if attempt else None,
                delivery=_delivery(session, interview=interview, attempt=attempt),
            )
        )
        if question.attempt is None and question.outcome is None:
            break  # the question the session is at: nothing asked after it yet
    return SummaryOut(
        id=interview.id,
        tier=_tier(interview),
        created_at=interview.created_at,
        finished_at=interview.finished_at,
        minutes=interview.minutes,
        ran_out=interview.ran_out_at is not None,
        questions=asked,
        next=next_out(session, interview=interview, cards=cards, asker=asker),
        previous=_previous_out(session, interview=interview, cards=cards),
    )


def _previous_out(
    session: Session, *, interview: InterviewSession, cards: Mapping[str, Card]
) -> PreviousOut | None:
    rows = answered(session, interview=interview, cards=cards)
    previous = _previous(session, interview=interview, cards=cards, rows=rows)
    if previous is None:
        return None

    def covered(answered: Answered) -> int | None:
        return len(answered.covered) if answered.text else None

    return PreviousOut(
        id=previous.interview.id,
        created_at=previous.interview.created_at,
        cards=[
            ComparedOut(
                card_id=shared.card.id,
                points=len(shared.card.points),
                covered_then=covered(shared.then),
                covered_now=covered(shared.now),
                seconds_then=shared.then.attempt.seconds if shared.then.attempt else None,
                seconds_now=shared.now.attempt.seconds if shared.now.attempt else None,
                rating_then=shared.then.attempt.rating if shared.then.attempt else None,
                rating_now=shared.now.attempt.rating if shared.now.attempt else None,
            )
            for shared in previous.cards
        ],
    )
