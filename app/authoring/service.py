"""The author preview's rules: the card validator run on text that is in no file, and what each
depth would show of the card it makes. Nothing of a card is written anywhere: publishing stays the
CLI's. The API's checks are counted (in the audit log, so every replica sees the same count) to
hold each person to AUTHOR_CHECKS_PER_MINUTE."""

import contextlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts import audit
from app.accounts.models import User
from app.accounts.service import lock_person
from app.content.cards import Card, Point, Problem
from app.content.parser import ID_PATTERN, CardParseError
from app.content.placeholders import parse_checked, placeholders, without_placeholder_answer
from app.content.scaffold import new_card
from app.content.serializers import card_for_tier, card_summary
from app.content.tiers import TIERS, Tier, go_deeper_tiers, sees
from app.content.uncovered import uncovered_point
from app.coverage.checker import check_model_answer, model_answer
from app.coverage.methods import sentences
from app.exceptions import NotFound, TooMany
from app.practice.models import Attempt, AttemptCoverage
from app.practice.quiz import QuizItem, quiz_items
from app.storage.base import utcnow

# Problems name a path; the preview shows only their lines.
PREVIEW_PATH = Path("preview.md")
SCAFFOLD_ID = "new-card"
# The frontmatter's id line, read loosely: a card still being written downloads under its id too.
_ID_LINE = re.compile(r"^id:[ \t]*[\"']?([^\"'\s#]*)", re.MULTILINE)
CHECK_KIND = "author_check"
CHECK_WINDOW = timedelta(minutes=1)
# The team's agreement with the checker reads this many of a card's most recent assessed answers:
# what the checker does now, at a cost that does not grow with the card's history.
AGREEMENT_ANSWERS = 500
# The checker's work grows with points times model-answer sentences (a real card has under 100
# pairs): past this the preview leaves its view out rather than hold a worker for seconds.
MAX_CHECKED_PAIRS = 20_000


@dataclass(frozen=True)
class Depth:
    """What a person practising at `tier` sees of the card (app/content/tiers.py decides)."""

    tier: Tier
    expectations: tuple[Tier, ...]
    solid: bool
    follow_ups: bool
    deep_dive: bool
    quiz: tuple[QuizItem, ...]


@dataclass(frozen=True)
class PointCheck:
    """What the coverage checker makes of the card's model answer for one point: the sentence of
    the Basics or Solid answer that covers it (as written), or the warning the CLI gives."""

    point: Point
    evidence: str | None
    warning: Problem | None


@dataclass(frozen=True)
class PointAgreement:
    """Over `answers` assessed answers: on how many the person's final tick for the point matched
    the checker's suggestion, and on how many it differed each way."""

    point: Point
    answers: int
    agreed: int
    checker_only: int  # the checker ticked it, the person did not
    person_only: int  # the person ticked it, the checker did not


@dataclass(frozen=True)
class TeamAgreement:
    answers: int  # the assessed answers read, at most AGREEMENT_ANSWERS
    points: tuple[PointAgreement, ...]


@dataclass(frozen=True)
class Preview:
    problems: tuple[Problem, ...]
    card: Card | None
    depths: tuple[Depth, ...]
    # The file a served card with the same id comes from: saving over it changes that card.
    served_from: str | None
    # None when the card is too large for the checker's view (MAX_CHECKED_PAIRS).
    coverage: tuple[PointCheck, ...] | None = ()
    answer_sentences: int = 0
    # What `tiercards content check` warns about without refusing the card: template text left in.
    warnings: tuple[Problem, ...] = ()


def scaffold() -> str:
    """What `tiercards content new` writes, for an author to start from."""
    return new_card(SCAFFOLD_ID, title="A new question?")


def served_text(served: Mapping[str, Card], card_id: str) -> str:
    """The markdown of the served card `card_id`, read from its file now: what an edit starts from
    is the file as it stands, even in the second before the catalogue reloads it."""
    card = served.get(card_id)
    if card is not None:
        # A file removed or broken since the last reload is a card no longer served.
        with contextlib.suppress(OSError, UnicodeDecodeError):
            return as_typed(card.path.read_text(encoding="utf-8"))
    raise NotFound(f"no card with the id '{card_id[:80]}' is served")


def preview(text: str, served: Mapping[str, Card]) -> Preview:
    """The problems `tiercards content check` finds in `text`, or, when there are none, the card
    at each depth. `served` is the catalogue's cards, to say when the id is taken."""
    try:
        card = parse_checked(text, PREVIEW_PATH)
    except CardParseError as error:
        return Preview(tuple(error.problems), None, (), None)
    known = served.get(card.id)
    depths = tuple(_depth(card, tier=tier, seed=seed) for seed, tier in enumerate(TIERS))
    said = len(sentences(model_answer(card)))
    coverage = model_answer_coverage(card) if len(card.points) * said <= MAX_CHECKED_PAIRS else None
    served_from = known.path.name if known else None
    return Preview((), card, depths, served_from, coverage, said, tuple(placeholders(card, text)))


def model_answer_coverage(card: Card) -> tuple[PointCheck, ...]:
    """Each point as the checker reads the card's own Basics and Solid answer, as `tiercards
    content check` does: without what is still the template's."""
    written = without_placeholder_answer(card)
    answer, hits = model_answer(written), check_model_answer(written).points
    return tuple(
        PointCheck(point, answer[hit.evidence.start : hit.evidence.end], None)
        if hit.covered and hit.evidence
        else PointCheck(point, None, uncovered_point(card, position))
        for position, (point, hit) in enumerate(zip(card.points, hits, strict=True))
    )


def team_agreement(session: Session, card: Card) -> TeamAgreement:
    """Per point of `card`, how the checker's suggestions compare with the person's final ticks,
    over the AGREEMENT_ANSWERS most recent assessed answers to the card. The checker's side is read
    from answer texts, so the answers of people who hide theirs from leads are left out."""
    rows = session.execute(
        select(AttemptCoverage.points, Attempt.points)
        .join(Attempt, Attempt.id == AttemptCoverage.attempt_id)
        .join(User, User.id == Attempt.user_id)
        .where(
            Attempt.card_id == card.id,
            AttemptCoverage.compared.is_not(None),
            User.hide_answers.is_(False),
        )
        .order_by(Attempt.created_at.desc(), Attempt.id.desc())
        .limit(AGREEMENT_ANSWERS)
    ).all()
    counts = {point.key: [0, 0, 0, 0] for point in card.points}  # answers, agreed, checker, person
    for suggested, ticked in rows:
        person = set(ticked or ())
        for hit in suggested or ():
            key = str(hit.get("id")) if isinstance(hit, dict) else ""
            tally = counts.get(key)
            if tally is None:
                continue  # a point the card no longer has
            checker, mine = bool(hit.get("covered")), key in person
            tally[0] += 1
            tally[1] += checker == mine
            tally[2] += checker and not mine
            tally[3] += mine and not checker
    return TeamAgreement(len(rows), tuple(PointAgreement(point, *counts[point.key]) for point in card.points))


def _depth(card: Card, *, tier: Tier, seed: int) -> Depth:
    return Depth(
        tier=tier,
        expectations=go_deeper_tiers(tier),
        solid=sees(tier, "solid"),
        follow_ups=sees(tier, "follow_ups"),
        deep_dive=sees(tier, "deep_dive"),
        # One fixed deal per depth, so the quiz keeps its order while the author types.
        quiz=tuple(quiz_items(card, seed)),
    )


def card_json(card: Card) -> dict[str, Any]:
    """The card's metadata and, by depth, the sections the card API gives that depth."""
    return {**card_summary(card), "depths": {tier: card_for_tier(card, tier)["sections"] for tier in TIERS}}


def as_typed(text: str) -> str:
    """The text as the author's textarea holds it: a browser sends a form's line breaks as CRLF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def file_name(text: str) -> str:
    """`<id>.md`, or `card.md` while the text names no usable id."""
    match = _ID_LINE.search(text)
    card_id = match.group(1) if match else ""
    return f"{card_id}.md" if ID_PATTERN.match(card_id) else "card.md"


def count_check(session: Session, *, user_id: int, per_minute: int) -> None:
    """Count one check by `user_id`, or raise TooMany (counting nothing) when they made
    `per_minute` in the last minute."""
    lock_person(session, user_id)  # two checks at once must not both see room for one
    now = utcnow()
    made = audit.times_since(session, kind=CHECK_KIND, since=now - CHECK_WINDOW, user_id=user_id)
    if len(made) >= per_minute:
        # Room for one more comes when the oldest check of the window leaves it.
        wait = max(1, math.ceil((made[-per_minute] + CHECK_WINDOW - now).total_seconds()))
        session.rollback()
        raise TooMany(
            f"you checked {len(made)} cards in the last minute (at most {per_minute}): try again in {wait} s",
            retry_after=wait,
        )
    audit.record(session, kind=CHECK_KIND, user_id=user_id, actor_id=user_id)
    session.commit()
