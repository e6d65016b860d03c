"""A mock interview can be timed as a whole (`minutes`; `ran_out_at` when its time ran out, ending
it), and remembers the assignment it was started from, so the lead who assigned it sees its
figures.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("interview_sessions") as batch:
        batch.add_column(sa.Column("minutes", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("ran_out_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("assignment_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_interview_sessions_assignment_id_assignments",
            "assignments",
            ["assignment_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch.create_index("ix_interview_sessions_assignment_id", ["assignment_id"])


def downgrade() -> None:
    with op.batch_alter_table("interview_sessions") as batch:
        batch.drop_index("ix_interview_sessions_assignment_id")
        batch.drop_constraint("fk_interview_sessions_assignment_id_assignments", type_="foreignkey")
        batch.drop_column("assignment_id")
        batch.drop_column("ran_out_at")
        batch.drop_column("minutes")
