"""Suggested edits to cards: the proposals members make, their outcome, and the comments on them.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "card_proposals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(120), nullable=False),
        sa.Column("proposer_id", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("markdown", sa.Text(), nullable=False),
        sa.Column("base", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), server_default="open", nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("decided_at", UTCDateTime(), nullable=True),
        sa.Column("reviewer_id", sa.Integer(), nullable=True),
        sa.Column("decision", sa.String(500), nullable=True),
        sa.Column("commit", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(
            ["proposer_id"], ["users.id"], name="fk_card_proposals_proposer_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["reviewer_id"], ["users.id"], name="fk_card_proposals_reviewer_id_users", ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_card_proposals"),
    )
    op.create_index("ix_card_proposals_status_created", "card_proposals", ["status", "created_at"])
    op.create_index("ix_card_proposals_proposer_created", "card_proposals", ["proposer_id", "created_at"])
    op.create_table(
        "proposal_comments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("proposal_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["proposal_id"],
            ["card_proposals.id"],
            name="fk_proposal_comments_proposal_id_card_proposals",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["author_id"], ["users.id"], name="fk_proposal_comments_author_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_proposal_comments"),
    )
    op.create_index("ix_proposal_comments_proposal_id", "proposal_comments", ["proposal_id"])


def downgrade() -> None:
    op.drop_index("ix_proposal_comments_proposal_id", table_name="proposal_comments")
    op.drop_table("proposal_comments")
    op.drop_index("ix_card_proposals_proposer_created", table_name="card_proposals")
    op.drop_index("ix_card_proposals_status_created", table_name="card_proposals")
    op.drop_table("card_proposals")
