"""What the coverage checker suggested for each answer, and how far the person's ticks agreed.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "attempt_coverage",
        sa.Column("attempt_id", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(length=32), nullable=False),
        sa.Column("points", sa.JSON(), nullable=False),
        sa.Column("pitfalls", sa.JSON(), nullable=False),
        sa.Column("agreed", sa.Integer(), nullable=True),
        sa.Column("compared", sa.Integer(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["attempt_id"],
            ["attempts.id"],
            name=op.f("fk_attempt_coverage_attempt_id_attempts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("attempt_id", name=op.f("pk_attempt_coverage")),
    )


def downgrade() -> None:
    op.drop_table("attempt_coverage")
