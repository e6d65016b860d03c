"""The entailment model's reading of an answer: which (stretch of the answer, claim) pairs it is
asked about (`question`), and the coverage its probabilities add up to (`answer`). Pure
functions on strings and a card: the model itself runs in the worker's claims child
(app/coverage/child.py), never in the web process.

Every sentence of the answer is asked against every claim: each point (its words, and its
author's explanation), or each claim of a follow-up's model answer, and each pitfall's heading.
A point is covered when some sentence entails it; a pitfall asserted when some sentence entails
its false claim; each with how sure the model was."""

from collections.abc import Sequence
from dataclasses import dataclass

from app.content.cards import Card
from app.coverage.checker import Coverage, PitfallHit, PointHit, follow_up_targets
from app.coverage.methods import Unit, units

METHOD = "claims"
# The most sentences of one answer asked about: an answer at the length limit costs no more.
MAX_UNITS = 60
# Probabilities, in the model's class order (tiercards_claims_model's labels.json).
ENTAIL, NEUTRAL, CONTRADICT = 0, 1, 2


@dataclass(frozen=True)
class Thresholds:
    """A point is covered when its best sentence's entailment reaches `covered`, and the checker
    is sure of it from `sure`; likewise a pitfall with `asserted` and `pitfall_sure`."""

    covered: float = 0.5
    sure: float = 0.8
    asserted: float = 0.5
    pitfall_sure: float = 0.8


TUNED = Thresholds()


@dataclass(frozen=True)
class Question:
    """The pairs the model classifies, pairwise: premises[i] against hypotheses[i]."""

    premises: tuple[str, ...]
    hypotheses: tuple[str, ...]


def _claims(card: Card, follow_up: int | None) -> list[tuple[str, tuple[str, ...]]]:
    """Each point (or follow-up claim) by id, with the texts that state it."""
    if follow_up is not None:
        return [(t.id, t.references[:1]) for t in follow_up_targets(card, follow_up)]
    return [
        (point.key, (point.plain, point.explanation) if point.explanation else (point.plain,))
        for point in card.points
    ]


def _hypotheses(card: Card, follow_up: int | None) -> list[str]:
    stated = [text for _, texts in _claims(card, follow_up) for text in texts]
    return stated + [entry.title.plain for entry in card.pitfalls]


def question(card: Card, *, follow_up: int | None, text: str) -> Question:
    found = units(text)[:MAX_UNITS]
    hypotheses = _hypotheses(card, follow_up)
    return Question(
        tuple(unit.text for unit in found for _ in hypotheses),
        tuple(hypothesis for _ in found for hypothesis in hypotheses),
    )


def answer(
    card: Card,
    *,
    follow_up: int | None,
    text: str,
    probabilities: Sequence[Sequence[float]],
    thresholds: Thresholds = TUNED,
) -> Coverage:
    """The coverage the model's `probabilities` for `question(card, follow_up=…, text=…)` add up to."""
    found = units(text)[:MAX_UNITS]
    claims, width = _claims(card, follow_up), len(_hypotheses(card, follow_up))
    if len(probabilities) != len(found) * width:
        raise ValueError(f"{len(probabilities)} answers for {len(found) * width} pairs")
    rows = [probabilities[at * width : (at + 1) * width] for at in range(len(found))]
    points, column = [], 0
    for claim_id, texts in claims:
        best = _best(found, rows=rows, columns=range(column, column + len(texts)))
        column += len(texts)
        covered = best is not None and best[0] >= thresholds.covered
        points.append(
            PointHit(
                claim_id,
                covered,
                round(best[0], 3) if best else 0.0,
                best[1] if covered and best else None,
                sure=covered and best is not None and best[0] >= thresholds.sure,
            )
        )
    pitfalls = []
    for entry in card.pitfalls:
        best = _best(found, rows=rows, columns=range(column, column + 1))
        column += 1
        if best is not None and best[0] >= thresholds.asserted:
            pitfalls.append(PitfallHit(entry.key, best[1], sure=best[0] >= thresholds.pitfall_sure))
    return Coverage(tuple(points), tuple(pitfalls), method=METHOD)


def _best(
    found: list[Unit], *, rows: Sequence[Sequence[Sequence[float]]], columns: range
) -> tuple[float, Unit] | None:
    """The sentence most surely entailing any of the claim's texts, with that probability."""
    scored = [(rows[at][column][ENTAIL], unit) for at, unit in enumerate(found) for column in columns]
    return max(scored, key=lambda pair: pair[0], default=None)
