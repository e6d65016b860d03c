"""The Jinja filters of practice: how an attempt reads in a history table, computed here so
templates only print it.

Defensive on purpose: a row written by an older version, or by hand, still reads sensibly
instead of breaking the page.
"""

from jinja2 import Environment

from app.content.cards import Card
from app.practice.models import Attempt
from app.practice.suggestions import Suggestion, ticked
from app.speech.delivery import PACE_BAND


def attempt_what(attempt: Attempt) -> str:
    """'follow-up 2', 'quiz', 'solid'."""
    if attempt.kind == "follow-up":
        return "follow-up" if attempt.follow_up is None else f"follow-up {attempt.follow_up + 1}"
    return attempt.kind


def attempt_result(attempt: Attempt) -> str:
    """'80 %, good' for a quiz, the self-rating for an answer, or what is missing."""
    if attempt.revealed:
        return "revealed without answering"
    if attempt.kind == "quiz":
        score = "no score" if attempt.score is None else f"{round(attempt.score * 100)} %"
        return f"{score}, {attempt.rating}" if attempt.rating else score
    return attempt.rating or "not rated"


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def attempt_delivery(attempt: Attempt) -> str:
    """'said aloud · 148 wpm · 3 fillers · 1 long pause' for an answer given aloud, else ''."""
    if attempt.words_per_minute is None:
        return ""
    parts = ["said aloud", f"{round(attempt.words_per_minute)} wpm"]
    if attempt.filler_count is not None:
        parts.append(_counted(attempt.filler_count, "filler"))
    if attempt.long_pauses is not None:
        parts.append(_counted(attempt.long_pauses, "long pause"))
    return " · ".join(parts)


def points_covered(attempt: Attempt, card: Card) -> int:
    """How many of the card's points the answer covered; points the card no longer has don't count."""
    return len(card.point_positions(attempt.points))


def ticked_points(attempt: Attempt, suggestion: object = None) -> set[str]:
    """The points a checklist starts ticked (the suggestion's until the person assesses). A page
    that has no suggestion passes Jinja's undefined, which is none."""
    return ticked(attempt, suggestion if isinstance(suggestion, Suggestion) else None)


def register(env: Environment) -> None:
    # The band a pace is measured against, marked on every pace meter that is not a recording's own.
    env.globals["pace_band"] = PACE_BAND
    env.filters.update(
        attempt_what=attempt_what,
        attempt_result=attempt_result,
        attempt_delivery=attempt_delivery,
        points_covered=points_covered,
        ticked_points=ticked_points,
    )
