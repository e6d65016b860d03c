"""Where the entailment model's reading of an answer stands, beside the lexical suggestion it
replaces when it arrives; the readings still queued found without reading every suggestion.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

QUEUED = sa.text("reading = 'queued'")


def upgrade() -> None:
    with op.batch_alter_table("attempt_coverage") as batch:
        batch.add_column(sa.Column("reading", sa.String(length=16), nullable=True))
    op.create_index(
        "ix_attempt_coverage_queued",
        "attempt_coverage",
        ["attempt_id"],
        sqlite_where=QUEUED,
        postgresql_where=QUEUED,
    )


def downgrade() -> None:
    op.drop_index("ix_attempt_coverage_queued", table_name="attempt_coverage")
    with op.batch_alter_table("attempt_coverage") as batch:
        batch.drop_column("reading")
