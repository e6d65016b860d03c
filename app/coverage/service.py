"""The coverage check as the API and the CLI answer it: a method's suggestions for an answer,
each with its evidence as written, beside the figures that method was measured at. Stores
nothing. The API reads by words (`check`); the entailment model never runs in the web process,
only on the workers and in the CLI's own process (`read_with_model`)."""

from dataclasses import asdict

from app.content.cards import Card, pitfall_id
from app.coverage import reading
from app.coverage.checker import Coverage, check
from app.coverage.measured import METHODS
from app.coverage.methods import Unit
from app.coverage.schemas import CoverageOut, MeasuredOut, PitfallOut, PointOut


def _written(text: str, unit: Unit) -> str:
    return text[unit.start : unit.end]


def read_with_model(card: Card, text: str) -> Coverage:
    """The entailment model's reading, in this process: loads onnxruntime and the model (a second
    or so), so only a command-line run calls it."""
    from app.coverage.entailment import Entailment

    asked = reading.question(card, follow_up=None, text=text)
    probabilities = (
        Entailment.load().classify(asked.premises, asked.hypotheses).tolist() if asked.premises else []
    )
    return reading.answer(card, follow_up=None, text=text, probabilities=probabilities)


def coverage_document(card: Card, text: str) -> CoverageOut:
    """The check by words, as the API answers it at once."""
    return document(card, text=text, found=check(card, text))


def document(card: Card, *, text: str, found: Coverage) -> CoverageOut:
    """Every answer point of `card` in its order, covered or not, and the pitfalls `text`
    asserts, as `found` has them; suggestions only, the person's own ticks decide."""
    measured = METHODS[found.method].measured
    return CoverageOut(
        points=[
            PointOut(
                id=hit.id,
                covered=hit.covered,
                sure=hit.covered and hit.sure,
                score=hit.score,
                evidence=hit.evidence and _written(text, hit.evidence),
            )
            for hit in found.points
        ],
        pitfalls=[
            PitfallOut(id=pitfall_id(hit.id), evidence=_written(text, hit.evidence), sure=hit.sure)
            for hit in found.pitfalls
        ],
        method=found.method,
        measured=MeasuredOut(
            **asdict(measured), sentence=measured.sentence(), pitfall_sentence=measured.pitfall_sentence()
        ),
    )
