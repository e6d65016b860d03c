"""Authoring as JSON. POST /api/author/check: what `tiercards content check` says of a card's
text, for editors and scripts (nothing of the card is stored; each check is counted against
AUTHOR_CHECKS_PER_MINUTE). Suggested edits: anyone signed in proposes; authors and admins list
them all, accept and decline; everyone else lists their own."""

from typing import Annotated

from fastapi import APIRouter, Body, Query, status
from sqlalchemy.orm import Session

from app.accounts.dependencies import CurrentPersonDep
from app.authoring import proposals, service
from app.authoring.dependencies import AuthorDep, ChecksPerMinuteDep, ProposalsPerHourDep
from app.authoring.models import Proposal
from app.authoring.schemas import (
    AcceptIn,
    CardSource,
    CheckOut,
    DeclineIn,
    ProblemOut,
    ProposalIn,
    ProposalOut,
    ProposalState,
)
from app.content.dependencies import CatalogueDep
from app.schemas import Id
from app.storage.dependencies import DatabaseDep, SessionDep, WriteSessionDep

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


def proposal_out(session: Session, rows: list[Proposal]) -> list[ProposalOut]:
    named = proposals.names(session, [p.proposer_id for p in rows] + [p.reviewer_id for p in rows])
    return [
        ProposalOut(
            id=p.id,
            status=p.status,
            card_id=p.card_id,
            proposer=named.get(p.proposer_id),
            reason=p.reason,
            created_at=p.created_at,
            decided_at=p.decided_at,
            reviewer=named.get(p.reviewer_id) if p.reviewer_id else None,
            decision=p.decision,
            commit=p.commit,
        )
        for p in rows
    ]


@router.post(
    "/api/cards/{card_id}/proposals",
    status_code=status.HTTP_201_CREATED,
    tags=["api"],
    responses={
        404: {"description": "No published card has this id"},
        429: {"description": "You made PROPOSALS_PER_HOUR suggestions in the last hour"},
    },
)
def propose(
    card_id: str,
    data: ProposalIn,
    person: CurrentPersonDep,
    catalogue: CatalogueDep,
    per_hour: ProposalsPerHourDep,
    session: WriteSessionDep,
) -> ProposalState:
    """Suggest the card's whole new markdown, with a reason; it waits for an author's review."""
    made = proposals.propose(
        session,
        catalogue=catalogue,
        card_id=card_id,
        proposer_id=person.id,
        markdown=data.markdown,
        reason=data.reason,
        per_hour=per_hour,
    )
    return ProposalState(id=made.id, status="open")


@router.get("/api/proposals", tags=["api"])
def list_proposals(
    person: CurrentPersonDep,
    session: SessionDep,
    status: Annotated[proposals.Status | None, Query(description="only those in this state")] = None,
) -> list[ProposalOut]:
    """The newest 50: every person's for authors and admins, your own for everyone else."""
    mine = None if person.powers.authors else person.id
    return proposal_out(session, proposals.listed(session, status=status, proposer_id=mine))


@router.post(
    "/api/proposals/{proposal_id}/accept",
    tags=["api"],
    responses={409: {"description": "Already decided, or the card changed or was deleted since"}},
)
def accept(
    proposal_id: Id,
    author: AuthorDep,
    catalogue: CatalogueDep,
    session: WriteSessionDep,
    data: Annotated[AcceptIn | None, Body()] = None,
) -> ProposalState:
    """Write the suggested markdown (or `markdown`, the reviewer's edit of it) over the card."""
    done = proposals.accept(
        session,
        catalogue=catalogue,
        proposal_id=proposal_id,
        reviewer_id=author.id,
        reviewer=author.name,
        markdown=data.markdown if data else None,
    )
    return ProposalState(id=done.id, status="accepted")


@router.post(
    "/api/proposals/{proposal_id}/decline", tags=["api"], responses={409: {"description": "Already decided"}}
)
def decline(proposal_id: Id, data: DeclineIn, author: AuthorDep, session: WriteSessionDep) -> ProposalState:
    done = proposals.decline(session, proposal_id=proposal_id, reviewer_id=author.id, reason=data.reason)
    return ProposalState(id=done.id, status="declined")
