"""A person's answers by time across cards: /progress reads their newest without sorting them all.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_attempts_user_created", "attempts", ["user_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_attempts_user_created", table_name="attempts")
