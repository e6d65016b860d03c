"""Which follow-up an interviewer asks after a card's main answer, from what the coverage checker
made of it: a pitfall it asserted first, then a point it missed, and one level deeper when it
covered every point. Only what the checker is sure of counts as asserted or covered; a point it
did not find counts as missed (asking about a point the answer did make costs the person a
sentence, while accusing them of a pitfall they did not assert would be wrong).

A follow-up whose `Probes:` line names the point or pitfall is asked; where none names it, the
point or pitfall itself is asked in the interviewer's words (`follow_up` None)."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.content.cards import Card

DEEPER = "deeper"


@dataclass(frozen=True)
class Choice:
    """The follow-up to ask (an index into the card's follow-ups; None: the probed point or
    pitfall asked in the interviewer's words) and why, as stored: "point:<key>", "pitfall:<key>"
    or "deeper"."""

    follow_up: int | None
    why: str


def _tied(card: Card, *, asked: set[int], point: int | None = None, pitfall: int | None = None) -> int | None:
    for index, entry in enumerate(card.follow_ups):
        if index not in asked and (point in entry.points or pitfall in entry.pitfalls):
            return index
    return None


def choose(
    card: Card,
    *,
    points: Sequence[Mapping[str, Any]],
    pitfalls: Iterable[Mapping[str, Any]],
    asked: Iterable[int] = (),
) -> Choice | None:
    """The follow-up for an answer whose stored suggestion holds `points` and `pitfalls` (as
    `AttemptCoverage` keeps them), of the card's follow-ups not yet `asked`; None when the answer
    covered everything and the card has no follow-up left to go deeper with."""
    done = set(asked)
    keys = [point.key for point in card.points]
    pitfall_keys = [entry.key for entry in card.pitfalls]
    for item in pitfalls:
        if item.get("sure") and item.get("id") in pitfall_keys:
            index = pitfall_keys.index(item["id"])
            return Choice(_tied(card, asked=done, pitfall=index), f"pitfall:{item['id']}")
    found = {item.get("id"): item for item in points}
    missed = [key for key in keys if not (found.get(key) or {}).get("covered")]
    unsure = [key for key in keys if key not in missed and not found[key].get("sure", True)]
    for key in missed + unsure:
        tied = _tied(card, asked=done, point=keys.index(key))
        if tied is not None or key in missed:
            return Choice(tied, f"point:{key}")
    left = [i for i in range(len(card.follow_ups)) if i not in done]
    # Deeper: a follow-up that goes past the card's points, where the card ties the others to them.
    deeper = [i for i in left if not card.follow_ups[i].points] or left
    return Choice(deeper[0], DEEPER) if deeper else None
