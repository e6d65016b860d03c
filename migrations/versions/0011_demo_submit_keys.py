"""A demo run keeps the key its submit carried, unique per person, so the same submit sent twice
(a double click, a retried request) starts one run, whichever replica each reaches.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Runs stored so far carried no key; NULLs never collide in a unique constraint.
    with op.batch_alter_table("demo_runs") as batch:
        batch.add_column(sa.Column("idempotency_key", sa.String(length=64), nullable=True))
        batch.create_unique_constraint(op.f("uq_demo_runs_user_id"), ["user_id", "idempotency_key"])


def downgrade() -> None:
    with op.batch_alter_table("demo_runs") as batch:
        batch.drop_constraint(op.f("uq_demo_runs_user_id"), type_="unique")
        batch.drop_column("idempotency_key")
