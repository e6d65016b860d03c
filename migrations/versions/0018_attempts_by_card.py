"""Attempts by card, newest first: the author preview's agreement over a card's recent answers.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_attempts_card_created", "attempts", ["card_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_attempts_card_created", table_name="attempts")
