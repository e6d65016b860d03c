"""Suggested edits. Anyone signed in proposes a card's new markdown with a reason; authors and
admins comment, accept (optionally after editing it) or decline with a reason. Accepting writes
the card's file and commits it, the proposer as author and the reviewer as committer, where the
content folder is a repository. Every step is in the audit log, and a person's proposals are
counted against PROPOSALS_PER_HOUR there, so every replica sees the same count."""

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts import audit
from app.accounts.models import User
from app.accounts.service import lock_person
from app.authoring.editing import WRITING, Changed, checked, source, subject, write
from app.authoring.models import Proposal, ProposalComment
from app.authoring.service import AGREEMENT_ANSWERS, as_typed
from app.content.cards import Card, Problem
from app.content.catalogue import Catalogue
from app.content.history_check import item_changes
from app.content.parser import CardParseError, parse_source
from app.exceptions import Conflict, Invalid, NotFound, TooMany
from app.practice.models import Attempt
from app.storage.base import utcnow

Status = Literal["open", "accepted", "declined"]
STATUSES: tuple[Status, ...] = ("open", "accepted", "declined")
PROPOSAL_WINDOW = timedelta(hours=1)
# The review queue and a person's own list show this many, newest first: a page reads no more.
LISTED = 50
# Problems name a path; a proposal is in no file.
_PATH = Path("proposal.md")


@dataclass(frozen=True)
class HistoryChange:
    """What accepting does to recorded answers: the items whose ids go (removed or reworded), and
    of the card's `read` most recent answers, how many ticked a point that goes."""

    warnings: tuple[Problem, ...]
    read: int
    touched: int
    limit: int = AGREEMENT_ANSWERS


def propose(
    session: Session,
    *,
    catalogue: Catalogue,
    card_id: str,
    proposer_id: int,
    markdown: str,
    reason: str,
    per_hour: int,
) -> Proposal:
    """Store `proposer_id`'s edit of the published card `card_id`, or refuse it storing nothing."""
    snapshot = catalogue.snapshot()
    if card_id not in snapshot.cards:  # drafts are their authors' to change
        raise NotFound(f"no card with the id '{card_id[:80]}': it may have been deleted")
    now = source(snapshot, card_id)
    markdown = as_typed(markdown)
    checked(markdown, card_id=card_id, snapshot=snapshot)
    if markdown == now.text:
        raise Invalid("markdown", "this is the card as it stands: change something to suggest an edit")
    _count(session, proposer_id=proposer_id, per_hour=per_hour)
    proposal = Proposal(
        card_id=card_id, proposer_id=proposer_id, reason=reason.strip(), markdown=markdown, base=now.text
    )
    session.add(proposal)
    session.flush()
    audit.record(
        session,
        kind="proposal_made",
        user_id=proposer_id,
        actor_id=proposer_id,
        card=card_id,
        proposal=proposal.id,
    )
    session.commit()
    return proposal


def _count(session: Session, *, proposer_id: int, per_hour: int) -> None:
    lock_person(session, proposer_id)  # two proposals at once must not both see room for one
    now = utcnow()
    made = audit.times_since(session, kind="proposal_made", since=now - PROPOSAL_WINDOW, user_id=proposer_id)
    if len(made) >= per_hour:
        wait = max(1, math.ceil((made[-per_hour] + PROPOSAL_WINDOW - now).total_seconds()))
        session.rollback()
        raise TooMany(
            f"you suggested {len(made)} edits in the last hour (at most {per_hour}): "
            f"try again in {math.ceil(wait / 60)} min",
            retry_after=wait,
        )


def get(session: Session, *, proposal_id: int, lock: bool = False) -> Proposal:
    query = select(Proposal).where(Proposal.id == proposal_id)
    proposal = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if proposal is None:
        raise NotFound(f"no suggested edit with the id {proposal_id}")
    return proposal


def listed(
    session: Session, *, status: Status | None = None, proposer_id: int | None = None
) -> list[Proposal]:
    """The newest LISTED proposals: those with `status`, of `proposer_id` when given."""
    query = select(Proposal)
    if status is not None:
        query = query.where(Proposal.status == status)
    if proposer_id is not None:
        query = query.where(Proposal.proposer_id == proposer_id)
    return list(session.scalars(query.order_by(Proposal.created_at.desc(), Proposal.id.desc()).limit(LISTED)))


def decided_lately(session: Session, *, limit: int) -> list[Proposal]:
    """The `limit` proposals accepted or declined last."""
    query = select(Proposal).where(Proposal.status != "open")
    return list(session.scalars(query.order_by(Proposal.decided_at.desc(), Proposal.id.desc()).limit(limit)))


def open_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Proposal).where(Proposal.status == "open")) or 0


def names(session: Session, user_ids: Iterable[int | None]) -> dict[int, str]:
    wanted = {user_id for user_id in user_ids if user_id is not None}
    if not wanted:
        return {}
    return dict(session.execute(select(User.id, User.name).where(User.id.in_(wanted))).tuples().all())


def comment(session: Session, *, proposal_id: int, author_id: int, text: str) -> ProposalComment:
    proposal = get(session, proposal_id=proposal_id)
    note = ProposalComment(proposal_id=proposal.id, author_id=author_id, text=text.strip())
    session.add(note)
    audit.record(
        session,
        kind="proposal_commented",
        user_id=proposal.proposer_id,
        actor_id=author_id,
        proposal=proposal.id,
    )
    session.commit()
    return note


def _open(session: Session, proposal_id: int) -> Proposal:
    proposal = get(session, proposal_id=proposal_id, lock=True)
    if proposal.status != "open":
        session.rollback()
        raise Conflict(f"suggested edit {proposal_id} was already {proposal.status}")
    return proposal


def accept(
    session: Session,
    *,
    catalogue: Catalogue,
    proposal_id: int,
    reviewer_id: int,
    reviewer: str,
    markdown: str | None = None,
    seen: str | None = None,
) -> Proposal:
    """Write the proposal (or the reviewer's edit of it, `markdown`) over its card. When the card
    changed since it was proposed, the reviewer must have seen the card as it is now (`seen`, its
    text, sent back from the three-way view): otherwise Changed, and nothing is written."""
    proposal = _open(session, proposal_id)
    with WRITING:
        _write_accepted(
            session, catalogue=catalogue, proposal=proposal, reviewer=reviewer, markdown=markdown, seen=seen
        )
    _decide(session, proposal=proposal, status="accepted", reviewer_id=reviewer_id, why=None)
    return proposal


def _write_accepted(
    session: Session,
    *,
    catalogue: Catalogue,
    proposal: Proposal,
    reviewer: str,
    markdown: str | None,
    seen: str | None,
) -> None:
    snapshot = catalogue.snapshot()
    try:
        now = source(snapshot, proposal.card_id)
    except NotFound:
        session.rollback()
        raise Conflict(f"the card '{proposal.card_id}' was deleted since this edit was suggested") from None
    text = as_typed(markdown) if markdown is not None else proposal.markdown
    card = checked(text, card_id=proposal.card_id, snapshot=snapshot)
    if now.text != proposal.base and (seen is None or as_typed(seen) != now.text):
        session.rollback()
        raise Changed(card_id=proposal.card_id, base=proposal.base, current=now.text, mine=text)
    proposer = session.get(User, proposal.proposer_id)
    proposer_name = proposer.name if proposer else "a former member"
    proposal.commit = write(
        catalogue,
        path=now.card.path,
        text=text,
        message=f"{subject('Edit', card)}\n\n{proposal.reason}\n\nSuggested by {proposer_name} (edit {proposal.id}), "
        f"accepted by {reviewer}.",
        author=proposer_name,
        committer=reviewer,
    )


def decline(session: Session, *, proposal_id: int, reviewer_id: int, reason: str) -> Proposal:
    proposal = _open(session, proposal_id)
    _decide(session, proposal=proposal, status="declined", reviewer_id=reviewer_id, why=reason.strip())
    return proposal


def _decide(
    session: Session, *, proposal: Proposal, status: Status, reviewer_id: int, why: str | None
) -> None:
    proposal.status, proposal.decided_at = status, utcnow()
    proposal.reviewer_id, proposal.decision = reviewer_id, why
    audit.record(
        session,
        kind=f"proposal_{status}",
        user_id=proposal.proposer_id,
        actor_id=reviewer_id,
        card=proposal.card_id,
        proposal=proposal.id,
        commit=proposal.commit,
    )
    session.commit()


def cards_of(proposal: Proposal) -> tuple[Card, Card] | None:
    """The card as it was when the edit was proposed, and as the edit makes it; None when either
    text no longer parses (a card format that changed since)."""
    try:
        return parse_source(proposal.base, _PATH), parse_source(proposal.markdown, _PATH)
    except CardParseError:
        return None


def history_change(session: Session, *, proposal: Proposal, cards: tuple[Card, Card] | None) -> HistoryChange:
    """What the edit (`cards`, from cards_of) does to the card's recorded answers."""
    if cards is None:
        return HistoryChange((), 0, 0)
    old, new = cards
    gone = set(old.point_ids) - set(new.point_ids)
    rows = session.scalars(
        select(Attempt.points)
        .where(Attempt.card_id == proposal.card_id)
        .order_by(Attempt.created_at.desc(), Attempt.id.desc())
        .limit(AGREEMENT_ANSWERS)
    ).all()
    touched = sum(1 for ticked in rows if gone & set(ticked or ()))
    return HistoryChange(
        tuple(item_changes(old, old_source=proposal.base, card=new, source=proposal.markdown)),
        len(rows),
        touched,
    )
