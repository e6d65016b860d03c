"""A mock interview chooses each follow-up from what the answer before it did: why a question was
asked, a question skipped or answered "I don't know", and whether each answer is rated as it is
given or the session moves straight on (a spoken or API session: rated from its summary).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("interview_sessions") as batch:
        batch.add_column(sa.Column("rate_each", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("interview_questions") as batch:
        batch.add_column(sa.Column("why", sa.String(length=140), nullable=True))
        batch.add_column(sa.Column("outcome", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("interview_questions") as batch:
        batch.drop_column("outcome")
        batch.drop_column("why")
    with op.batch_alter_table("interview_sessions") as batch:
        batch.drop_column("rate_each")
