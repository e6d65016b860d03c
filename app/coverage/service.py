"""The coverage check as the API and the CLI answer it: the checker's suggestions for an answer,
each with its evidence as written, beside the figures it was measured at. Stores nothing."""

import threading
from collections import OrderedDict
from dataclasses import asdict

from app.content.model import Card
from app.coverage.checker import Checker, point_targets
from app.coverage.measured import MEASURED
from app.coverage.methods import Unit
from app.coverage.schemas import CoverageOut, MeasuredOut, PitfallOut, PointOut

# Reading a card's points into what answers are scored against takes ~5-10 ms, checking an
# answer against them ~1 ms: one checker per card as the catalogue serves it. Keyed by the Card
# object, which the entry keeps alive (so its id is not reused); an edited card is a new object.
MAX_CHECKERS = 512
_checkers: OrderedDict[int, tuple[Card, Checker]] = OrderedDict()
_lock = threading.Lock()


def _checker(card: Card) -> Checker:
    with _lock:
        found = _checkers.get(id(card))
    if found is not None and found[0] is card:
        return found[1]
    checker = Checker(card, point_targets(card))  # built outside the lock: other cards go on
    with _lock:
        _checkers[id(card)] = (card, checker)
        while len(_checkers) > MAX_CHECKERS:
            _checkers.popitem(last=False)
    return checker


def _written(text: str, unit: Unit) -> str:
    return text[unit.start : unit.end]


def coverage_document(card: Card, text: str) -> CoverageOut:
    """Every answer point of `card` in its order, covered or not, and the pitfalls `text`
    asserts; suggestions only, the person's own ticks decide."""
    found = _checker(card).check(text)
    return CoverageOut(
        points=[
            PointOut(
                id=hit.id,
                covered=hit.covered,
                score=hit.score,
                evidence=hit.evidence and _written(text, hit.evidence),
            )
            for hit in found.points
        ],
        pitfalls=[PitfallOut(id=hit.id, evidence=_written(text, hit.evidence)) for hit in found.pitfalls],
        method=found.method,
        measured=MeasuredOut(**asdict(MEASURED), sentence=MEASURED.sentence()),
    )
