"""POST /api/author/check: what `tiercards content check` says of a card's text, as JSON, for
editors and scripts. Nothing of the card is stored; each check is counted against
AUTHOR_CHECKS_PER_MINUTE."""

from fastapi import APIRouter

from app.authoring import service
from app.authoring.dependencies import AuthorDep, ChecksPerMinuteDep
from app.authoring.schemas import CardSource, CheckOut, ProblemOut
from app.content.dependencies import CatalogueDep
from app.storage.dependencies import DatabaseDep

# The tags the check had when it stood with the pages: its OpenAPI entry stays as it was.
router = APIRouter(tags=["pages"])


@router.post(
    "/api/author/check",
    tags=["api"],
    responses={429: {"description": "You made AUTHOR_CHECKS_PER_MINUTE checks in the last minute"}},
)
def check_card(
    source: CardSource,
    author: AuthorDep,
    catalogue: CatalogueDep,
    db: DatabaseDep,
    per_minute: ChecksPerMinuteDep,
) -> CheckOut:
    """What `tiercards content check` says of a card's text, one problem a line; when it says
    nothing, the card at each depth. Nothing of the card is stored; the check is counted."""
    # Counted in a transaction of its own that ends before the card is rendered: a write session
    # held through the preview would keep one of the few writers' turns for its whole length.
    with db.write_sessions() as session:
        service.count_check(session, user_id=author.id, per_minute=per_minute)
    shown = service.preview(source.text, catalogue.snapshot().cards)
    return CheckOut(
        problems=[ProblemOut(line=problem.line, message=problem.message) for problem in shown.problems],
        card=service.card_json(shown.card) if shown.card else None,
    )
