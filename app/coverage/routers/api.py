"""POST /api/cards/{card_id}/coverage: which answer points an answer covers and which pitfalls it
asserts, for scripts and editors. Reached as /api/cards/{card_id} is (signed in where the
deployment requires it); nothing is stored."""

from fastapi import APIRouter

from app.content.dependencies import CardDep
from app.coverage import service
from app.coverage.schemas import CoverageIn, CoverageOut

router = APIRouter(tags=["api"])


# A plain def: FastAPI runs it in its thread pool, so the check's few milliseconds of scoring never
# hold up the event loop.
@router.post("/api/cards/{card_id}/coverage")
def check_coverage(card: CardDep, answer: CoverageIn) -> CoverageOut:
    """Suggestions only: which of the card's answer points the answer covers and which of its
    pitfalls it asserts, each with the stretch of the answer that shows it, and how well the
    checker agreed with hand labels (`measured`)."""
    return service.coverage_document(card, answer.text)
