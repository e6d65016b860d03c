"""Live demo runs and the heartbeats of the workers that run them.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.storage.base import UTCDateTime

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "demo_runs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=120), nullable=True),
        sa.Column("preset", sa.String(length=32), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("worker", sa.String(length=255), nullable=True),
        sa.Column("rerun_of", sa.String(length=32), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Column("heartbeat_at", UTCDateTime(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted')",
            name=op.f("ck_demo_runs_status_known"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_demo_runs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_demo_runs")),
    )
    op.create_index("ix_demo_runs_user_status", "demo_runs", ["user_id", "status"])
    op.create_index("ix_demo_runs_card_created", "demo_runs", ["card_id", "created_at"])
    op.create_table(
        "worker_beats",
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("device", sa.String(length=255), nullable=False),
        sa.Column("compute", sa.String(length=16), nullable=False),
        sa.Column("tensorflow_version", sa.String(length=32), nullable=True),
        sa.Column("current_run_id", sa.String(length=32), nullable=True),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("last_seen", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_worker_beats")),
    )


def downgrade() -> None:
    op.drop_table("worker_beats")
    op.drop_index("ix_demo_runs_card_created", table_name="demo_runs")
    op.drop_index("ix_demo_runs_user_status", table_name="demo_runs")
    op.drop_table("demo_runs")
