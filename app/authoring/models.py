"""What a suggested edit stores: the markdown proposed, the file it was proposed against, the
outcome, and the conversation about it."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.storage.base import Base, utcnow


class Proposal(Base):
    """A member's edit to one card, waiting for an author (`status` open) or decided (accepted,
    declined). `base` is the card's file as it stood when the edit was proposed: the reviewer's
    diff, and the way to tell that the card changed on disk since."""

    __tablename__ = "card_proposals"
    # The review queue reads the newest open ones; a person's page reads their own newest.
    __table_args__ = (
        Index("ix_card_proposals_status_created", "status", "created_at"),
        Index("ix_card_proposals_proposer_created", "proposer_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    card_id: Mapped[str] = mapped_column(String(120))
    proposer_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    reason: Mapped[str] = mapped_column(String(500))
    markdown: Mapped[str] = mapped_column(Text)
    base: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open", server_default="open")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    decided_at: Mapped[datetime | None]
    reviewer_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # The reviewer's reason for a decline (or note on an accept).
    decision: Mapped[str | None] = mapped_column(String(500))
    # The content repository's commit that took the accepted change, when the folder is one.
    commit: Mapped[str | None] = mapped_column(String(64))
    comments: Mapped[list["ProposalComment"]] = relationship(
        order_by="ProposalComment.id", cascade="all, delete-orphan", passive_deletes=True, lazy="selectin"
    )


class ProposalComment(Base):
    __tablename__ = "proposal_comments"

    id: Mapped[int] = mapped_column(primary_key=True)
    proposal_id: Mapped[int] = mapped_column(ForeignKey("card_proposals.id", ondelete="CASCADE"), index=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(String(2000))
    at: Mapped[datetime] = mapped_column(default=utcnow)
