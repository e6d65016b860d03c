"""The entailment model's reading of an answer, joined with the words': which (stretch of the
answer, claim) pairs the model is asked about (`question`), and the coverage its probabilities
and the lexical checker's suggestion add up to (`answer`). Pure functions on strings and a card:
the model itself runs in the worker's claims child (app/coverage/child.py), never in the web
process.

Every sentence of the answer is asked against every claim: each point (its words, and its
author's explanation), or each claim of a follow-up's model answer, and each pitfall's heading.
Measured alone on the tuning cards, the model says "entails" far too readily (precision 0.43
on points, 0.25 on pitfalls: it was trained on ten cards), so it reads behind the words: a point
is covered when the lexical checker finds it and the model's best sentence entails it, or when
the model is all but certain (`alone`); a pitfall is asserted when the lexical checker lists
it and the model finds the sentence it was listed for entails it. The thresholds are tuned on
the tuning cards (bench/coverage_claims.py)."""

from collections.abc import Sequence
from dataclasses import dataclass

from app.content.cards import Card
from app.coverage.checker import Coverage, PitfallHit, PointHit, check, check_follow_up, follow_up_targets
from app.coverage.methods import Unit, units

METHOD = "claims"
# The most sentences of one answer asked about: an answer at the length limit costs no more.
MAX_UNITS = 60
# Where entailment stands in the model's class order (tiercards_claims_model's labels.json; not
# imported from app.coverage.entailment, which loads numpy and onnxruntime).
ENTAIL = 0


@dataclass(frozen=True)
class Thresholds:
    """A point the words find is covered when its best sentence's entailment reaches `covered`
    (one they miss, from `alone`); the checker is sure of it when the words were, or from `sure`;
    a pitfall the words list is asserted from `asserted`, and sure from `pitfall_sure`."""

    covered: float = 0.5
    alone: float = 1.0
    sure: float = 0.8
    asserted: float = 0.5
    pitfall_sure: float = 0.8


TUNED = Thresholds(covered=0.7, alone=0.99, sure=0.97, asserted=0.1, pitfall_sure=0.97)


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
    """The coverage the model's `probabilities` for `question(card, follow_up=…, text=…)` and the
    lexical checker's suggestion add up to."""
    words = check(card, text) if follow_up is None else check_follow_up(card, index=follow_up, text=text)
    by_words = {hit.id for hit in words.points if hit.covered}
    sure_by_words = {hit.id for hit in words.points if hit.covered and hit.sure}
    # A listed pitfall is judged on the sentence the words found it in, and shown with it.
    listed = {hit.id: (hit.evidence.start, hit.evidence.end) for hit in words.pitfalls}
    found = units(text)[:MAX_UNITS]
    claims = _claims(card, follow_up)
    width = sum(len(texts) for _, texts in claims) + len(card.pitfalls)
    if len(probabilities) != len(found) * width:
        raise ValueError(f"{len(probabilities)} answers for {len(found) * width} pairs")
    rows = [probabilities[at * width : (at + 1) * width] for at in range(len(found))]
    points, column = [], 0
    for claim_id, texts in claims:
        best = _best(found, rows=rows, columns=range(column, column + len(texts)))
        column += len(texts)
        needed = thresholds.covered if claim_id in by_words else thresholds.alone
        covered = best is not None and best[0] >= needed
        points.append(
            PointHit(
                claim_id,
                covered,
                round(best[0], 3) if best else 0.0,
                best[1] if covered and best else None,
                # Sure when the words were and the model agrees, or the model alone is sure.
                sure=covered
                and (claim_id in sure_by_words or (best is not None and best[0] >= thresholds.sure)),
            )
        )
    pitfalls = []
    for entry in card.pitfalls:
        # The stretches shown as that sentence (the windows of a long one show the same span).
        there = [at for at, unit in enumerate(found) if (unit.start, unit.end) == listed.get(entry.key)]
        entailed, said = max(((rows[at][column][ENTAIL], at) for at in there), default=(0.0, None))
        column += 1
        if said is not None and entailed >= thresholds.asserted:
            pitfalls.append(PitfallHit(entry.key, found[said], sure=entailed >= thresholds.pitfall_sure))
    return Coverage(tuple(points), tuple(pitfalls), method=METHOD)


def _best(
    found: list[Unit], *, rows: Sequence[Sequence[Sequence[float]]], columns: range
) -> tuple[float, Unit] | None:
    """The sentence most surely entailing any of the claim's texts, with that probability."""
    scored = [(rows[at][column][ENTAIL], unit) for at, unit in enumerate(found) for column in columns]
    return max(scored, key=lambda pair: pair[0], default=None)
