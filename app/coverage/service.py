"""The coverage check as the API and the CLI answer it: the checker's suggestions for an answer,
each with its evidence as written, beside the figures it was measured at. Stores nothing."""

from dataclasses import asdict

from app.content.cards import Card, pitfall_id
from app.coverage.checker import check
from app.coverage.measured import MEASURED
from app.coverage.methods import Unit
from app.coverage.schemas import CoverageOut, MeasuredOut, PitfallOut, PointOut


def _written(text: str, unit: Unit) -> str:
    return text[unit.start : unit.end]


def coverage_document(card: Card, text: str) -> CoverageOut:
    """Every answer point of `card` in its order, covered or not, and the pitfalls `text`
    asserts; suggestions only, the person's own ticks decide."""
    found = check(card, text)
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
            **asdict(MEASURED), sentence=MEASURED.sentence(), pitfall_sentence=MEASURED.pitfall_sentence()
        ),
    )
