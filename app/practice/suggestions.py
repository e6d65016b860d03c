"""The coverage checker's suggestion on an answer: computed and stored as the answer is recorded,
replaced by the entailment model's reading when a worker sends one (app/practice/readings.py),
compared with the person's own ticks once they assess it, and read back for the pages.

A suggestion only: the person's ticks and rating decide what is saved."""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.cards import Card, Entry
from app.coverage.checker import (
    Coverage,
    check,
    check_follow_up,
    follow_up_targets,
    pitfall_lead,
    point_verdict,
)
from app.coverage.measured import METHODS
from app.exceptions import NotFound
from app.practice.models import Attempt, AttemptCoverage
from app.storage.base import utcnow

ANSWER_KINDS = ("basics", "solid")
# How long the page waits for the entailment model's reading before it says it did not come.
READING_WAIT_S = 20.0


def checked(card: Card, *, kind: str, follow_up: int | None, text: str | None) -> Coverage | None:
    """What the checker suggests for an answer of this kind; None for a quiz or an empty answer."""
    if not (text or "").strip():
        return None
    if kind in ANSWER_KINDS:
        return check(card, text or "")
    if kind == "follow-up" and follow_up is not None:
        return check_follow_up(card, index=follow_up, text=text or "")
    return None


def _span(evidence: Any) -> dict[str, int | None]:
    if evidence is None:
        return {"start": None, "end": None}
    return {"start": evidence.start, "end": evidence.end}


def put(row: AttemptCoverage, *, attempt: Attempt, coverage: Coverage) -> None:
    """Write `coverage` into the attempt's row, in place of what it held, and its agreement with
    the person's ticks if they have assessed. Part of the caller's unit of work."""
    row.method = coverage.method
    row.points = [
        {"id": hit.id, "covered": hit.covered, "sure": hit.sure, "score": hit.score} | _span(hit.evidence)
        for hit in coverage.points
    ]
    row.pitfalls = [{"id": hit.id, "sure": hit.sure} | _span(hit.evidence) for hit in coverage.pitfalls]
    if attempt.rating is not None:  # rated as it was sent (the API), or since: assessed already
        compare(row, attempt)


def add(session: Session, *, attempt: Attempt, coverage: Coverage) -> AttemptCoverage:
    """Store the suggestion for a just-recorded attempt (flushed, so it has an id). Part of the
    caller's unit of work."""
    session.flush()
    row = AttemptCoverage(attempt_id=attempt.id)
    put(row, attempt=attempt, coverage=coverage)
    session.add(row)
    return row


def compare(row: AttemptCoverage, attempt: Attempt) -> None:
    """Of the suggestion's points, on how many the person's ticks say the same. Only a basics or
    solid answer has ticks to compare. Part of the caller's unit of work."""
    if attempt.kind not in ANSWER_KINDS:
        return
    ticked = set(attempt.points)
    row.compared = len(row.points)
    row.agreed = sum((point["id"] in ticked) == bool(point["covered"]) for point in row.points)


def stored(session: Session, attempt: Attempt) -> AttemptCoverage | None:
    return session.get(AttemptCoverage, attempt.id)


def assessed(session: Session, attempt: Attempt) -> None:
    """The person has (re-)assessed the attempt: the agreement follows their latest ticks. Part of
    the caller's unit of work."""
    row = stored(session, attempt)
    if row is not None:
        compare(row, attempt)


@dataclass(frozen=True)
class Stretch:
    text: str
    marked: bool


@dataclass(frozen=True)
class PointShown:
    html: str  # the answer point's own markup, or a follow-up sentence (plain text, escaped when shown)
    is_markup: bool
    covered: bool
    evidence: str | None
    sure: bool

    @property
    def verdict(self) -> str:
        return point_verdict(self.covered, self.sure)


@dataclass(frozen=True)
class PitfallShown:
    number: int  # its position on the card, from 1
    entry: Entry
    evidence: str
    sure: bool

    @property
    def lead(self) -> str:
        return pitfall_lead(self.sure)


@dataclass(frozen=True)
class Suggestion:
    attempt_id: int
    stretches: tuple[Stretch, ...]  # the answer, its evidence marked
    points: tuple[PointShown, ...]
    pitfalls: tuple[PitfallShown, ...]
    covered: frozenset[str]  # the point ids it suggests ticking: those it is sure of
    follow_up: bool
    read_by: str  # what read the answer: the method that made this suggestion
    measured: str
    pitfalls_measured: str
    # The entailment model's reading, as the page tells it: "waiting" (the page asks again),
    # "late" (not back within READING_WAIT_S), "done", "failed", "unavailable"; None: never asked.
    reading: str | None


def reading_state(row: AttemptCoverage) -> str | None:
    """Where the model's reading of the row's answer stands, as the page tells it (`Suggestion`)."""
    if row.reading != "queued":
        return row.reading
    # Not yet flushed: the answer was recorded in this very request.
    asked = row.created_at or utcnow()
    return "waiting" if utcnow() - asked < timedelta(seconds=READING_WAIT_S) else "late"


def _evidence(text: str, item: dict[str, Any]) -> tuple[int, int] | None:
    """The stored stretch when it still lies inside the text (a row from a file may not)."""
    start, end = item.get("start"), item.get("end")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
        return start, end
    return None


def marked(text: str, spans: Iterable[tuple[int, int]]) -> tuple[Stretch, ...]:
    """The text cut into stretches, the spans (merged where they overlap or touch) marked."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    stretches, at = [], 0
    for start, end in merged:
        if start > at:
            stretches.append(Stretch(text[at:start], False))
        stretches.append(Stretch(text[start:end], True))
        at = end
    if at < len(text):
        stretches.append(Stretch(text[at:], False))
    return tuple(stretches)


def _sure(item: dict[str, Any]) -> bool:
    """Whether the checker was sure of a stored point or pitfall; rows stored before it said so
    were read as sure."""
    return item.get("sure", True) is not False


def _targets(card: Card, attempt: Attempt) -> dict[str, tuple[str, bool]]:
    """Each point id the card still has: its text, and whether that text is markup."""
    if attempt.kind == "follow-up":
        if attempt.follow_up is None or attempt.follow_up >= len(card.follow_ups):
            return {}
        return {t.id: (t.references[0], False) for t in follow_up_targets(card, attempt.follow_up)}
    return {point.key: (point.html, True) for point in card.points}


def of_attempt(session: Session, *, card: Card, attempt: Attempt) -> Suggestion:
    """The attempt's suggestion as it stands now (GET /attempts/{id}/suggestion); NotFound for an
    answer that has none (a reveal, a quiz, older history)."""
    suggestion = shown(session, card=card, attempt=attempt)
    if suggestion is None:
        raise NotFound(f"the answer {attempt.id} has no suggestion")
    return suggestion


def shown(session: Session, *, card: Card, attempt: Attempt) -> Suggestion | None:
    """The stored suggestion as the pages show it; None when the attempt has none (older history)."""
    row = stored(session, attempt)
    return as_shown(row, card=card, attempt=attempt) if row is not None else None


def as_shown(row: AttemptCoverage, *, card: Card, attempt: Attempt) -> Suggestion | None:
    """The suggestion `row` holds for the attempt, as the pages show it."""
    if not attempt.text:
        return None
    text, targets = attempt.text, _targets(card, attempt)
    spans: list[tuple[int, int]] = []
    points = []
    for item in row.points:
        if item.get("id") not in targets:
            continue  # a point the card no longer has
        html, is_markup = targets[item["id"]]
        span = _evidence(text, item) if item.get("covered") else None
        spans += [span] if span else []
        covered = bool(item.get("covered"))
        points.append(
            PointShown(html, is_markup, covered, text[span[0] : span[1]] if span else None, _sure(item))
        )
    numbers = {entry.key: (n, entry) for n, entry in enumerate(card.pitfalls, start=1)}
    pitfalls = []
    for item in row.pitfalls:
        span = _evidence(text, item)
        if item.get("id") in numbers and span:
            spans.append(span)
            number, entry = numbers[item["id"]]
            pitfalls.append(PitfallShown(number, entry, text[span[0] : span[1]], _sure(item)))
    method = METHODS.get(row.method, METHODS["lexical"])
    return Suggestion(
        attempt_id=attempt.id,
        stretches=marked(text, spans),
        points=tuple(points),
        pitfalls=tuple(pitfalls),
        covered=frozenset(
            item["id"]
            for item in row.points
            if item.get("covered") and _sure(item) and item.get("id") in targets
        ),
        follow_up=attempt.kind == "follow-up",
        read_by=method.read_by,
        measured=method.measured.sentence(),
        pitfalls_measured=method.measured.pitfall_sentence(),
        reading=reading_state(row),
    )


def ticked(attempt: Attempt, suggestion: Suggestion | None) -> set[str]:
    """The points the checklist starts ticked: the suggestion's until the person has assessed,
    their own from then on."""
    if attempt.rating is None and suggestion is not None:
        return set(suggestion.covered)
    return set(attempt.points)


@dataclass(frozen=True)
class CardAgreement:
    agreed: int
    compared: int


# How many of the person's newest assessed answers /progress reads for the agreement: years of
# answers then cost the page no more than this many rows.
AGREEMENT_READ = 1000


@dataclass(frozen=True)
class Agreement:
    by_card: dict[str, CardAgreement]
    answers: int  # the assessed answers counted, at most AGREEMENT_READ
    capped: bool  # older assessed answers were left out


def agreement_by_card(session: Session, *, user_id: int) -> Agreement:
    """Per card, on how many points the person's ticks and the checker's suggestions agreed, over
    their AGREEMENT_READ newest assessed answers."""
    newest = (
        select(Attempt.card_id, AttemptCoverage.agreed, AttemptCoverage.compared)
        .join(AttemptCoverage, AttemptCoverage.attempt_id == Attempt.id)
        .where(Attempt.user_id == user_id, AttemptCoverage.compared.is_not(None))
        .order_by(Attempt.created_at.desc(), Attempt.id.desc())
        .limit(AGREEMENT_READ + 1)
    )
    rows = session.execute(newest).all()
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for card_id, agreed, compared in rows[:AGREEMENT_READ]:
        sums[card_id][0] += int(agreed or 0)
        sums[card_id][1] += int(compared or 0)
    return Agreement(
        {
            card_id: CardAgreement(agreed, compared)
            for card_id, (agreed, compared) in sums.items()
            if compared
        },
        min(len(rows), AGREEMENT_READ),
        len(rows) > AGREEMENT_READ,
    )
