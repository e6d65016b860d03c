"""Assignments: cards (or a topic's cards) a lead asks a member or everyone to review at a depth
by a date.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("tier", sa.String(length=16), nullable=False),
        sa.Column("topic", sa.String(length=80), nullable=True),
        sa.Column("card_ids", sa.JSON(), nullable=False),
        sa.Column("due", sa.Date(), nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_assignments_created_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_assignments_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assignments")),
    )
    op.create_index("ix_assignments_user_due", "assignments", ["user_id", "due"])


def downgrade() -> None:
    op.drop_index("ix_assignments_user_due", table_name="assignments")
    op.drop_table("assignments")
