"""A person's answers given aloud by time: "Pace and fillers" reads its newest without walking past
every typed answer.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SPOKEN = sa.text("words_per_minute IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_attempts_user_spoken",
        "attempts",
        ["user_id", "created_at"],
        sqlite_where=SPOKEN,
        postgresql_where=SPOKEN,
    )


def downgrade() -> None:
    op.drop_index("ix_attempts_user_spoken", table_name="attempts")
