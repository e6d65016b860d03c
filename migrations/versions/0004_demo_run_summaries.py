"""Demo runs keep a summary (the result without per-step data) for lists, and an index for the
queue's own questions (what is queued or running, oldest first).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

runs = sa.table(
    "demo_runs", sa.column("id", sa.String()), sa.column("result", sa.JSON()), sa.column("summary", sa.JSON())
)


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    # Frozen copy of the rule in app/demos/claims.py at this revision: a migration must not
    # change meaning when the app's code does.
    variants = [
        {k: v for k, v in variant.items() if k != "steps"} for variant in result.get("variants") or []
    ]
    return {**result, "variants": variants}


def upgrade() -> None:
    with op.batch_alter_table("demo_runs") as batch:
        batch.add_column(sa.Column("summary", sa.JSON(), nullable=True))
        batch.create_index("ix_demo_runs_status_created", ["status", "created_at"])
    connection = op.get_bind()
    for run_id, result in connection.execute(
        sa.select(runs.c.id, runs.c.result).where(runs.c.result.is_not(None))
    ):
        connection.execute(sa.update(runs).where(runs.c.id == run_id).values(summary=_summary(result)))


def downgrade() -> None:
    with op.batch_alter_table("demo_runs") as batch:
        batch.drop_index("ix_demo_runs_status_created")
        batch.drop_column("summary")
