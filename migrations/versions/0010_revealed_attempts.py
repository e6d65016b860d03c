"""An attempt can be a reveal without answering: the model answer shown before any answer, kept
in the history as such and scheduled as a miss.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Every attempt stored so far was answered.
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("revealed", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.drop_column("revealed")
