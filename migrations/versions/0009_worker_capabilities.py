"""Workers advertise their capabilities with their heartbeat: the queue lanes they read (a GPU
worker reads the GPU lane too) and how their GPU capability was decided.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Server defaults: a worker still running the previous release keeps beating during an
    # upgrade, and it reads only the lane every worker reads.
    with op.batch_alter_table("worker_beats") as batch:
        batch.add_column(sa.Column("capabilities", sa.JSON(), server_default='["cpu"]', nullable=False))
        batch.add_column(sa.Column("gpu_setting", sa.String(length=8), server_default="auto", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("worker_beats") as batch:
        batch.drop_column("gpu_setting")
        batch.drop_column("capabilities")
