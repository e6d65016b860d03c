"""POST /api/cards/{card_id}/coverage: which answer points an answer covers and which pitfalls it
asserts, for scripts and editors. Reached as /api/cards/{card_id} is (signed in where the
deployment requires it); nothing is stored. Each person has one check at a time and
COVERAGE_CHECKS_PER_MINUTE a minute; a web process checks one answer at a time."""

from functools import partial

from fastapi import APIRouter

from app.accounts.dependencies import UserIdDep
from app.content.dependencies import CardDep
from app.coverage import service
from app.coverage.dependencies import PacingDep
from app.coverage.pacing import TURN_WAIT_S
from app.coverage.schemas import CoverageIn, CoverageOut

router = APIRouter(tags=["api"])


# Async: the check waits for its turn on the event loop, holding none of the threads other
# requests need, then runs on one (app/coverage/pacing.py says why one at a time).
@router.post(
    "/api/cards/{card_id}/coverage",
    responses={
        429: {
            "description": "You have a check under way, made COVERAGE_CHECKS_PER_MINUTE checks in the "
            f"last minute, or the server's one check at a time did not come free within {TURN_WAIT_S:g} s"
        }
    },
)
async def check_coverage(
    card: CardDep, answer: CoverageIn, person: UserIdDep, pacing: PacingDep
) -> CoverageOut:
    """Suggestions only: which of the card's answer points the answer covers and which of its
    pitfalls it asserts, each with the stretch of the answer that shows it, and how well the
    checker agreed with hand labels (`measured`)."""
    return await pacing.run(person, partial(service.coverage_document, card, answer.text))
