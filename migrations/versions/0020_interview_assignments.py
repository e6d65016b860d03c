"""Assignments taken as a mock interview: how each assignment is taken, card by card until now.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("assignments") as batch:
        batch.add_column(sa.Column("kind", sa.String(length=16), server_default="review", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("assignments") as batch:
        batch.drop_column("kind")
